-- Named parameters of the result, and sizes the result also produces,
-- are fine.
-- ==
-- input { 2i64 }
-- output { 1i32 1i64 }

def f = \(n: i64) (xs: [n]i32) -> xs[0]
def h (k: i64) = let m = k + 1 in (iota m, \(xs: [m]i64) -> xs[0])

def main (n: i64) =
  let (a, g) = h n
  in (f n (replicate n 1i32), g (map (+ 1) a))
