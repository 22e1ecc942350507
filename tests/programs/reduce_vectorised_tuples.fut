-- Reductions whose operator combines tuples (and records) of arrays element
-- by element: column-wise, one segment per column (they ran on the
-- reference backend: "a neutral element that is not a scalar or a tuple of
-- scalars"). Also a neutral element that differs between columns, which
-- the reference runs.

-- ==
-- entry: maxsum
-- input { [[1f32, 5f32, 3f32], [4f32, 2f32, 6f32]] [[1, 2, 3], [4, 5, 6]] }
-- output { [4f32, 5f32, 6f32] [5, 7, 9] }
entry maxsum [k] (xss: [][k]f32) (yss: [][k]i32) =
  reduce (\(a, b) (c, d) -> (map2 f32.max a c, map2 (+) b d)) (replicate k f32.lowest, replicate k 0) (zip xss yss)

-- ==
-- entry: centroid_sums
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }
-- output { [9.0, 12.0] [3i64, 3i64] [1.0, 2.0] }
entry centroid_sums [k] (ps: [][k]f64) =
  let r = reduce_comm (\x y -> {sum = map2 (+) x.sum y.sum, count = map2 (+) x.count y.count, low = map2 f64.min x.low y.low})
                      {sum = replicate k 0, count = replicate k 0, low = replicate k f64.inf}
                      (map (\p -> {sum = p, count = replicate k 1i64, low = p}) ps)
  in (r.sum, r.count, r.low)

-- ==
-- entry: uneven_neutral
-- input { [[1, 2], [3, 4]] }
-- output { [14, 26] [3, 8] }
entry uneven_neutral [n] (xss: [n][2]i32) =
  reduce (\(a, b) (c, d) -> (map2 (+) a c, map2 (*) b d)) ([10, 20], [1, 1]) (map (\xs -> (xs, xs)) xss)
