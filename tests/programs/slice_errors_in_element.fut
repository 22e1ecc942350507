-- Slices with bounds computed in the element, out of bounds: Futhark's
-- message with the bounds and the shape, at the user's call when the slice
-- is inside a prelude function (take, drop). The host said "Slice out of
-- bounds." at the prelude's line.

-- ==
-- entry: taken
-- input { [2i64, 3] } output { [3i64, 6] }
-- input { [2i64, -1] } error: Index \[0:-1\] out of bounds for array of shape \[3\]
entry taken (xs: []i64) = map (\x -> i64.sum (take x [1i64, 2, 3])) xs

-- ==
-- entry: dropped
-- input { [2i64, 0] } output { [3i64, 6] }
-- input { [4i64] } error: Index \[4:\] out of bounds for array of shape \[3\]
entry dropped (xs: []i64) = map (\x -> i64.sum (drop x [1i64, 2, 3])) xs

-- ==
-- entry: between
-- input { [1i64, 2] } output { [5i64, 7] }
-- input { [3i64] } error: Index \[3:5\] out of bounds for array of shape \[4\]
entry between (xs: []i64) = map (\x -> i64.sum ([1i64, 2, 3, 4][x:x + 2])) xs
