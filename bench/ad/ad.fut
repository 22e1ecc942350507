-- AD benchmarks (bench/ad/run.py): each row is a forward entry `<row>_fwd`,
-- a reverse-mode entry `<row>_vjp` and, where there is one, a forward-mode
-- entry `<row>_jvp`, all taking the element count n (and a bin count). The
-- input is built inside from iota, the same way in all three, and every
-- derivative is summed so that all of it is computed (a delayed array that
-- is only indexed would be computed for one element).

def inputs (n: i64) : [n]f64 = map (\i -> f64.i64 (i % 1000) / 1000) (iota n)

-- map-reduce: the issue's example.
def mr (xs: []f64) = f64.sum (map (\x -> x * x * f64.sin x) xs)
entry mapred_fwd (n: i64) = mr (inputs n)
entry mapred_vjp (n: i64) = f64.sum (vjp mr (inputs n) 1)
entry mapred_jvp (n: i64) = jvp mr (inputs n) (replicate n 1)

-- scan (+) after a map.
def sc (xs: []f64) = scan (+) 0 (map f64.sin xs)
entry scan_add_fwd (n: i64) = f64.sum (sc (inputs n))
entry scan_add_vjp (n: i64) = f64.sum (vjp sc (inputs n) (replicate n 1))
entry scan_add_jvp (n: i64) = f64.sum (jvp sc (inputs n) (replicate n 1))

-- scan (*): the generic rule (a linear recurrence solved by a scan of
-- affine maps); factors near 1 so that the products stay finite.
def scmul (xs: []f64) = scan (*) 1 (map (\x -> 1 + (x - 0.5) / 1000) xs)
entry scan_mul_fwd (n: i64) = f64.sum (scmul (inputs n))
entry scan_mul_vjp (n: i64) = f64.sum (vjp scmul (inputs n) (replicate n 1))
entry scan_mul_jvp (n: i64) = f64.sum (jvp scmul (inputs n) (replicate n 1))

-- scan with a 2x2 matrix-product operator: the generic rule for tuple
-- operators (4x4 transposed Jacobians, a scan of affine maps of 20 components).
def mm2 (a0: f64, a1: f64, a2: f64, a3: f64) (b0: f64, b1: f64, b2: f64, b3: f64) =
  (a0 * b0 + a1 * b2, a0 * b1 + a1 * b3, a2 * b0 + a3 * b2, a2 * b1 + a3 * b3)
def scm (xs: []f64) =
  let ms = scan mm2 (1, 0, 0, 1) (map (\x -> (1, x, 0, 1)) xs)
  in f64.sum (map (\(a, b, c, d) -> a + b + c + d) ms)
entry scan_mm2_fwd (n: i64) = scm (inputs n)
entry scan_mm2_vjp (n: i64) = f64.sum (vjp scm (inputs n) 1)
entry scan_mm2_jvp (n: i64) = jvp scm (inputs n) (replicate n 1)

-- reduce_by_index with w bins.
def bins (n: i64) (w: i64) : [n]i64 = map (\i -> (i * 7919) % w) (iota n)
def h_add (w: i64) (is: []i64) (vs: []f64) = f64.sum (reduce_by_index (replicate w 0) (+) 0 is vs)
entry hist_add_fwd (n: i64) (w: i64) = h_add w (bins n w) (inputs n)
entry hist_add_vjp (n: i64) (w: i64) = f64.sum (vjp (h_add w (bins n w)) (inputs n) 1)
entry hist_add_jvp (n: i64) (w: i64) = jvp (h_add w (bins n w)) (inputs n) (replicate n 1)

def h_mul (w: i64) (is: []i64) (vs: []f64) = f64.sum (reduce_by_index (replicate w 1) (*) 1 is (map (\v -> 1 + v / 1000) vs))
entry hist_mul_fwd (n: i64) (w: i64) = h_mul w (bins n w) (inputs n)
entry hist_mul_vjp (n: i64) (w: i64) = f64.sum (vjp (h_mul w (bins n w)) (inputs n) 1)
entry hist_mul_jvp (n: i64) (w: i64) = jvp (h_mul w (bins n w)) (inputs n) (replicate n 1)

