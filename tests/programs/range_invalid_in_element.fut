-- Ranges whose bounds each element computes: Futhark's rule (a..<c and
-- a...c need a <= c, a..>c needs a >= c) is checked in the element, with
-- its message. The host backend used to give an empty range, and an answer
-- where the reference and Futhark fail.

-- ==
-- input { [2i64, 1, 3] } output { [2i64, 3, 0] }
-- input { [5i64, 1] } error: Range 5..<3 is invalid
entry main (xs: []i64) = map (\x -> i64.sum (x..<3)) xs

-- ==
-- entry: down
-- input { [4i64, 5] } output { [4i64, 9] }
-- input { [1i64] } error: Range 1..>3 is invalid
entry down (xs: []i64) = map (\x -> i64.sum (x..>3)) xs

-- ==
-- entry: inclusive
-- input { [2i64, 3] } output { [5i64, 3] }
-- input { [4i64] } error: Range 4...3 is invalid
entry inclusive (xs: []i64) = map (\x -> i64.sum (x...3)) xs

-- Both bounds computed in the element: the check reports both.
-- ==
-- entry: both
-- input { [5i64, 6] } output { [5i64, 13] }
-- input { [3i64] } error: Range 3..<2 is invalid
entry both (xs: []i64) = map (\x -> i64.sum (x..<(x * 2 - 4))) xs

-- Known when the nest starts: the reference reports it.
-- ==
-- entry: known
-- input { [1i64] } error: Range 5..<3 is invalid
entry known (xs: []i64) = map (\x -> x + i64.sum (5..<3)) xs

-- A step computed in the element (Futhark's flattening/range/irreg-stride):
-- the length is known there, fixed by the coercion.
-- ==
-- entry: stride
-- input { 4i64 [1, 2] } output { [[0, 1, 2, 3], [0, 2, 4, 6]] }
-- input { 4i64 [1, -1] } error: Range 0..-1..<-4 is invalid
entry stride (k: i64) (ss: []i32) = map (\s -> (0..s..<s * i32.i64 k) :> [k]i32) ss

-- ==
-- entry: downward
-- input { [9i64, 8] [7i64, 4] } output { [24i64, 12] }
-- input { [9i64] [9i64] } error: Range 9..9..>1 is invalid
entry downward (as: []i64) (bs: []i64) = map2 (\a b -> i64.sum (a..b..>1)) as bs

-- All three bounds computed in the element (Futhark's flattening/range/opaque-red).
-- ==
-- entry: three
-- input { [1i64, 2] [3i64, 3] [10i64, 8] } output { [25i64, 27] }
-- input { [1i64, 2] [3i64, 2] [10i64, -8] } error: Range 2..2..<-8 is invalid
entry three (as: []i64) (bs: []i64) (cs: []i64) = map3 (\a b c -> i64.sum (a..b..<c)) as bs cs
