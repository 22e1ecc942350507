-- A histogram whose kernels tests/gpu/emulated_faults.sh fails on the
-- emulated GPU (a device fault in the update or the combine kernel, out of
-- memory, a failed compile): thorn must finish on the host with the right
-- result. Out-of-range bins (1000..1002) are skipped.
-- ==
-- input { 100000i64 } output { 4985037973i64 4949703i64 }

entry main (n: i64) =
  let h = hist (+) 0i64 1000 (map (\i -> (i * 7919) % 1003) (iota n)) (iota n)
  in (i64.sum h, h[17])
