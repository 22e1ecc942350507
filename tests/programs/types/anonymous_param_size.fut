-- `[]` in a parameter's annotation is one size variable (Futhark's
-- checkTypeExpNonrigid): both uses of xs must agree on it.
-- ==
-- error: \[1\]i32, \[2\]i32

def main (xs: []i32) : ([1]i32, [2]i32) = (xs, xs)