def h_max (w: i64) (is: []i64) (vs: []f64) = f64.sum (reduce_by_index (replicate w 0) f64.max f64.lowest is vs)
entry hist_max_fwd (n: i64) (w: i64) = h_max w (bins n w) (inputs n)
entry hist_max_vjp (n: i64) (w: i64) = f64.sum (vjp (h_max w (bins n w)) (inputs n) 1)
entry hist_max_jvp (n: i64) (w: i64) = jvp (h_max w (bins n w)) (inputs n) (replicate n 1)

-- The generic sort-based rule: (1 + e a)(1 + e b) - 1 scaled by 1/e, an
-- associative and commutative operator without a special rule.
def gop (a: f64) (b: f64) = a + b + 1e-6 * a * b
def h_gen (w: i64) (is: []i64) (vs: []f64) = f64.sum (reduce_by_index (replicate w 0) gop 0 is vs)
entry hist_gen_fwd (n: i64) (w: i64) = h_gen w (bins n w) (inputs n)
entry hist_gen_vjp (n: i64) (w: i64) = f64.sum (vjp (h_gen w (bins n w)) (inputs n) 1)
entry hist_gen_jvp (n: i64) (w: i64) = jvp (h_gen w (bins n w)) (inputs n) (replicate n 1)

-- A least-squares gradient: the loss of a line through n points.
def ls_loss (xs: []f64) (ys: []f64) (a: f64, b: f64) =
  f64.sum (map2 (\x y -> let r = a + b * x - y in r * r) xs ys)
def ls_data (n: i64) = let xs = inputs n in (xs, map (\x -> 3 * x + 0.5 + f64.sin (x * 100) / 10) xs)
entry lsq_fwd (n: i64) = let (xs, ys) = ls_data n in ls_loss xs ys (0.25, 2.0)
entry lsq_vjp (n: i64) = let (xs, ys) = ls_data n in vjp (ls_loss xs ys) (0.25, 2.0) 1
entry lsq_jvp (n: i64) = let (xs, ys) = ls_data n in jvp (ls_loss xs ys) (0.25, 2.0) (1, 0)

-- A least-squares gradient over a matrix (gradient descent's step): the
-- mapped function takes a row of n x 4 inputs and sums a dot product with
-- the captured weights, so the vjp is the map rule for element functions
-- over arrays (ad_rev.cpp) with the weights' adjoint a column sum; the jvp
-- (a directional derivative) is its forward counterpart (ad_fwd.cpp).
def gd_loss (w: [4]f64) (xs: [][4]f64) (ys: []f64) =
  f64.sum (map2 (\x y -> let p = f64.sum (map2 (*) w x) in (p - y) * (p - y)) xs ys)
def gd_data (n: i64) =
  let xs = tabulate_2d n 4 (\i j -> f64.i64 ((i * 7 + j * 3) % 11) / 11)
  in (xs, map (\x -> x[0] * 2 + x[1] - x[3]) xs)
entry gd_fwd (n: i64) = let (xs, ys) = gd_data n in gd_loss [0.5, 0.25, 1, 2] xs ys
entry gd_vjp (n: i64) = let (xs, ys) = gd_data n in f64.sum (vjp (\w -> gd_loss w xs ys) [0.5, 0.25, 1, 2] 1)
entry gd_jvp (n: i64) = let (xs, ys) = gd_data n in jvp (\w -> gd_loss w xs ys) [0.5, 0.25, 1, 2] [0.5, -1, 2, 0.25]

-- A matrix-vector product, [n/64][64] (n elements), differentiated in the
-- matrix: a map of a partial application of a named function over rows.
def mv_dot (xs: []f64) (ys: []f64) = f64.sum (map2 (*) xs ys)
def mv_data (n: i64) =
  let m = tabulate_2d (n / 64) 64 (\i j -> f64.i64 ((i * 7 + j * 3) % 11) / 11)
  in (m, tabulate 64 (\j -> f64.i64 (j % 5) - 2))
def matvec (m: [][]f64) (v: []f64) = map (mv_dot v) m
entry mv_fwd (n: i64) = let (m, v) = mv_data n in f64.sum (matvec m v)
entry mv_vjp (n: i64) = let (m, v) = mv_data n in f64.sum (map f64.sum (vjp (\m -> matvec m v) m (replicate (n / 64) 1)))
entry mv_jvp (n: i64) = let (m, v) = mv_data n in f64.sum (jvp (\m -> matvec m v) m m)
