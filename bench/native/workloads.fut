-- The native tier's benchmark (bench/native/run.py): compute-bound
-- workloads of issue 12, each an entry point; the script supplies the
-- datasets with `thorn bench --dataset` and runs the same computations with
-- NumPy, Numba and JAX.

-- | Dense matrix product, as the issue writes it.
entry matmul [n][m][p] (a: [n][m]f64) (b: [m][p]f64): [n][p]f64 =
  map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose b)) a

-- | One k-means step: each point's nearest centre (a reduction over the
-- centres, ties to the lower index), then the new centres from per-cluster
-- sums and counts (reduce_by_index).
entry kmeans [n][d][k] (points: [n][d]f64) (centres: [k][d]f64): [k][d]f64 =
  let dist (p: [d]f64) (c: [d]f64) = f64.sum (map2 (\x y -> (x - y) * (x - y)) p c)
  let closer (d1: f64, i1: i64) (d2: f64, i2: i64) =
    if d1 < d2 || (d1 == d2 && i1 < i2) then (d1, i1) else (d2, i2)
  let nearest (p: [d]f64): i64 =
    (reduce closer (f64.inf, 0) (zip (map (dist p) centres) (iota k))).1
  let assign = map nearest points
  let counts = reduce_by_index (replicate k 0i64) (+) 0 assign (replicate n 1i64)
  let bins = flatten (map (\a -> map (\j -> a * d + j) (iota d)) assign)
  let sums = reduce_by_index (replicate (k * d) 0f64) (+) 0 bins (flatten points)
  in map2 (\i c -> map (\j -> sums[i * d + j] / f64.i64 (i64.max c 1)) (iota d)) (iota k) counts

-- | Escape counts of the Mandelbrot set on an n x n grid.
entry mandelbrot (n: i64) (iters: i32): [n][n]i32 =
  map (\i ->
         map (\j ->
                let cr = 3.0 * f64.i64 j / f64.i64 n - 2.0
                let ci = 3.0 * f64.i64 i / f64.i64 n - 1.5
                let (_, _, it) =
                  loop (zr, zi, it) = (0.0, 0.0, 0i32) while it < iters && zr * zr + zi * zi < 4.0 do
                    (zr * zr - zi * zi + cr, 2.0 * zr * zi + ci, it + 1)
                in it)
             (iota n))
      (iota n)

-- | One n-body step: accelerations from all pairs (softened), new velocities.
entry nbody [n] (xs: [n]f64) (ys: [n]f64) (zs: [n]f64) (ms: [n]f64)
                (vxs: [n]f64) (vys: [n]f64) (vzs: [n]f64): ([n]f64, [n]f64, [n]f64) =
  let accel (xi: f64) (yi: f64) (zi: f64) =
    reduce (\(a, b, c) (d, e, f) -> (a + d, b + e, c + f)) (0, 0, 0)
           (map4 (\xj yj zj mj ->
                    let dx = xj - xi
                    let dy = yj - yi
                    let dz = zj - zi
                    let r2 = dx * dx + dy * dy + dz * dz + 1e-9
                    let s = mj / (r2 * f64.sqrt r2)
                    in (dx * s, dy * s, dz * s))
                 xs ys zs ms)
  let (axs, ays, azs) = unzip3 (map3 accel xs ys zs)
  let dt = 0.01
  in (map2 (\v a -> v + dt * a) vxs axs, map2 (\v a -> v + dt * a) vys ays, map2 (\v a -> v + dt * a) vzs azs)

-- | Sum of squares: the map fused into the reduction.
entry sumsq (xs: []f64): f64 = f64.sum (map (\x -> x * x) xs)

-- | Sums of short rows.
entry rowsums [n][m] (xss: [n][m]f64): [n]f64 = map f64.sum xss
