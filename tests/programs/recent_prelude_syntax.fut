-- Newer Futhark: a lambda as the last argument without parentheses, vector
-- AD (jmp, mjp), flatmap, typed holes.
-- ==
-- entry: trailing_lambda
-- input { 3i64 } output { [0i64, 2i64, 4i64] }

-- ==
-- entry: vector_ad
-- input { [1.0f64, 2.0f64] }
-- output { [[2.0f64, 0.0f64], [0.0f64, 4.0f64]] [[2.0f64, 0.0f64], [0.0f64, 4.0f64]] }

-- ==
-- entry: flat
-- input { [2i64, 0i64, 3i64] }
-- output { [2i64, 0i64, 3i64] [true, false, true, false, false] [0i64, 2i64, 2i64]
--          [0i64, 1i64, 0i64, 1i64, 2i64] [4i64, 0i64, 9i64] }

-- ==
-- entry: hole
-- input { 1i32 } error: Reached hole of type: i32

entry trailing_lambda (n: i64) = tabulate n \i -> i * 2

entry vector_ad [n] (xs: [n]f64) =
  let seeds = tabulate n \i -> replicate n 0 with [i] = 1
  let sq = map (\x -> x * x)
  in (jmp sq xs seeds, mjp sq xs seeds)

entry flat (ks: []i64) = flatmap (\k -> (iota k, k * k)) ks

entry hole (x: i32) : i32 = if x > 0 then ??? else x
