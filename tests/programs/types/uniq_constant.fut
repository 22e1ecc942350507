-- Top-level constants may not be unique.
-- ==
-- error: A top-level constant cannot have a unique type

def global : *[]i32 = [1, 2, 3]
