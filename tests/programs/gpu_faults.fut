-- GPU plans whose results stay on the device, read by later plans, and one
-- kernel launched in a loop: tests/gpu/emulated_faults.sh injects device
-- faults and compile failures into this one (values made before a fault
-- must still be readable; a failed compile must not be retried).
-- ==
-- input { 1000i64 } output { 1503500i64 2997i64 7502500i64 }
-- input { 100000i64 } output { 15000350000i64 299997i64 75000250000i64 }

def main (n: i64) : (i64, i64, i64) =
  let ys = scatter (replicate n 0i64) (iota n) (map (\i -> i * 3) (iota n))
  let zs = loop zs = ys for _i < 5 do map (+ 1) zs
  let s = loop s = 0 for i < 5 do s + reduce (+) 0 (map (+ i) ys)
  in (reduce (+) 0 zs, reduce i64.max 0 ys, s)
