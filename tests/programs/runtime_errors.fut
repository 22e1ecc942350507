-- Run-time errors and their messages.
-- ==
-- entry: index_oob
-- input { [1, 2, 3] 3i64 } error: Index \[3\] out of bounds for array of shape \[3\]
-- input { [1, 2, 3] -1i64 } error: Index \[-1\] out of bounds
-- input { [1, 2, 3] 2i64 } output { 3 }

-- An index out of bounds in a mapped function names the index, on the
-- flattened backends as on the reference one.
-- ==
-- entry: mapped_index_oob
-- input { [1f32, 2f32, 3f32, 4f32] 2i64 } error: Index \[-1\] out of bounds for array of shape \[4\]
-- input { [1f32, 2f32, 3f32, 4f32] 7i64 } output { [1f32, 2f32, 3f32, 4f32] }

-- ==
-- entry: update_oob
-- input { [1, 2, 3] 5i64 } error: Index \[5\] out of bounds for array of shape \[3\]

-- ==
-- entry: divide
-- input { 1 0 } error: division by zero
-- input { 1i32 1i32 } output { 1 0 }

-- ==
-- entry: checked
-- input { 5 } output { 10 }
-- input { -5 } error: Assertion is false: x >= 0

-- ==
-- entry: zip_sizes
-- input { [1, 2, 3] [1, 2] } error: Size mismatch: 3 vs 2

-- ==
-- entry: bad_iota
-- input { -3i64 } error: Range 0..1..<-3 is invalid

entry index_oob (xs: []i32) (i: i64) = xs[i]

entry mapped_index_oob [n] (xs: [n]f32) (bad: i64) = map (\i -> xs[if i == bad then -1 else i]) (iota n)
entry update_oob (xs: *[]i32) (i: i64) = xs with [i] = 0
entry divide (x: i32) (y: i32) = (x / y, x % y)
entry checked (x: i32) = assert (x >= 0) (x * 2)
entry zip_sizes (xs: []i32) (ys: []i32) = zip xs ys |> map (\(a, b) -> a + b)
entry bad_iota (n: i64) = iota n
