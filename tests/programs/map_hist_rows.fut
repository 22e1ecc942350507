-- Histograms whose bins are rows, inside mapped functions (Futhark's
-- hist/segmented_arr): each element builds its histogram sequentially,
-- the operator's row stored over the bin's row. They ran on the reference
-- ("reduce_by_index into an array of more dimensions than the indices
-- have inside a mapped function").

-- ==
-- input { 4i64 [[0,1],[1,2],[2,3]] }
-- output {
--   [[[1, 1, 1], [1, 1, 1], [0, 0, 0], [0, 0, 0]],
--    [[0, 0, 0], [1, 1, 1], [1, 1, 1], [0, 0, 0]],
--    [[0, 0, 0], [0, 0, 0], [1, 1, 1], [1, 1, 1]]]
-- }
entry main (m: i64) (xss: [][]i32) =
  map (\xs -> hist (map2 (+)) (replicate 3 0) m (map i64.i32 xs) (map (const (replicate 3 1)) xs)) xss

-- An operator that reads the other columns (the lexicographically greater
-- row), and indices out of range, ignored.
-- ==
-- entry: lexmax
-- input { 50i64 7i64 }
-- output { 994055813i64 }
entry lexmax (n: i64) (k: i64) =
  let greater (a: [3]i64) (b: [3]i64) =
    let less = a[0] < b[0] || (a[0] == b[0] && (a[1] < b[1] || (a[1] == b[1] && a[2] < b[2])))
    in if less then b else a
  let rows = map (\r -> reduce_by_index (replicate k (replicate 3 0)) greater (replicate 3 i64.lowest)
                                        (tabulate 40 (\i -> (i * r) % (k + 2) - 1))
                                        (tabulate_2d 40 3 (\i j -> ((i * 7 + r) % 5) * 100 + (i * j) % 11)))
                 (iota n)
  in i64.sum (map (\(r: [k][3]i64) -> i64.sum (map (\(x: [3]i64) -> x[0] * 10000 + x[1] * 100 + x[2]) r)) rows)

-- Two-dimensional bins of rows.
-- ==
-- entry: grid
-- input { 6i64 }
-- output { [[[2, 2], [1, 1]], [[1, 1], [2, 2]]] }
entry grid (n: i64) =
  let one (_: i64) = reduce_by_index_2d (replicate 2 (replicate 2 (replicate 2 0))) (map2 (+)) (replicate 2 0)
                                        (tabulate n (\i -> (i % 2, (i / 3) % 2)))
                                        (replicate n (replicate 2 1))
  in (map one (iota 3))[1]

-- At the top level, reduce_by_index_2d into rows: one SegHist over the
-- linearised bins (index -1 in the first dimension ignored).
-- ==
-- entry: top_level_2d
-- input { 100i64 }
-- output { [[[1i64, 89i64], [1i64, 92i64], [1i64, 95i64]], [[1i64, 93i64], [1i64, 96i64], [1i64, 99i64]]] }
entry top_level_2d (n: i64) =
  reduce_by_index_2d (replicate 2 (replicate 3 (replicate 2 0))) (map2 i64.max) [0, 0]
                     (tabulate n (\i -> (i % 3 - 1, (i * 7) % 4)))
                     (tabulate_2d n 2 (\i j -> i * j + 1))
