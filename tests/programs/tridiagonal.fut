-- A tridiagonal solver built from scans, the way ocean and finance codes
-- solve many small systems at once: map over rows, and inside each row a
-- scan of 2x2 matrix products (the pivots), a linear-recurrence scan
-- (forward elimination), a reversal and a second linear-recurrence scan
-- (back substitution). Inside a map every scan runs in the element's
-- sequential code; at the top level the host runs them in parallel.
--
-- Row i of a system: a[i]*x[i-1] + b[i]*x[i] + c[i]*x[i+1] = y[i]
-- (a[0] and c[n-1] are ignored).

-- Composition of x -> d + m*x recurrences, (m1, d1) then (m2, d2).
def linear (m1: f64, d1: f64) (m2: f64, d2: f64) : (f64, f64) =
  (m2 * m1, d2 + m2 * d1)

-- Product of 2x2 matrices, later one on the left, scaled so that entries
-- stay near 1: associative up to the scale, which the pivots divide out.
def matmul2 (a0: f64, a1: f64, a2: f64, a3: f64) (b0: f64, b1: f64, b2: f64, b3: f64) =
  let (c0, c1, c2, c3) = (b0 * a0 + b1 * a2, b0 * a1 + b1 * a3, b2 * a0 + b3 * a2, b2 * a1 + b3 * a3)
  let s = f64.max (f64.abs c0) (f64.abs c2)
  let s = if s == 0 then 1 else s
  in (c0 / s, c1 / s, c2 / s, c3 / s)

def solve [n] (a: [n]f64) (b: [n]f64) (c: [n]f64) (y: [n]f64) : [n]f64 =
  -- Pivots: piv[i] = b[i] - a[i]*c[i-1]/piv[i-1], as the ratio p/q of
  -- [p; q] = M[i] ... M[0] [1; 0] with M[i] = [[b[i], -a[i]*c[i-1]], [1, 0]].
  -- Each M[i] is scaled like matmul2's results, so that the identity is
  -- exactly neutral on them (a scan may or may not apply it first).
  let ms = map (\i -> let (m0, m1) = if i == 0 then (b[0], 0) else (b[i], -a[i] * c[i - 1])
                      let s = f64.max (f64.abs m0) 1
                      in (m0 / s, m1 / s, 1 / s, 0)) (iota n)
  let prods = scan matmul2 (1, 0, 0, 1) ms
  let piv = map (\(p0, _, p2, _) -> p0 / p2) prods
  -- Forward elimination: z[i] = y[i] - a[i]/piv[i-1] * z[i-1].
  let fwd = map (\i -> if i == 0 then (0, y[0]) else (-a[i] / piv[i - 1], y[i])) (iota n)
  let z = map (.1) (scan linear (1, 0) fwd)
  -- Back substitution: x[i] = z[i]/piv[i] - c[i]/piv[i] * x[i+1].
  let bwd = map (\k -> let i = n - 1 - k
                       in if k == 0 then (0, z[i] / piv[i])
                          else (-c[i] / piv[i], z[i] / piv[i])) (iota n)
  in reverse (map (.1) (scan linear (1, 0) bwd))

-- Many systems, one per row.
-- ==
-- entry: solve_rows
-- input { [[0.0, 1.0, 1.0, 1.0], [0.0, 2.0, 0.5, 1.0]]
--         [[4.0, 4.0, 4.0, 4.0], [5.0, 3.0, 6.0, 2.0]]
--         [[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 2.0, 0.0]]
--         [[5.0, 6.0, 6.0, 5.0], [1.0, 2.0, 3.0, 4.0]] }
-- output { [[1.0, 1.0, 1.0, 1.0], [0.056, 0.72, -0.272, 2.136]] }
entry solve_rows [m][n] (a: [m][n]f64) (b: [m][n]f64) (c: [m][n]f64) (y: [m][n]f64) : [m][n]f64 =
  map4 solve a b c y

-- The residual |Ax - y| of each row, for systems generated from the
-- row number: must be tiny whatever the backend.
-- ==
-- entry: residuals
-- input { 64i64 200i64 } output { true }
entry residuals (m: i64) (n: i64) : bool =
  let gen r i k = f64.i64 ((r * 31 + i * 17 + k * 7) % 23) / 23
  let sys = map (\r -> (map (\i -> gen r i 0) (iota n),
                        map (\i -> 4 + gen r i 1) (iota n),
                        map (\i -> gen r i 2) (iota n),
                        map (\i -> gen r i 3) (iota n))) (iota m)
  let xs = map (\(a, b, c, y) -> solve a b c y) sys
  let res = map2 (\(a, b, c, y) x ->
                    f64.maximum (map (\i -> let l = if i > 0 then a[i] * x[i - 1] else 0
                                            let r = if i < n - 1 then c[i] * x[i + 1] else 0
                                            in f64.abs (l + b[i] * x[i] + r - y[i])) (iota n)))
                 sys xs
  in f64.maximum res < 1e-9

-- One large system at the top level: the scans run in parallel on the
-- host, combining partial products in another order than the reference;
-- matmul2 is associative only up to scale, which the pivots divide out.
-- ==
-- entry: solve_one
-- input { 100000i64 } output { true }
entry solve_one (n: i64) : bool =
  let a = map (\i -> f64.i64 (i % 5) / 5) (iota n)
  let b = map (\i -> 3 + f64.i64 (i % 7) / 7) (iota n)
  let c = map (\i -> f64.i64 (i % 3) / 3) (iota n)
  let y = map (\i -> f64.i64 (i % 11)) (iota n)
  let x = solve a b c y
  let res = map (\i -> let l = if i > 0 then a[i] * x[i - 1] else 0
                       let r = if i < n - 1 then c[i] * x[i + 1] else 0
                       in f64.abs (l + b[i] * x[i] + r - y[i])) (iota n)
  in f64.maximum res < 1e-9
