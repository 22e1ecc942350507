-- Automatic differentiation through every construct: the Jacobian from jvp
-- (one column per unit tangent) must equal the one from vjp (one row per
-- unit adjoint), and both must agree with central finite differences.

def unit (n: i64) (i: i64) : [n]f64 = tabulate n (\j -> f64.bool (i == j))

-- (Square Jacobians: every function tested maps [n]f64 to [n]f64.)
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
  in and (map2 (\a b -> and (map2 (close 1e-12) a b)) jf jr)
     && and (map2 (\a b -> and (map2 (close 1e-4) a b)) jf jd)

-- Elementwise maths.
def g_math [n] (xs: [n]f64) : [n]f64 =
  map (\x -> let y = x + 1.5
             in f64.sin y * f64.exp (0.3 * y) + f64.sqrt (y * y + 1) + f64.log y + y ** 1.5
                + f64.atan2 y 2 + f64.tanh y + f64.lgamma y + f64.cbrt y + f64.erf (y / 4)) xs

-- A loop whose state is the array, with rotations and products between elements.
def g_loop [n] (xs: [n]f64) = loop acc = xs for i < 3 do map2 (\a b -> a * b + f64.i64 i) acc (rotate 1 acc)

-- Branches, matches and min/max.
type sign = #neg | #pos
def g_branch [n] (xs: [n]f64) : [n]f64 =
  map (\x -> let s = if x > 0.5 then #pos else #neg : sign
             in match s
                case #pos -> x * x * f64.max x 0.7
                case #neg -> 2 - f64.min x 0.3 * x) xs

-- In-place updates and a while loop.
def g_update [n] (xs: [n]f64) : [n]f64 =
  let ys = copy xs
  let ys[0] = xs[1] * xs[n - 1]
  let (ys, _) = loop (ys, k) = (ys, 0) while k < n - 1 do (ys with [k + 1] = ys[k] * 0.5 + ys[k + 1], k + 1)
  in ys

-- Scatter, a histogram and a scan.
def g_soacs [n] (xs: [n]f64) : [n]f64 =
  let s = scatter (replicate n 1) (map (\i -> n - 1 - i) (iota n)) (map (* 3) xs)
  let h = reduce_by_index (replicate n 0.5) (*) 1 (map (% n) (map (* 2) (iota n))) xs
  let c = scan (+) 0 (map2 (*) s h)
  in map3 (\a b c -> a + b * c) s h c

-- Records, tuples and f32 arithmetic inside.
def g_records [n] (xs: [n]f64) : [n]f64 =
  map (\x -> let r = {a = x, b = f32.f64 x}
             let t = (r.a * 2, f64.f32 (r.b * r.b))
             in t.0 + t.1) xs

-- ==
-- entry: check
-- random input { [6]f64 } output { true }
-- random input { [9]f64 } output { true }
entry check (x: []f64) =
  agree g_math x && agree g_loop x && agree g_branch x && agree g_update x && agree g_soacs x

-- f32 inside an f64 function has f32 precision: compare jvp with vjp only.
-- ==
-- entry: check_f32
-- random input { [5]f64 } output { true }
entry check_f32 (x: []f64) =
  let jf = jac_fwd g_records x
  let jr = jac_rev g_records x
  in and (map2 (\a b -> and (map2 (close 1e-6) a b)) jf jr)

-- Nested differentiation: second derivatives of x³ (6x) by every
-- combination of modes, and a Hessian-vector product.
-- ==
-- entry: second
-- input { 2.0 } output { 12.0 12.0 12.0 12.0 }
entry second (x: f64) =
  let cube y = y * y * y
  in ( jvp (\x -> jvp cube x 1) x 1
     , jvp (\x -> vjp cube x 1) x 1
     , vjp (\x -> jvp cube x 1) x 1
     , vjp (\x -> vjp cube x 1) x 1 )

-- ==
-- entry: hvp
-- input { [1.0, 2.0, 3.0] [1.0, 0.0, 0.0] } output { [2.0, 3.0, 2.0] }
-- input { [1.0, 2.0, 3.0] [0.0, 1.0, 1.0] } output { [5.0, 1.0, 1.0] }
entry hvp (x: []f64) (v: []f64) =
  -- f = x0*x1*x2 + x0² : H = [[2, x2, x1], [x2, 0, x0], [x1, x0, 0]]
  let f (x: []f64) = x[0] * x[1] * x[2] + x[0] * x[0]
  in jvp (\x -> vjp f x 1) x v

-- Integers carry derivatives too, and wrap like the values do.
-- ==
-- entry: ints
-- input { 3i32 4i32 } output { 108i32 -294967296i32 }
entry ints (x: i32) (n: i32) =
  ( jvp (\x -> loop acc = 1 for _i < n do acc * x) x 1 |> (* 1)
  , vjp (\x -> x * 2000000000) x 2 |> (+ 0) )
