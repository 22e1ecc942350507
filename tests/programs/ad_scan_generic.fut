-- Automatic differentiation of scans with operators other than (+): the
-- seed's generic rule (a backward linear recurrence solved by a scan of
-- affine maps) in reverse mode, dual pairs scanned in forward mode. On the
-- host backend with --validate each result is compared with the reference
-- tape.

-- T15: scan (*) on [2,3,4] (zeros need no care: nothing is divided).
-- ==
-- entry: scan_mul
-- input { [2.0, 3.0, 4.0] [1.0, 1.0, 1.0] } output { [16.0, 10.0, 6.0] [1.0, 5.0, 26.0] }
-- input { [2.0, 3.0, 4.0] [1.0, 2.0, 3.0] } output { [43.0, 28.0, 18.0] [1.0, 5.0, 26.0] }
-- input { [2.0, 0.0, 4.0] [1.0, 1.0, 1.0] } output { [1.0, 10.0, 0.0] [1.0, 2.0, 8.0] }
entry scan_mul (xs: []f64) (yb: []f64) =
  (vjp (scan (*) 1) xs yb, jvp (scan (*) 1) xs (map (const 1) xs))

-- A lambda: (1 + a)(1 + b) - 1, associative; f32 too.
-- ==
-- entry: scan_lambda
-- input { [0.5f32, 1f32, 2f32] } output { [9f32, 6f32, 3f32] [1f32, 3.5f32, 13.5f32] }
entry scan_lambda (xs: []f32) =
  let f = scan (\a b -> a + b + a * b) 0
  in (vjp f xs (map (const 1) xs), jvp f xs (map (const 1) xs))

-- max: the adjoint goes to the element each running maximum came from
-- (ties to the left operand).
-- ==
-- entry: scan_max
-- input { [1.0, 5.0, 3.0, 7.0] } output { [1.0, 2.0, 0.0, 1.0] [1.0, 1.0, 1.0, 1.0] }
entry scan_max (xs: []f64) =
  let f = scan f64.max f64.lowest
  in (vjp f xs (map (const 1) xs), jvp f xs (map (const 1) xs))

-- A scan inside a larger function, its input from a map, its result reduced.
-- ==
-- entry: scan_chain
-- input { [0.1, 0.2, 0.3] } output { 7.466646616656472 }
entry scan_chain (xs: []f64) =
  let f xs = f64.sum (scan (*) 1 (map (\x -> 1 + f64.sin x) xs))
  in f64.sum (vjp f xs 1)
