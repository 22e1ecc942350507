-- flatten inside mapped functions: a view of the rows, not a copy.
-- ==
-- entry: row_lengths
-- input { [[[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]], [[7i32, 8i32], [9i32, 10i32], [11i32, 12i32]]] }
-- output { [[1i32, 6i32, 21i32], [7i32, 6i32, 57i32]] }
entry row_lengths [k][n][m] (frames: [k][n][m]i32) : [k][3]i32 =
  map (\frame -> let flat = flatten frame
                 in [frame[0, 0], i32.i64 (length flat), i32.sum flat]) frames

-- ==
-- entry: scan_flat
-- input { [[[1i64, 2i64], [3i64, 4i64]], [[0i64, 1i64], [0i64, 1i64]]] }
-- output { [[1i64, 3i64, 6i64, 10i64], [0i64, 1i64, 1i64, 2i64]] }
entry scan_flat [k][n][m] (xss: [k][n][m]i64) : [k][]i64 =
  map (\xs -> scan (+) 0 (flatten xs)) xss

-- ==
-- entry: flatten_3d_rows
-- input { 2i64 3i64 } output { [[0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64], [8i64, 9i64, 10i64, 11i64, 12i64, 13i64, 14i64, 15i64]] }
entry flatten_3d_rows (k: i64) (_n: i64) : [k][]i64 =
  map (\r -> flatten_3d (tabulate_3d 2 2 2 (\a b c -> r * 8 + a * 4 + b * 2 + c))) (iota k)
