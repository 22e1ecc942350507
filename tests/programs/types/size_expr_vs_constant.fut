-- Size expressions unify syntactically, as in Futhark: `xs ++ ys` has size
-- n + m, which is not 10 (nor n) where sizes are checked statically.
-- ==
-- error: Sizes "10" and "m \+ n" do not match

def main [n] [m] (xs: [n]i32) (ys: [m]i32) : [10]i32 = xs ++ ys
