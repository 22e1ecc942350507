-- Slices inside mapped functions (interp/flatten/lower.cpp, Lowerer::slice):
-- flattened when their bounds are known when the nest starts, otherwise
-- run on the reference backend; the results agree either way.

-- ==
-- entry: tails
-- input { [[1i64, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]] } output { [9i64, 21i64, 33i64] }
entry tails [n][m] (xss: [n][m]i64) = map (\row -> reduce (+) 0 row[1:]) xss

-- ==
-- entry: heads
-- input { [[1i64, 2, 3, 4], [5, 6, 7, 8]] } output { [[1i64, 2i64], [5i64, 6i64]] }
entry heads [n][m] (xss: [n][m]i64) = map (\row -> row[0:2]) xss

-- ==
-- entry: strided
-- input { [[1i64, 2, 3, 4, 5], [6, 7, 8, 9, 10]] } output { [9i64, 24i64] }
entry strided [n][m] (xss: [n][m]i64) = map (\row -> i64.sum row[::2]) xss

-- A captured size as a bound (lifted into a parameter first, then lowered
-- again as a constant).
-- ==
-- entry: captured_bound
-- input { [[1i64, 2, 3, 4], [5, 6, 7, 8]] 3i64 } output { [6i64, 18i64] }
entry captured_bound [n][m] (xss: [n][m]i64) (k: i64) = map (\row -> i64.sum row[0:k]) xss

-- Bounds that depend on the element: the reference backend runs it.
-- ==
-- entry: moving
-- input { [0i64, 1, 2] [1i64, 2, 3, 4] } output { [3i64, 5i64, 7i64] }
entry moving (is: []i64) (ys: []i64) = map (\i -> i64.sum ys[i:i + 2]) is

-- An out-of-bounds slice fails as on the reference backend.
-- ==
-- entry: bad
-- input { [[1i64, 2], [3, 4]] 3i64 } error: out of bounds
entry bad [n][m] (xss: [n][m]i64) (k: i64) = map (\row -> i64.sum row[0:k]) xss
