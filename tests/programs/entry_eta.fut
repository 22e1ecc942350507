-- Entry points whose result is a function are eta-expanded, as in Futhark.
-- ==
-- entry: add_all
-- input { 2i64 [1i64, 2i64, 3i64] } output { [3i64, 4i64, 5i64] }

-- ==
-- entry: pair_sum
-- input { 2 [1, 2] [10, 20] } output { [13, 24] }

-- ==
-- entry: point_free
-- input { [1, 2] [3, 4] } output { [4, 6] }

entry add_all (n: i64) = map (+ n)
entry pair_sum (k: i32) = map2 (\x y -> x + y + k)
entry point_free = map2 (i32.+)
