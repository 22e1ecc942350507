-- Arrays made on the GPU stay there between plans: the reductions read the
-- scatter's output on the device (tests/gpu/emulated_thorn.sh checks
-- that nothing but the scalar results is downloaded).
-- ==
-- input { 1000i64 } output { 1498500i64 2998i64 }
-- input { 100000i64 } output { 14999850000i64 299998i64 }

def main (n: i64) : (i64, i64) =
  let ys = scatter (replicate n 0i64) (iota n) (map (\i -> i * 3) (iota n))
  let a = reduce (+) 0 ys
  let b = reduce i64.max 0 (map (+ 1) ys)
  in (a, b)
