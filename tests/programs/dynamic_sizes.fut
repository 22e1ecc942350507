-- Arrays whose length is known only once an element runs (a function of
-- the loop counter or of the element's own values): slices with run-time
-- bounds, take/drop, iota of a computed size. The flattener keeps these in
-- the element's sequential code (interp/flatten/lower.cpp, SymArr::len)
-- instead of sending the whole nest to the reference backend.

-- A column slice above the diagonal, as in an LU decomposition.
-- ==
-- entry: upper_column_sums
-- input { [[1i64, 2i64, 3i64], [4i64, 5i64, 6i64], [7i64, 8i64, 9i64]] }
-- output { [0i64, 2i64, 9i64] }
entry upper_column_sums [n] (mat: [n][n]i64) : [n]i64 =
  map (\i -> i64.sum mat[:i, i]) (iota n)

-- take (j+1) inside a loop inside a map: a growing prefix per step.
-- ==
-- entry: prefix_sums_of_prefixes
-- input { [[1i32, 2i32, 3i32], [10i32, 20i32, 30i32]] }
-- output { [10i32, 100i32] }
entry prefix_sums_of_prefixes (xss: [][]i32) : []i32 =
  map (\xs -> loop acc = 0 for j < length xs do acc + i32.sum (take (j + 1) xs)) xss

-- iota and replicate of a size computed from the element.
-- ==
-- entry: triangle
-- input { [0i64, 1i64, 4i64] } output { [0i64, 1i64, 10i64] }
entry triangle (ns: []i64) : []i64 =
  map (\n -> reduce (+) 0 (map2 (+) (iota n) (replicate n 1))) ns

-- A slice with a run-time start and stride, then indexed.
-- ==
-- entry: strided
-- input { [[0i64, 1i64, 2i64, 3i64, 4i64, 5i64], [6i64, 7i64, 8i64, 9i64, 10i64, 11i64]] [1i64, 2i64] }
-- output { [4i64, 18i64] }
entry strided [m] (xss: [m][]i64) (starts: [m]i64) : [m]i64 =
  map2 (\xs s -> let ys = xs[s::2] in ys[0] + ys[1]) xss starts

-- drop with a computed count, then a scan over what is left.
-- ==
-- entry: drop_scan
-- input { [[1i64, 2i64, 3i64, 4i64], [5i64, 6i64, 7i64, 8i64]] }
-- output { [7i64, 8i64] }
entry drop_scan (xss: [][]i64) : []i64 =
  map (\xs -> let ys = scan (+) 0 (drop (xs[0] % 3) xs) in ys[length ys - 1] - ys[0]) xss

-- A slice past the end is a located run-time error, as in the reference.
-- ==
-- entry: bad_slice
-- input { [[1i64, 2i64], [3i64, 4i64]] } error: out of bounds
entry bad_slice (xss: [][]i64) : []i64 =
  map (\xs -> i64.sum xs[1:xs[0] + 2]) xss
