-- Histograms and scatter with the semantics of notes-hist: the destination
-- supplies initial values, out-of-bounds indices are ignored, empty inputs
-- and empty destinations, vectorised and tuple (argmax) operators.
-- ==
-- entry: counts
-- input { 5i64 [0i64, 1i64, 1i64, 3i64, 3i64, 3i64] } output { [1, 2, 0, 3, 0] }
-- input { 3i64 [-1i64, 3i64, 5i64, 0i64, 2i64, -9223372036854775808i64, 9223372036854775807i64] } output { [1, 0, 1] }
-- input { 2i64 empty([0]i64) } output { [0, 0] }
-- input { 0i64 [0i64, 1i64] } output { empty([0]i32) }

-- ==
-- entry: with_dest
-- input { [10, 20, 30] [0i64, 2i64, 2i64] [1, 2, 3] } output { [11, 20, 35] }

-- ==
-- entry: maxes
-- input { [0i64, 0i64, 1i64, 1i64] [3, 7, 2, 2] } output { [7, 2] [1i64, 2i64] }

-- ==
-- entry: vectors
-- input { [0i64, 1i64, 0i64] [[1, 2], [3, 4], [5, 6]] } output { [[6, 8], [3, 4]] }

-- ==
-- entry: scatters
-- input { [0i64, 2i64, 7i64, -1i64] [1, 2, 3, 4] } output { [1, 0, 2, 0, 0] }

-- ==
-- entry: scatter2d
-- input { [0i64, 1i64, 2i64] [0i64, 1i64, 0i64] [5, 6, 7] } output { [[5, 0], [0, 6]] }

-- ==
-- entry: hist2d
-- input { [0i64, 1i64, 0i64, 2i64] [1i64, 0i64, 1i64, 2i64] [1, 2, 3, 4] } output { [[0, 4], [2, 0]] }

entry counts (k: i64) (is: []i64) = hist (+) 0 k is (map (\_ -> 1) is)
entry with_dest (dest: *[]i32) (is: []i64) (vs: []i32) = reduce_by_index dest (+) 0 is vs
entry maxes [n] (is: [n]i64) (vs: [n]i32) =
  let argmax (v1, i1) (v2, i2) = if v1 > v2 || (v1 == v2 && i1 < i2) then (v1, i1) else (v2, i2)
  in unzip (hist argmax (i32.lowest, -1) 2 is (zip vs (iota n)))
entry vectors [n] (is: [n]i64) (vs: [n][2]i32) = hist (map2 (+)) [0, 0] 2 is vs
entry scatters (is: []i64) (vs: []i32) = scatter (replicate 5 0) is vs
entry scatter2d (is: []i64) (js: []i64) (vs: []i32) = scatter_2d (replicate 2 (replicate 2 0)) (zip is js) vs
entry hist2d (is: []i64) (js: []i64) (vs: []i32) =
  reduce_by_index_2d (replicate 2 (replicate 2 0)) (+) 0 (zip is js) vs
