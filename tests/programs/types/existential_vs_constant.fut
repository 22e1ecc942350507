-- A function's existential result size is none of the sizes in scope: it
-- must be coerced with :> to a declared size.
-- ==
-- error: do not match

def positives (xs: []i32) : []i32 = filter (> 0) xs
def main (xs: [4]i32) : [4]i32 = positives xs
