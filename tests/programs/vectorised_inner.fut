-- Reductions and scans with vectorised operators inside a mapped function
-- (as in finance codes: a running product of rows, a column sum), and the
-- same prelude function nested in itself. The accumulator row is kept in
-- the element's private storage (Lowerer::loop_state).

-- ==
-- entry: running_products
-- input { [[[1f32, 2f32, 3f32], [4f32, 5f32, 6f32]], [[2f32, 2f32, 2f32], [0.5f32, 0.5f32, 0.5f32]]] }
-- output { [[[1f32, 2f32, 3f32], [4f32, 10f32, 18f32]], [[2f32, 2f32, 2f32], [1f32, 1f32, 1f32]]] }
entry running_products [m][n][k] (xsss: [m][n][k]f32) : [m][n][k]f32 =
  map (\xss -> scan (map2 (*)) (replicate k 1.0) xss) xsss

-- ==
-- entry: column_sums
-- input { [[[1i64, 2i64, 3i64], [4i64, 5i64, 6i64]], [[2i64, 2i64, 2i64], [5i64, 5i64, 5i64]]] }
-- output { [[5i64, 7i64, 9i64], [7i64, 7i64, 7i64]] }
entry column_sums [m][n][k] (xsss: [m][n][k]i64) : [m][k]i64 =
  map (\xss -> reduce (map2 (+)) (replicate k 0) xss) xsss

-- A column sum used further inside the element.
-- ==
-- entry: column_sum_total
-- input { [[[1i64, 2i64], [3i64, 4i64]], [[0i64, 1i64], [1i64, 0i64]]] }
-- output { [52i64, 2i64] }
entry column_sum_total [m][n][k] (xsss: [m][n][k]i64) : [m]i64 =
  map (\xss -> let cs = reduce (map2 (+)) (replicate k 0) xss
               in i64.sum (map (\c -> c * c) cs)) xsss

-- ==
-- entry: nested_sums
-- input { [[1f32, 2f32], [3f32, 4f32]] } output { [9f32, 49f32] }
entry nested_sums (xss: [][]f32) : []f32 =
  map (\xs -> f32.sum (map (\x -> f32.sum (map (* x) xs)) xs)) xss

-- Rows whose elements are one-element vectors ([n][m][1], as in Futhark's
-- flattening/iswim1.fut): the result rows are copied out with index 0 for
-- the trailing dimension of size 1.
-- ==
-- entry: unit_vector_scan
-- input { [[[1i32], [2i32], [3i32]], [[4i32], [5i32], [6i32]]] }
-- output { [[[1i32], [3i32], [6i32]], [[4i32], [9i32], [15i32]]] }
entry unit_vector_scan [n][m][k] (xss: [n][m][k]i32) : [n][m][k]i32 =
  map (scan (map2 (+)) (replicate k 0)) xss
