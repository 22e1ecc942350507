-- Sizes of two parameters are different sizes: map2 needs them equal.
-- ==
-- error: Sizes "n" and "m" do not match

def main [n][m] (xs: [n]i32) (ys: [m]i32) = map2 (+) xs ys
