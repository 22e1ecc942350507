-- Indexing, slicing (strides, negative strides), in-place updates,
-- structural equality, strings, and index errors.
-- ==
-- entry: index
-- input { [[1, 2, 3], [4, 5, 6]] 1i64 2i64 } output { 6 [4, 5, 6] [3, 6] }
-- input { [[1, 2, 3], [4, 5, 6]] 2i64 0i64 } error: Index \[2, 0\] out of bounds for array of shape \[2\]\[3\]

-- ==
-- entry: slices
-- input { [1, 2, 3, 4, 5, 6] } output { [2, 3, 4] [1, 3, 5] [6, 5, 4, 3, 2, 1] [5, 3] empty([0]i32) }

-- ==
-- entry: bad_slice
-- input { [1, 2, 3] 1i64 5i64 } error: Index \[1:5\] out of bounds for array of shape \[3\]
-- input { [1, 2, 3] 2i64 1i64 } error: Index \[2:1\] out of bounds
-- input { [1, 2, 3] 1i64 3i64 } output { [2, 3] }

-- ==
-- entry: update
-- input { [1, 2, 3, 4] } output { [10, 2, 30, 4] [0, 0, 3, 4] }

-- ==
-- entry: update2d
-- input { [[1, 2], [3, 4]] } output { [[1, 9], [7, 8]] }

-- ==
-- entry: equality
-- input { [1, 2] [1, 2] } output { true false true }
-- input { [1, 2] [2, 1] } output { false true false }

-- ==
-- entry: string
-- input { } output { [104u8, 105u8] 2i64 }

entry index (xss: [][]i32) (i: i64) (j: i64) = (xss[i, j], xss[i], xss[:, j])
entry slices (xs: []i32) = (xs[1:4], xs[::2], xs[::-1], xs[4:0:-2], xs[3:3])
entry bad_slice (xs: []i32) (i: i64) (j: i64) = xs[i:j]
entry update (xs: *[]i32) =
  let ys = copy xs
  let xs[0] = 10
  let xs[2] = xs[2] * 10
  in (xs, ys with [0:2] = [0, 0])
entry update2d (xss: *[][]i32) = xss with [1] = [7, 8] with [0, 1] = 9
entry equality (xs: []i32) (ys: []i32) = (xs == ys, xs != ys, [xs] == [ys] || xs == ys)
entry string = let s = "hi" in (s, length s)
