-- Futhark's wording for a name not in scope.
-- ==
-- error: Unknown name "later"

def early (x: i32) = later x
def later (x: i32) = x + 1
