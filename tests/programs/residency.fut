-- Residency: an array with a device copy that the host then updates (an
-- in-place update by the evaluator, a reduce_by_index run on the host) must
-- be read afresh by the next GPU plan, never through the stale device copy.
-- Meant for `thorn test --backend gpu` with THORN_GPU_THRESHOLD=0 (ctest
-- emulated/programs-gpu); on the other backends these are plain programs.
-- ==
-- entry: main
-- input { 1000i64 } output { 1000i64 1999i64 }
-- input { 100000i64 } output { 100000i64 100999i64 }

-- ==
-- entry: hist_on_device
-- input { 1000i64 } output { 3997i64 }
-- input { 100000i64 } output { 399995i64 }

-- ==
-- entry: update_in_loop
-- input { 1000i64 } output { 5010000i64 }
-- input { 100000i64 } output { 49999515000i64 }

-- ==
-- entry: update_then_map
-- input { 1000i64 } output { 500500i64 999000i64 }
-- input { 100000i64 } output { 5000050000i64 9999900000i64 }

-- scatter (GPU) leaves ys on the device; the in-place update writes the host copy.
def main (n: i64) : (i64, i64) =
  let ys = scatter (replicate n 0i64) (iota n) (replicate n 1i64)
  let a = reduce (+) 0 ys
  let ys[0] = 1000
  let b = reduce (+) 0 ys
  in (a, b)

-- The scatter runs on the GPU; reduce_by_index (no GPU skeleton) on the
-- host, updating the device-resident array in place; the reduction runs on
-- the GPU again.
-- (Nested, so that the destination is unique and updated in place.)
entry hist_on_device (n: i64) : i64 =
  let ys = reduce_by_index (scatter (replicate n 0i64) (iota n) (map (\i -> i % 7) (iota n)))
                           (+) 0 (map (\i -> i % 10) (iota n)) (replicate n 1)
  in reduce (+) 0 ys

-- Every iteration updates one element on the host, then reduces on the GPU.
entry update_in_loop (n: i64) : i64 =
  let (_, acc) =
    loop (ys, acc) = (scatter (replicate n 0i64) (iota n) (map (\i -> i * 2) (iota n)), 0i64) for k < 5 do
      let ys[k] = ys[k] + 1000
      in (ys, acc + reduce (+) 0 ys)
  in acc

-- A GPU map reads the array after the host updated it.
entry update_then_map (n: i64) : (i64, i64) =
  let ys = scatter (replicate n 0i64) (iota n) (map (+ 1) (iota n))
  let s = reduce (+) 0 ys
  let ys[n - 1] = 0
  in (s, reduce (+) 0 (map (* 2) ys))
