-- Named-parameter functions as arguments where the sizes are produced by
-- the result (and so stay accepted): the array comes with the function
-- that takes it, or the sizes only appear in results.
-- ==
-- input { 2i64 3i64 }
-- output { true 6i64 3i64 }

def f (n: i64) (m: i64) : ([n][m](), [n][m]bool -> bool) =
  (replicate n (replicate m ()), \b -> b[0, 0])

def g = uncurry f

def main x y =
  let (a, h) = g (x, y)
  let total = length (x * y |> flip replicate 0i32)
  let r = (flip replicate) 1i32 y
  in (h (map (map (const true)) a), total, length r)
