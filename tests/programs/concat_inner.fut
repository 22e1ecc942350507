-- Concatenation inside mapped functions (as in rodinia/lud's padding): a
-- view that reads each side only where it applies.
-- ==
-- entry: pad_rows
-- input { [[1f32, 2f32], [3f32, 4f32]] 4i64 }
-- output { [[1f32, 2f32, 0f32, 0f32], [3f32, 4f32, 0f32, 0f32]] }
entry pad_rows [n][m] (xss: [n][m]f32) (w: i64) : [n][w]f32 =
  map (\xs -> xs ++ replicate (w - m) 0f32 :> [w]f32) xss

-- ==
-- entry: sums
-- input { [[1i32, 2i32], [3i32, 4i32]] [[10i32], [20i32]] }
-- output { [13i32, 27i32] }
entry sums [n][a][b] (xs: [n][a]i32) (ys: [n][b]i32) : [n]i32 =
  map2 (\x y -> i32.sum (x ++ y)) xs ys

-- ==
-- entry: rows
-- input { [[[1i64, 2i64]], [[3i64, 4i64]]] }
-- output { [[[1i64, 2i64], [0i64, 1i64]], [[3i64, 4i64], [0i64, 1i64]]] }
entry rows [n][k][m] (xsss: [n][k][m]i64) : [n][][m]i64 =
  map (\xss -> xss ++ [iota m]) xsss
