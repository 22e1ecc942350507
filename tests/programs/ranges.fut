-- Ranges in all their forms, and the invalid ones.
-- ==
-- entry: ranges
-- input { 1 5 } output { [1, 2, 3, 4, 5] [1, 2, 3, 4] [1, 3, 5] [1, 3] }
-- input { 3 3 } output { [3] empty([0]i32) [3] empty([0]i32) }

-- ==
-- entry: down
-- input { 5 1 } output { [5, 4, 3, 2] [5, 3] [5, 3, 1] }

-- ==
-- entry: invalid
-- input { 5 1 } error: Range 5...1 is invalid
-- input { 1 1 } output { [1] }

-- ==
-- entry: invalid_step
-- input { 1 5 } error: Range 1..1...5 is invalid

entry ranges (a: i32) (b: i32) = (a...b, a..<b, a..a+2...b, a..a+2..<b)
entry down (a: i32) (b: i32) = (a..>b, a..a-2..>b, a..a-2...b)
entry invalid (a: i32) (b: i32) = a...b
entry invalid_step (a: i32) (b: i32) = a..a...b
