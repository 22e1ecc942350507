-- Arrays created inside a mapped function and updated in place, scanned,
-- reversed, histogrammed or carried through loops (the flattener's private
-- arrays: interp/flatten/lower_local.cpp). On the host backend each of
-- these is one SegMap with per-element private storage; the results must
-- match the reference backend.

-- A Brownian-bridge-like fill: replicate, then in-place updates in a loop.
-- ==
-- entry: bridge
-- input { [1i64, 2i64, 3i64] } output { [[0i64, 1i64, 3i64, 6i64], [0i64, 2i64, 6i64, 12i64], [0i64, 3i64, 9i64, 18i64]] }
entry bridge (xs: []i64) : [][4]i64 =
  map (\x ->
         let a = replicate 4 0i64
         in loop a for i in 1..<4 do
              let a[i] = a[i - 1] + x * i
              in a)
      xs

-- A scan that is not the mapped function's result, then a map over it.
-- ==
-- entry: scan_then_map
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[2, 6, 12], [8, 18, 30]] }
entry scan_then_map (xss: [][]i32) : [][]i32 =
  map (\xs -> let ys = scan (+) 0 xs in map (* 2) ys) xss

-- Two scans with tuple operators and a reversal: the shape of a
-- tridiagonal solver.
-- ==
-- entry: two_scans
-- input { [[1i64, 2, 3, 4], [2i64, 0, 1, 5]] }
-- output { [[10i64, 16i64, 19i64, 20i64], [8i64, 11i64, 13i64, 15i64]] }
entry two_scans (xss: [][]i64) : [][]i64 =
  map (\xs ->
         let n = length xs
         let ps = scan (\(a, b) (c, d) -> (a + c, b * d)) (0, 1) (zip xs (replicate n 1))
         let qs = map (.0) ps
         let rs = scan (+) 0 (reverse qs)
         in map (\i -> rs[i] - rs[0] + qs[n - 1]) (iota n) |> reverse |> reverse)
      xss

-- reduce_by_index and scatter into per-element arrays.
-- ==
-- entry: local_hist
-- input { [[0i64, 1, 1, 3, 7], [2i64, 2, 2, 0, -1]] } output { [[1i64, 2i64, 0i64, 1i64], [1i64, 0i64, 3i64, 0i64]] }
entry local_hist (iss: [][]i64) : [][4]i64 =
  map (\is -> reduce_by_index (replicate 4 0) (+) 0 is (map (const 1) is)) iss

-- ==
-- entry: local_scatter
-- input { [[3i64, 0, 9], [1i64, 0, 2]] } output { [[2i64, 0i64, 0i64, 1i64], [2i64, 1i64, 3i64, 0i64]] }
entry local_scatter (iss: [][]i64) : [][4]i64 =
  map (\is -> scatter (replicate 4 0) is (map (+ 1) (indices is))) iss

-- A conditional in-place update, and an if whose branches are different arrays.
-- ==
-- entry: cond_update
-- input { [0i64, 5i64, 2i64] } output { [[9i64, 1i64, 2i64], [0i64, 1i64, 2i64], [0i64, 1i64, 9i64]] }
entry cond_update (ks: []i64) : [][3]i64 =
  map (\k ->
         let a = iota 3
         in if k < 3 then a with [k] = 9 else a)
      ks

-- ==
-- entry: branch_arrays
-- input { [true, false] } output { [[1i32, 2i32, 3i32], [3i32, 2i32, 1i32]] }
entry branch_arrays (bs: []bool) : [][3]i32 =
  map (\b -> let a = [1, 2, 3] in if b then a else reverse a) bs

-- A copy is updated; the original is not.
-- ==
-- entry: copy_then_update
-- input { [10i64, 20i64] } output { [[10i64, 1i64, 2i64, 110i64], [20i64, 1i64, 2i64, 120i64]] }
entry copy_then_update (xs: []i64) : [][4]i64 =
  map (\x ->
         let a = iota 3
         let b = copy a
         let b[0] = x
         in [b[0], a[1], b[2], x + 100])
      xs

-- A delayed map over an array that is then updated must keep the old values.
-- ==
-- entry: map_then_update
-- input { [1i64, 2i64] } output { [[100i64, 3i64, 4i64, 2i64], [100i64, 4i64, 5i64, 3i64]] }
entry map_then_update (xs: []i64) : [][4]i64 =
  map (\x ->
         let a = map (+ x) (iota 3)
         let b = map (+ 1) a
         let a[0] = 100
         in [a[0], b[1], b[2], b[0]])
      xs

-- Two-dimensional private arrays, updated a row at a time, and a loop
-- whose state is an array rebuilt (not updated) every iteration.
-- ==
-- entry: rows
-- input { [1i64, 2i64] } output { [[[1i64, 1i64], [2i64, 2i64], [3i64, 3i64]], [[2i64, 2i64], [4i64, 4i64], [6i64, 6i64]]] }
entry rows (xs: []i64) : [][3][2]i64 =
  map (\x ->
         let m = replicate 3 (replicate 2 0i64)
         in loop m for i < 3 do m with [i] = replicate 2 (x * (i + 1)))
      xs

-- ==
-- entry: rebuilt_state
-- input { [1f64, 2f64] } output { [[8f64, 8f64, 8f64], [16f64, 16f64, 16f64]] }
entry rebuilt_state (xs: []f64) : [][3]f64 =
  map (\x -> loop a = replicate 3 x for _i < 3 do map (* 2) (reverse a)) xs

-- An array in the state of a while loop, beside a scalar.
-- ==
-- entry: while_state
-- input { [3i64, 5i64] } output { [[3i64, 2i64, 1i64], [5i64, 4i64, 3i64]] }
entry while_state (xs: []i64) : [][3]i64 =
  map (\x ->
         let (a, _) =
           loop (a, i) = (replicate 3 0, 0) while i < 3 do
             (a with [i] = x - i, i + 1)
         in a)
      xs

-- Out-of-bounds in-place updates are errors, on every backend.
-- ==
-- entry: bad_update
-- input { [1i64, 7i64] } error: out of bounds
entry bad_update (ks: []i64) : [][3]i64 =
  map (\k -> let a = replicate 3 0i64 in a with [k] = 1) ks
