-- Scatters as the result of a mapped function: one segmented scatter over
-- the nest (each row's destination written first, then all rows' values),
-- whatever the destination's size. Indices outside a row are ignored row
-- by row; values computed from the destination see its old contents.

-- ==
-- entry: reverse_rows
-- input { [[1, 2, 3, 4], [5, 6, 7, 8]] }
-- output { [[4, 3, 2, 1], [8, 7, 6, 5]] }
entry reverse_rows [m] (xss: [][m]i32) =
  map (\xs -> scatter (copy xs) (map (\i -> m - 1 - i) (iota m)) xs) xss

-- ==
-- entry: out_of_row
-- input { [[1, 2, 3], [4, 5, 6]] [[0, 3, -1], [2, 5, 1]] }
-- output { [[10, 2, 3], [4, 60, 40]] }
entry out_of_row (xss: [][]i32) (iss: [][]i64) =
  map2 (\xs is -> scatter (copy xs) is (map (* 10) xs)) xss iss

-- ==
-- entry: reads_destination
-- input { [[1, 2, 3], [4, 5, 6]] }
-- output { [[3, 2, 1], [6, 5, 4]] }
entry reads_destination [m] (xss: [][m]i32) =
  map (\xs -> let d = map (+ 0) xs
              in scatter d (iota m) (map (\i -> d[m - 1 - i]) (iota m)))
      xss

-- ==
-- entry: fresh_destination
-- input { [[1f32, 2, 3], [4f32, 5, 6]] [[1, 1], [0, 4]] }
-- output { [[0f32, 2, 0, 0, 0], [4f32, 0, 0, 0, 5]] }
entry fresh_destination (xss: [][]f32) (iss: [][2]i64) =
  map2 (\xs is -> scatter (replicate 5 0) is (take 2 xs |> map2 (\i x -> if i == 1 then xs[1] else x) is)) xss iss

-- ==
-- entry: tuples
-- input { [[1, 2, 3], [4, 5, 6]] }
-- output { [[3, 2, 1], [6, 5, 4]] [[true, false, true], [false, true, false]] }
entry tuples [m] (xss: [][m]i32) =
  map (\xs -> scatter (zip (copy xs) (map (\x -> x % 2 == 1) xs))
                      (map (\i -> m - 1 - i) (iota m))
                      (zip xs (map (\x -> x % 2 == 1) xs)))
      xss
  |> map unzip |> unzip

-- ==
-- entry: rows_of_arrays
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] }
-- output { [[[3, 4], [1, 2]], [[7, 8], [5, 6]]] }
entry rows_of_arrays [m] (xsss: [][m][2]i32) =
  map (\xss -> scatter (copy xss) (map (\i -> m - 1 - i) (iota m)) xss) xsss

-- ==
-- entry: rows_out_of_range
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] [[5, 0], [-1, 1]] [[[10, 20], [30, 40]], [[50, 60], [70, 80]]] }
-- output { [[[30, 40], [3, 4]], [[5, 6], [70, 80]]] }
entry rows_out_of_range (xsss: [][][2]i32) (iss: [][]i64) (vsss: [][][2]i32) =
  map3 (\xss is vss -> scatter (copy xss) is vss) xsss iss vsss

-- Not inside a map: rows scattered into a matrix, one write per scalar.
-- ==
-- entry: flat_rows
-- input { [[1, 2, 3], [4, 5, 6], [7, 8, 9]] [2, -1, 0, 3] [[10, 11, 12], [13, 14, 15], [16, 17, 18], [19, 20, 21]] }
-- output { [[16, 17, 18], [4, 5, 6], [10, 11, 12]] }
entry flat_rows (xss: *[][3]i32) (is: []i64) (vss: [][3]i32) = scatter xss is vss
