-- A slice's size is the expression Futhark gives it (sliceShape): `xs[1:]`
-- of an [n] array is [n - 1], so a declared [n + 1] is an error when the
-- program is checked, not when it runs.
-- ==
-- error: Sizes "n \+ 1" and "n - 1" do not match

def off_by_one [n] (xs: [n]i32): [n + 1]i32 = xs[1:]

entry main (xs: []i32) = off_by_one xs
