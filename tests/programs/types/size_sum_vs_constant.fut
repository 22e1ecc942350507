-- The declared result size is checked against the body's: the sizes of
-- the parameters are the function's own, so their sum is not 10 (Futhark
-- links only a size variable to an expression).
-- ==
-- error: do not match

def main (xs: []i32) (ys: []i32) : [10]i32 = xs ++ ys
