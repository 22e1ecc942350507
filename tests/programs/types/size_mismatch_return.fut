-- The declared return size differs from the body's.
-- ==
-- error: Sizes "m" and "n" do not match

def f [n][m] (xs: [n]i32) (_: [m]i32) : [m]i32 = xs

def main (xs: []i32) = f xs xs
