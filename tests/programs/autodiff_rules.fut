-- Automatic differentiation on the reference path: the test cases T1-T20 of
-- the seed notes on reverse-mode AD (notes-ad.md §6), each checked with vjp
-- and, where it is cheap, with jvp too.

-- T1: f x = x*x + 10 at 3.
-- ==
-- entry: t1
-- input { 3.0 } output { 6.0 6.0 }
entry t1 (x: f64) = (jvp (\x -> x * x + 10) x 1, vjp (\x -> x * x + 10) x 1)

-- T2: |x1*x2| + 2*x1² at (3,-2) and (3,2).
-- ==
-- entry: t2
-- input { 3.0 -2.0 } output { 24.0 14.0 -3.0 }
-- input { 3.0 2.0 } output { 24.0 14.0 3.0 }
def f2 (x1: f64, x2: f64) = f64.abs (x1 * x2) + 2 * x1 * x1
entry t2 x1 x2 = let (y, (g1, g2)) = vjp2 f2 (x1, x2) 1 in (y, g1, g2)

-- T4, T5, T6, T7: reductions.
-- ==
-- entry: t_sum
-- input { [1.0, 2.0, 3.0] 2.0 } output { [2.0, 2.0, 2.0] }
entry t_sum (xs: []f64) (ybar: f64) = vjp (reduce (+) 0) xs ybar

-- ==
-- entry: t_prod
-- input { [2.0, 3.0, 4.0] } output { [12.0, 8.0, 6.0] }
-- input { [2.0, 0.0, 4.0] } output { [0.0, 8.0, 0.0] }
-- input { [0.0, 3.0, 0.0] } output { [0.0, 0.0, 0.0] }
entry t_prod (xs: []f64) = vjp (reduce (*) 1) xs 1

-- ==
-- entry: t_max
-- input { [1.0, 5.0, 3.0] } output { [0.0, 1.0, 0.0] }
entry t_max (xs: []f64) = vjp (reduce f64.max f64.lowest) xs 1

-- ==
-- entry: t_generic
-- input { [1.0, 2.0, 3.0] } output { 23.0 [12.0, 8.0, 6.0] }
entry t_generic (xs: []f64) = vjp2 (reduce (\a b -> a * b + a + b) 0) xs 1

-- T9-T12: reduce_by_index with +, *, max and a generic operator.
-- ==
-- entry: t9
-- input { [10.0, 20.0, 30.0] [0i64, 2i64, 2i64, -1i64, 3i64] [1.0, 2.0, 3.0, 4.0, 5.0] [1.0, 10.0, 100.0] }
-- output { [11.0, 20.0, 35.0] [1.0, 10.0, 100.0] [1.0, 100.0, 100.0, 0.0, 0.0] }
entry t9 (dst: []f64) (is: []i64) (vs: []f64) (ybar: []f64) =
  let (ys, (dbar, vbar)) = vjp2 (\(d, v) -> reduce_by_index (copy d) (+) 0 is v) (dst, vs) ybar
  in (ys, dbar, vbar)

-- ==
-- entry: t10
-- input { [1.0, 2.0] [0i64, 0i64, 1i64, 1i64, 5i64] [2.0, 3.0, 0.0, 4.0, 7.0] }
-- output { [6.0, 0.0] [6.0, 0.0] [3.0, 2.0, 8.0, 0.0, 0.0] }
-- input { [1.0, 2.0] [0i64, 0i64, 1i64, 1i64] [0.0, 0.0, 5.0, 4.0] }
-- output { [0.0, 40.0] [0.0, 20.0] [0.0, 0.0, 8.0, 10.0] }
entry t10 (dst: []f64) (is: []i64) (vs: []f64) =
  let (ys, (dbar, vbar)) = vjp2 (\(d, v) -> reduce_by_index (copy d) (*) 1 is v) (dst, vs) (map (const 1) dst)
  in (ys, dbar, vbar)

-- ==
-- entry: t11
-- input { [7.0, 0.0] [0i64, 0i64, 1i64, 1i64] [3.0, 7.0, 2.0, 2.0] }
-- output { [7.0, 2.0] [1.0, 0.0] [0.0, 0.0, 1.0, 0.0] }
entry t11 (dst: []f64) (is: []i64) (vs: []f64) =
  let (ys, (dbar, vbar)) =
    vjp2 (\(d, v) -> reduce_by_index (copy d) f64.max f64.lowest is v) (dst, vs) (map (const 1) dst)
  in (ys, dbar, vbar)

