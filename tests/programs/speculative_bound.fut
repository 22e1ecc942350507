-- Arrays an element builds over a length it computes itself (`iota k`, k
-- per element), with no bound known when the nest starts. An element of
-- some weight is stored in private memory under a bound the planner
-- guesses, instead of being computed again at every use; when a run
-- outgrows the guess (k up to 301 here, the first guess 16), the host
-- backend plans again with a larger bound. The results must not change.
-- ==
-- input { [1.0f32, 2.5f32, 40.0f32, 0.3f32, 100.0f32] }
-- output { [5.061463f32, 11.763061f32, 868.02625f32, 1.11f32, 4880.999f32]
--          [[1.0f32, 4.0f32], [1.0f32, 8.0f32], [1.0f32, 121.0f32], [1.0f32, 1.0f32], [1.0f32, 301.0f32]] }

def heavy (x: f32) (i: i64): f32 =
  let y = f32.i64 i
  let a = f32.sin (x + y) * f32.cos (x - y)
  let b = f32.sqrt (1 + f32.abs a) + f32.log (2 + f32.abs (f32.sin y))
  let c = f32.exp (-(f32.abs a)) * f32.tanh (b - 1)
  let d = f32.atan2 (a + 0.5) (b + 1) + f32.hypot a c
  let e = f32.cosh (c / 4) - f32.sinh (d / 8) + f32.log1p (f32.abs d)
  let z = a * b + c * d + e
  in (z - z) + y + 1

def row (x: f32) : (f32, [2]f32) =
  let k = i64.f32 (x * 3) + 1
  let ys = map (heavy x) (iota k)
  let s = f32.sum (map (\y -> y / 10) ys)
  let m = reduce f32.max (-f32.inf) ys
  in (s + m + f32.sum (map (\y -> f32.sqrt y) ys) / 100, [ys[0], ys[k - 1]])

entry main (xs: []f32) = unzip (map row xs)

-- The same with a scalar result: the map is a delayed producer, which runs
-- at once when it stores such arrays (so that a retry is still possible).
-- ==
-- entry: sums
-- input { [1.0f32, 2.5f32, 40.0f32, 0.3f32, 100.0f32] }
-- output { [5.061463f32, 11.763061f32, 868.02625f32, 1.11f32, 4880.999f32] }

entry sums (xs: []f32) = map (\x -> (row x).0) xs
