-- Scatter and reduce_by_index into arrays of nested tuples and records.
-- ==
-- entry: nested
-- input { [1i32, 2i32, 3i32] [1.0, 2.0, 3.0] }
-- output { [3i32, 2i32, 1i32] [3.0, 2.0, 1.0] [6.0, 4.0, 2.0] }
entry nested [n] (xs: [n]i32) (ys: [n]f64) : ([n]i32, [n]f64, [n]f64) =
  let vals = map2 (\x y -> (x, (y, {a = 2 * y}))) xs ys
  let r = scatter (replicate n (0, (0.0, {a = 0.0}))) (map (\i -> n - 1 - i) (iota n)) vals
  in (map (.0) r, map (.1.0) r, map (.1.1.a) r)

-- ==
-- entry: nested2d
-- input { [1i32, 2i32, 3i32, 4i32] }
-- output { [[4i32, 3i32], [2i32, 1i32]] [[4i64, 3i64], [2i64, 1i64]] }
entry nested2d (xs: []i32) : ([][]i32, [][]i64) =
  let vals = map (\x -> ((x, i64.i32 x), ())) xs
  let is = map (\k -> (1 - k / 2, 1 - k % 2)) (iota 4)
  let r = scatter_2d (replicate 2 (replicate 2 ((0, 0i64), ()))) is vals
  in (map (map (.0.0)) r, map (map (.0.1)) r)