-- ==
-- entry: t12
-- input { [1.0, 0.0] [0i64, 1i64, 0i64, 1i64, 4i64] [2.0, 1.0, 3.0, 0.0, 9.0] }
-- output { [23.0, 1.0] [12.0, 2.0] [8.0, 1.0, 6.0, 2.0, 0.0] }
entry t12 (dst: []f64) (is: []i64) (vs: []f64) =
  let op a b = a * b + a + b
  let (ys, (dbar, vbar)) = vjp2 (\(d, v) -> reduce_by_index (copy d) op 0 is v) (dst, vs) (map (const 1) dst)
  in (ys, dbar, vbar)

-- T13: a histogram whose destination is also used elsewhere.
-- ==
-- entry: t13
-- input { [1.0, 2.0, 3.0] [0i64, 0i64, 2i64, 7i64] [1.0, 1.0, 1.0, 1.0] }
-- output { [4.0, 6.0, 13.0] [3.0, 5.0, 7.0] [1.0, 1.0, 1.0, 0.0] }
entry t13 (dst: []f64) (is: []i64) (vs: []f64) =
  let f (d, v) =
    let a = map (** 2) d
    let b = reduce_by_index (copy d) (+) 0 is v
    in map2 (+) a b
  let (x, (dbar, vbar)) = vjp2 f (dst, vs) (map (const 1) dst)
  in (x, dbar, vbar)

-- T14, T15: scans.
-- ==
-- entry: t14
-- input { [5.0, 6.0, 7.0] [1.0, 2.0, 3.0] } output { [6.0, 5.0, 3.0] }
entry t14 (xs: []f64) (ybar: []f64) = vjp (scan (+) 0) xs ybar

-- ==
-- entry: t15
-- input { [2.0, 3.0, 4.0] [1.0, 1.0, 1.0] } output { [16.0, 10.0, 6.0] }
-- input { [2.0, 3.0, 4.0] [1.0, 2.0, 3.0] } output { [43.0, 28.0, 18.0] }
entry t15 (xs: []f64) (ybar: []f64) = vjp (scan (*) 1) xs ybar

-- T16: a tuple operator whose Jacobian is not symmetric.
-- ==
-- entry: t16
-- input { [1.0, 3.0, 5.0] [2.0, 4.0, 6.0] 1.0 1.0 }
-- output { [1.0, 10.0, 100.0] [2.0, 8.0, 48.0] [29.0, 14.0, 8.0] [70.0, 31.0, 18.0] }
-- input { [1.0, 3.0, 5.0] [2.0, 4.0, 6.0] 1.0 0.0 }
-- output { [1.0, 10.0, 100.0] [2.0, 8.0, 48.0] [29.0, 14.0, 8.0] [41.0, 17.0, 10.0] }
entry t16 (as: []f64) (bs: []f64) (abar: f64) (bbar: f64) =
  let op (a1, b1) (a2, b2) = (b1 * a2 + b2 * a1, b1 * b2)
  let f xs = scan op (0, 1) xs
  let n = length as
  let (ys, xbar) = vjp2 f (zip as bs) (replicate n (abar, bbar))
  let (y1, y2) = unzip ys
  let (g1, g2) = unzip xbar
  in (y1, y2, g1, g2)

-- T17: a tuple of +, * and max.
-- ==
-- entry: t17
-- input { [1.0, 2.0, 3.0] [2.0, 3.0, 4.0] [5.0, 1.0, 7.0] }
-- output { [3.0, 2.0, 1.0] [16.0, 10.0, 6.0] [2.0, 0.0, 1.0] }
entry t17 [n] (as: [n]f64) (bs: [n]f64) (cs: [n]f64) =
  let op (a1, b1, c1) (a2, b2, c2) = (a1 + a2, b1 * b2, f64.max c1 c2)
  let xbar = vjp (scan op (0, 1, -f64.inf)) (zip3 as bs cs) (replicate n (1, 1, 1))
  in unzip3 xbar

-- T19: linear-function composition.
-- ==
-- entry: t19
-- input { [1.0, 3.0, 5.0] [2.0, 4.0, 6.0] }
-- output { [1.0, 7.0, 47.0] [2.0, 8.0, 48.0] [29.0, 7.0, 1.0] [29.0, 21.0, 15.0] }
entry t19 [n] (ds: [n]f64) (cs: [n]f64) =
  let op (d1, c1) (d2, c2) = (d2 + c2 * d1, c2 * c1)
  let (ys, xbar) = vjp2 (scan op (0, 1)) (zip ds cs) (replicate n (1, 1))
  let (y1, y2) = unzip ys
  let (g1, g2) = unzip xbar
  in (y1, y2, g1, g2)

-- T20: a vectorised scan operator.
-- ==
-- entry: t20
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] [[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]] }
-- output { [[6.0, 60.0], [5.0, 50.0], [3.0, 30.0]] }
entry t20 [n][k] (xss: [n][k]f64) (ybar: [n][k]f64) = vjp (scan (map2 (+)) (replicate k 0)) xss ybar
