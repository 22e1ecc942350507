-- Random-input consistency of the array-level AD (interp/eval/ad_sweep.hpp)
-- for every rule it has: the Jacobian from jvp (one column per unit
-- tangent) must equal the one from vjp (one row per unit adjoint), and
-- both must agree with central finite differences. On the host backend each
-- jvp/vjp here runs on the plans (none falls back to the tape: the
-- functions use only constructs with rules).

def unit (n: i64) (i: i64) : [n]f64 = tabulate n (\j -> f64.bool (i == j))

def jac_fwd [n] (f: [n]f64 -> [n]f64) (x: [n]f64) : [n][n]f64 =
  transpose (map (\i -> jvp f x (unit n i)) (iota n))

def jac_rev [n] (f: [n]f64 -> [n]f64) (x: [n]f64) : [n][n]f64 =
  map (\i -> vjp f x (unit n i)) (iota n)

def jac_fd [n] (f: [n]f64 -> [n]f64) (x: [n]f64) : [n][n]f64 =
  let h = 1e-6
  let col i = map2 (\a b -> (a - b) / (2 * h)) (f (map2 (+) x (map (* h) (unit n i))))
                                                (f (map2 (-) x (map (* h) (unit n i))))
  in transpose (map col (iota n))

def close (tol: f64) (a: f64) (b: f64) = f64.abs (a - b) <= tol * (1 + f64.abs a + f64.abs b)

def agree [n] (f: [n]f64 -> [n]f64) (x: [n]f64) : bool =
  let jf = jac_fwd f x
  let jr = jac_rev f x
  let jd = jac_fd f x
  in and (map2 (\a b -> and (map2 (close 1e-10) a b)) jf jr)
     && and (map2 (\a b -> and (map2 (close 1e-4) a b)) jf jd)

-- Element functions: maths, branches, two arrays, captured reductions and gathers.
def g_map [n] (xs: [n]f64) : [n]f64 =
  map (\x -> let y = x + 1.5
             in f64.sin y * f64.exp (0.3 * y) + f64.sqrt (y * y + 1) + f64.log y + y ** 1.5 + f64.tanh y
                + (if y > 2 then y * y else 3 * y) + f64.max y 2 - f64.cos (y / 3)) xs

def g_reduce [n] (xs: [n]f64) : [n]f64 =
  let s = f64.sum xs
  let p = f64.product (map (+ 0.5) xs)
  let m = f64.maximum xs
  let q = f64.minimum xs
  let g = reduce (\a b -> a * b * 0.5 + a + b) 0 xs
  in map2 (\x i -> x * s + p / (x + 2) - m * x * x + q + g * i) xs (map f64.i64 (iota n))

def g_scan [n] (xs: [n]f64) : [n]f64 =
  let c = scan (+) 0 (map (\x -> x * x) xs)
  let c0 = c[n / 2]
  in map2 (\a x -> a * x + c0) c xs

def g_hist [n] (xs: [n]f64) : [n]f64 =
  let is = map (\i -> (i * 3) % n) (iota n)
  let a = reduce_by_index (map (* 2) xs) (+) 0 is (map (\x -> x * x) xs)
  let b = reduce_by_index (map (+ 1) xs) (*) 1 is (map (+ 0.25) xs)
  let c = reduce_by_index (copy xs) f64.max f64.lowest is (map (\x -> x * 3 - 1) xs)
  in map3 (\u v w -> u + v * w) a b c

def g_gather [n] (xs: [n]f64) : [n]f64 =
  let is = map (\i -> (i * 5 + 1) % n) (iota n)
  in map2 (\i x -> xs[i] * x + f64.sin xs[(i + 2) % n]) is xs

def g_loop [n] (xs: [n]f64) : [n]f64 =
  loop acc = xs for i < 3 do map2 (\a x -> a * 0.5 + x * a + f64.i64 i) acc xs

-- ==
-- entry: check
-- random input { [6]f64 } output { true }
-- random input { [9]f64 } output { true }
entry check (x0: []f64) =
  let x = map (\v -> v - f64.floor v) x0
  in agree g_map x && agree g_reduce x && agree g_scan x && agree g_hist x && agree g_loop x && agree g_gather x
