-- The array functions of the prelude.
-- ==
-- entry: shapes
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[1, 4], [2, 5], [3, 6]] [1, 2, 3, 4, 5, 6] [[1, 2], [3, 4], [5, 6]] [[4, 5, 6], [1, 2, 3]] }

-- ==
-- entry: unflat
-- input { 2i64 2i64 [1, 2, 3, 4] } output { [[1, 2], [3, 4]] }
-- input { 2i64 3i64 [1, 2, 3, 4] } error: Cannot unflatten array of shape \[4\] to array of shape \[2\]\[3\]

-- ==
-- entry: parts
-- input { [1, 2, 3, 4] } output { 1 4 [2, 3, 4] [1, 2, 3] [1, 2] [3, 4] [4, 3, 2, 1] 4i64 false }

-- ==
-- entry: heads
-- input { empty([0]i32) } error: Index \[0\] out of bounds for array of shape \[0\]

-- ==
-- entry: rotations
-- input { [1, 5, 3, 4, 2, 6, 7, 8] } output { [5, 3, 4, 2, 6, 7, 8, 1] [8, 1, 5, 3, 4, 2, 6, 7] }

-- ==
-- entry: builders
-- input { 3i64 } output { [0i64, 1i64, 2i64] [7, 7, 7] [[0i64, 1i64, 2i64], [10i64, 11i64, 12i64], [20i64, 21i64, 22i64]] [0i64, 1i64, 2i64] }
-- input { 0i64 } output { empty([0]i64) empty([0]i32) empty([0][0]i64) empty([0]i64) }

-- ==
-- entry: zips
-- input { [1, 2] [true, false] [1.0, 2.0] } output { [1, 2] [true, false] [1.0, 2.0] }

-- ==
-- entry: folds
-- input { [1, 2, 3] } output { 123 321 [1, 2, 3, 1, 2, 3] }

entry shapes (xss: [][]i32) =
  (transpose xss, flatten xss, unflatten (flatten xss :> [3 * 2]i32) : [3][2]i32, reverse xss)
entry unflat (n: i64) (m: i64) (xs: []i32) : [n][m]i32 = unflatten xs
entry parts (xs: []i32) =
  (head xs, last xs, tail xs, init xs, take 2 xs, drop 2 xs, reverse xs, length xs, null xs)
entry heads (xs: []i32) = head xs
entry rotations (xs: []i32) = (rotate 1 xs, rotate (-1) xs)
entry builders (n: i64) = (iota n, replicate n 7i32, tabulate_2d n n (\i j -> i * 10 + j), indices (iota n))
entry zips (xs: []i32) (ys: []bool) (zs: []f64) = unzip3 (zip3 xs ys zs)
entry folds (xs: []i32) =
  (foldl (\acc x -> acc * 10 + x) 0 xs, foldr (\x acc -> acc * 10 + x) 0 xs, xs ++ xs)
