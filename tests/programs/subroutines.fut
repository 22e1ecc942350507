-- Calls of user functions lowered once as kernel-IR subroutines
-- (interp/flatten/lower_subroutine.cpp) instead of inlined at each call:
-- several call sites, nested calls, calls in loops and in branches, tuple
-- and record results, known and unknown arguments, a read of a top-level
-- array inside the callee, and a failing bounds check inside one.

def table: [5]f64 = [1.0, 2.0, 3.0, 5.0, 8.0]

def poly (x: f64) (y: f64): (f64, f64) =
  let a = x * y + f64.sin x
  let b = x - y / 3
  let c = f64.sqrt (f64.abs (a * b) + 1) * f64.cos (a - b)
  let d = (a + b + c) / (1 + f64.abs c)
  let e = f64.exp (-(d * d)) + f64.log1p (f64.abs a)
  let g = f64.atan2 (c + 0.5) (d - 0.25) * f64.cosh (e / 8)
  let h = (g * g - a * e) / (2 + f64.abs (b * c))
  in (c + e * 0.5 + h, d - e * g)

def step (r: {x: f64, n: i64}): {x: f64, n: i64} =
  let (p, q) = poly r.x (f64.i64 r.n)
  let (p2, q2) = poly q p
  in {x = (p2 + q2) / 4 + f64.tanh p + table[r.n % 5], n = (r.n * 7 + 3) % 11}

def walk (x: f64) (k: i64): f64 =
  let r = loop r = {x, n = k} for i < k do
    if r.n % 2 == 0 then step r else r with x = (poly r.x (f64.i64 i)).0 / 3
  in r.x + f64.i64 r.n

def lookup (i: i64) (x: f64): f64 =
  let (a, b) = poly x (f64.i64 i)
  let (c, d) = poly b a
  in table[i] * (a + b + c + d) + table[(i + 1) % 5] - f64.sqrt (f64.abs (a * d)) / (1 + f64.abs c)

-- ==
-- entry: main
-- input { [1.0, 2.5, -3.0, 0.125, 7.5] [3i64, 0i64, 7i64, 2i64, 4i64] }
-- output { [-17.059209592821595f64, -0.9408154358832848f64, 25.901223999214967f64, 9.583246555005715f64, 234.5933318751992f64] }
entry main (xs: []f64) (ks: []i64): []f64 =
  map2 (\x k ->
          let w = walk x k
          let (a, b) = poly w x
          let (c, _) = poly 2.0 1.5
          let l = lookup (k % 5) a
          in if a > 0 then walk b 3 + c + l else (poly b w).1 - l)
       xs ks

-- ==
-- entry: bad
-- input { [1.0, 2.0] [1i64, 5i64] } error: out of bounds
entry bad (xs: []f64) (ks: []i64): []f64 = map2 (\x k -> lookup k x) xs ks
