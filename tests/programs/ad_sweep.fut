-- Automatic differentiation by the array-level rules (interp/eval/ad_sweep.hpp):
-- on the host backend jvp/vjp of these functions run as flattened plans
-- (`--log plan` shows no "runs on the reference tape" line for them), and
-- with --validate every result is compared with the reference tape. On the
-- reference backend the same expected values check the tape.

-- The issue's example: a map-reduce, d/dx (x^2 sin x).
-- ==
-- entry: grad_sin
-- input { 5i64 } output { [0.0, 2.2232442754839328, 1.9726023611141572, -8.063212421044806, -16.512717896281217] }
def f_sin (xs: []f64) = f64.sum (map (\x -> x * x * f64.sin x) xs)
entry grad_sin (n: i64) = vjp f_sin (map f64.i64 (iota n)) 1.0

-- ==
-- entry: tan_sin
-- input { 5i64 } output { -20.38008368072793 }
entry tan_sin (n: i64) = jvp f_sin (map f64.i64 (iota n)) (replicate n 1.0)

-- A lambda with a branch, vjp and jvp.
-- ==
-- entry: branch
-- input { [-2.0, 3.0, 0.5] } output { [-1.0, 6.0, 1.0] [-1.0, 6.0, 1.0] }
entry branch (xs: []f64) =
  let f = map (\x -> if x > 0 then x * x else -x)
  in (vjp f xs (map (const 1) xs), jvp f xs (map (const 1) xs))

-- Scalar code around the reductions; indexing.
-- ==
-- entry: scalars
-- input { [1.0, 2.0] } output { 11.718281828459045 [8.718281828459045, 6.0] 14.718281828459045 }
entry scalars (xs: []f64) =
  let f (xs: []f64) = let s = f64.sum xs in s * s + f64.exp xs[0]
  let (y, g) = vjp2 f xs 1
  in (y, g, jvp f xs (map (const 1) xs))

-- reduce (*) with zero counting, max, min.
-- ==
-- entry: prod
-- input { [2.0, 3.0, 4.0] } output { [12.0, 8.0, 6.0] 26.0 }
-- input { [2.0, 0.0, 4.0] } output { [0.0, 8.0, 0.0] 8.0 }
-- input { [0.0, 3.0, 0.0] } output { [0.0, 0.0, 0.0] 0.0 }
entry prod (xs: []f64) = (vjp f64.product xs 1, jvp f64.product xs (map (const 1) xs))

-- ==
-- entry: extrema
-- input { [1.0, 5.0, 3.0, 5.0] [10.0, 20.0, 30.0, 40.0] }
-- output { [0.0, 1.0, 0.0, 0.0] [1.0, 0.0, 0.0, 0.0] 20.0 10.0 }
entry extrema (xs: []f64) (dx: []f64) =
  (vjp f64.maximum xs 1, vjp f64.minimum xs 1, jvp f64.maximum xs dx, jvp f64.minimum xs dx)

-- scan (+) (T14) and reduce_by_index (+) (T9).
-- ==
-- entry: scan_add
-- input { [1.0, 2.0, 3.0] [1.0, 2.0, 3.0] } output { [6.0, 5.0, 3.0] [1.0, 3.0, 6.0] }
entry scan_add (xs: []f64) (ybar: []f64) = (vjp (scan (+) 0) xs ybar, jvp (scan (+) 0) xs ybar)

-- ==
-- entry: hist_add
-- input { [10.0, 20.0, 30.0] [0i64, 2i64, 2i64, -1i64, 3i64] [1.0, 2.0, 3.0, 4.0, 5.0] [1.0, 10.0, 100.0] }
-- output { [11.0, 20.0, 35.0] [1.0, 10.0, 100.0] [1.0, 100.0, 100.0, 0.0, 0.0] [2.0, 10.0, 102.0] }
entry hist_add (dst: []f64) (is: []i64) (vs: []f64) (ybar: []f64) =
  let f (d, v) = reduce_by_index (copy d) (+) 0 is v
  let (ys, (dbar, vbar)) = vjp2 f (dst, vs) ybar
  in (ys, dbar, vbar, jvp f (dst, vs) (ybar, map (const 1) vs))

-- A mapped function with two array inputs and a captured scalar that
-- carries a derivative (its adjoint is summed over the elements).
-- ==
-- entry: captured
-- input { 2.5 [1.0, 2.0, 3.0] [1.0, 1.0, 1.0] }
-- output { 14.0 [5.0, 10.0, 15.0] [0.5, 0.5, 0.5] 15.5 }
entry captured (w: f64) (xs: []f64) (cs: []f64) =
  let f (w, xs, cs) = f64.sum (map2 (\x c -> w * x * x + c * 0.5) xs cs)
  let (wbar, xbar, cbar) = vjp f (w, xs, cs) 1
  in (wbar, xbar, cbar, jvp f (w, xs, cs) (1, map (const 0) xs, map (const 1) cs))

-- A least-squares gradient: the loss of a line through points.
-- ==
-- entry: least_squares
-- input { [1.0, 2.0, 3.0, 4.0] [2.0, 3.0, 5.0, 4.0] 0.5 1.5 } output { 6.5 6.0 22.0 }
entry least_squares (xs: []f64) (ys: []f64) (a: f64) (b: f64) =
  let loss (a, b) = f64.sum (map2 (\x y -> let r = a + b * x - y in r * r) xs ys)
  let (l, (da, db)) = vjp2 loss (a, b) 1
  in (l, da, db)

-- T7: the generic reduce rule (two exclusive scans), vjp and jvp.
-- ==
-- entry: generic_reduce
-- input { [1.0, 2.0, 3.0] } output { 23.0 [12.0, 8.0, 6.0] 26.0 }
entry generic_reduce (xs: []f64) =
  let f = reduce (\a b -> a * b + a + b) 0
  let (y, g) = vjp2 f xs 1
  in (y, g, jvp f xs (map (const 1) xs))

-- Gathers from a captured array inside a mapped function: each read's
-- adjoint is added at its index (a histogram), the tangent is the
-- tangent array read at the same index.
-- ==
-- entry: gather
-- input { [1.0, 2.0, 3.0] [2i64, 0i64, 2i64, 1i64] } output { [2.0, 4.0, 12.0] 18.0 }
entry gather (cs: []f64) (is: []i64) =
  let f cs = f64.sum (map (\i -> cs[i] * cs[i]) is)
  in (vjp f cs 1, jvp f cs (map (const 1) cs))

-- A k-means-like cost: points against their assigned centres.
-- ==
-- entry: kmeans_like
-- input { [1.0, 5.0] [0.0, 3.0, 4.0, 8.0] [0i64, 0i64, 1i64, 1i64] } output { [-2.0, -4.0] -6.0 }
entry kmeans_like (cs: []f64) (xs: []f64) (as: []i64) =
  let cost cs = f64.sum (map2 (\x a -> let d = x - cs[a] in d * d) xs as)
  in (vjp cost cs 1, jvp cost cs (map (const 1) cs))
