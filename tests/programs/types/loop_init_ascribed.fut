-- The initial value must have the sizes a loop parameter's ascription
-- names.
-- ==
-- error: Initial loop values do not have expected type

def main [m] (xs: [m]i32) (n: i64) =
  loop (ys: [n]i32) = xs for _i < 3i32 do replicate n (ys[0] + 1)
