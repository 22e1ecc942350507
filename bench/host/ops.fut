-- Operations of the host-backend benchmark (bench/host/run.py), each an
-- entry point; the script supplies the datasets with `thorn bench --dataset`.

-- | Sum of a vector.
entry sum (xs: []f64): f64 = f64.sum xs

-- | Sum of squares: the map is fused into the reduction (one pass).
entry sumsq (xs: []f64): f64 = f64.sum (map (\x -> x * x) xs)

-- | Inclusive prefix sum.
entry prefix (xs: []f64): []f64 = scan (+) 0 xs

-- | Weighted histograms (np.bincount with weights).
entry hist256 (is: []i64) (xs: []f64): []f64 = hist (+) 0 256 is xs
entry hist65536 (is: []i64) (xs: []f64): []f64 = hist (+) 0 65536 is xs

-- | Row sums and row prefix sums of a matrix.
entry rowsums [n][m] (xss: [n][m]f64): [n]f64 = map f64.sum xss
entry rowscans [n][m] (xss: [n][m]f64): [n][m]f64 = map (scan (+) 0) xss

-- | One SOAC call on a one-element array, many times: the per-call overhead.
entry tiny (xs: [1]f64): f64 =
  loop acc = 0 for i < 1000 do acc + f64.sum (map (+ f64.i64 i) xs)
