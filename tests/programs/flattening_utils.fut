-- The irregular-flattening utilities of notes-flattening (segmented
-- replicate and iota, flags from sizes) and the longest increasing streak,
-- written with the prelude's SOACs. Zero-length segments included.
-- ==
-- entry: replicated_iota
-- input { [2i64, 3i64, 1i64, 1i64] } output { [0i64, 0i64, 1i64, 1i64, 1i64, 2i64, 3i64] }
-- input { [0i64, 2i64] } output { [1i64, 1i64] }
-- input { [2i64, 0i64, 1i64] } output { [0i64, 0i64, 2i64] }
-- input { empty([0]i64) } output { empty([0]i64) }

-- ==
-- entry: segmented_replicate
-- input { [2i64, 1i64, 0i64, 3i64, 0i64] [5, 6, 9, 8, 4] } output { [5, 5, 6, 8, 8, 8] }

-- ==
-- entry: segmented_iota
-- input { [false, false, false, true, false, false, false] } output { [0i64, 1i64, 2i64, 0i64, 1i64, 2i64, 3i64] }

-- ==
-- entry: idxs_to_flags
-- input { [2i64, 1i64, 3i64] } output { [false, false, true, true, false, false] }
-- input { [2i64, 0i64, 4i64] } output { [false, false, true, false, false, false] }
-- input { [2i64, 4i64] } output { [false, false, true, false, false, false] }
-- input { [0i64, 2i64] } output { [true, false] }
-- input { empty([0]i64) } output { empty([0]bool) }

-- ==
-- entry: map_iota
-- input { [2i64, 1i64, 3i64] } output { [0i64, 1i64, 0i64, 0i64, 1i64, 2i64] }
-- input { [2i64, 0i64, 4i64] } output { [0i64, 1i64, 0i64, 1i64, 2i64, 3i64] }

-- ==
-- entry: streak
-- input { [1, 5, 3, 4, 2, 6, 7, 8] } output { 3 }
-- input { [5] } output { 0 }
-- input { [1, 2, 3, 4] } output { 3 }
-- input { [4, 3, 2, 1] } output { 0 }

def exscan [n] (xs: [n]i64): [n]i64 = map2 (-) (scan (+) 0 xs) xs

def sgm_scan_add [n] (vals: [n]i64) (flags: [n]bool): [n]i64 =
  (unzip (scan (\(v1, f1) (v2, f2) -> (if f2 then v2 else v1 + v2, f1 || f2)) (0, false) (zip vals flags))).0

-- Index i repeated reps[i] times. A max-scan of segment ids, so that empty
-- segments need neither last-write-wins scatters nor special cases.
entry replicated_iota [n] (reps: [n]i64): []i64 =
  let m = i64.sum reps
  let starts = exscan reps
  let ids = reduce_by_index (replicate m 0) i64.max 0 (map2 (\s r -> if r > 0 then s else -1) starts reps) (iota n)
  in scan i64.max 0 ids

entry segmented_replicate [n] (reps: [n]i64) (vs: [n]i32): []i32 =
  map (\i -> vs[i]) (replicated_iota reps)

entry segmented_iota [n] (flags: [n]bool): [n]i64 =
  map (\x -> x - 1) (sgm_scan_add (replicate n 1) flags)

entry idxs_to_flags [n] (sizes: [n]i64): []bool =
  let m = i64.sum sizes
  let offsets = exscan sizes
  let heads = map3 (\i o s -> if i > 0 && s > 0 then o else -1) (iota n) offsets sizes
  in scatter (replicate m false) heads (replicate n true)

entry map_iota [n] (sizes: [n]i64): []i64 = segmented_iota (idxs_to_flags sizes)

entry streak [n] (xs: [n]i32): i32 =
  let ys = rotate 1 xs
  let is = (map2 (\x y -> if x < y then 1 else 0) xs ys)[0:n - 1]
  let fs = map (== 0) is
  let ss = (unzip (scan (\(v1, f1) (v2, f2) -> (if f2 then v2 else v1 + v2, f1 || f2)) (0, false) (zip is fs))).0
  in reduce i32.max 0 ss
