-- Reductions and scans over tuples of a scalar and rows, with operators
-- elementwise over the rows: one segment per column, the scalar repeated
-- in every column (a segmented scan of rows: flags beside them). An if
-- choosing between two rows computed where read stays element by element.

def segmented_scan [n] 't (op: t -> t -> t) (ne: t) (flags: [n]bool) (as: [n]t) : [n]t =
  (unzip (scan (\(x_flag, x) (y_flag, y) -> (x_flag || y_flag, if y_flag then y else x `op` y))
               (false, ne) (zip flags as))).1

-- ==
-- entry: rows
-- input { [true, false, false, true, false] [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]] }
-- output { [[1, 2], [4, 6], [9, 12], [7, 8], [16, 18]] }
entry rows [n] [m] (flags: [n]bool) (xss: [n][m]i32) : [n][m]i32 =
  segmented_scan (map2 (+)) (replicate m 0) flags xss

-- ==
-- entry: flags_too
-- input { [true, false, false, true, false] [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]] }
-- output { [true, true, true, true, true] [[1, 2], [4, 6], [9, 12], [7, 8], [16, 18]] }
entry flags_too [n] [m] (flags: [n]bool) (xss: [n][m]i32) =
  unzip (scan (\(x_flag, x) (y_flag, y) -> (x_flag || y_flag, if y_flag then y else map2 (+) x y))
              (false, replicate m 0) (zip flags xss))

-- ==
-- entry: reduce_mixed
-- input { [1f32, 5f32, 3f32] [[1, 2], [3, 4], [5, 6]] }
-- output { 5f32 [9, 12] }
entry reduce_mixed [n] [m] (ws: [n]f32) (xss: [n][m]i32) =
  reduce (\(a, x) (b, y) -> (f32.max a b, map2 (+) x y)) (f32.lowest, replicate m 0) (zip ws xss)

-- A scalar computed from the arrays has no single column: not vectorised.
-- ==
-- entry: scalar_from_arrays
-- input { [1, 5, 3] [[1, 2], [3, 4], [5, 6]] }
-- output { 9 [9, 12] }
entry scalar_from_arrays [n] [m] (ws: [n]i32) (xss: [n][m]i32) =
  reduce (\(a, x) (b, y) -> (a + b + x[0] - x[0], map2 (+) x y)) (0, replicate m 0) (zip ws xss)
