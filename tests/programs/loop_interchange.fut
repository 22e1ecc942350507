-- A map around a loop (interp/flatten/interchange.hpp): interchanged into
-- one flattened map per iteration when the map is narrow and the loop body
-- has inner parallelism, else sequentialised inside each element. Both
-- choices must give the reference backend's results.

def gen (r: i64) (c: i64) : [r][c]i64 =
  tabulate_2d r c (\i j -> (i * 7 + j * j * 3) % 11 - 5)

def steps [r][c] (xss: [r][c]i64) (n: i64) : [r]i64 =
  map (\xs -> loop acc = 0i64 for i < n do acc * 3 + reduce (+) 0 (map (\x -> x * (i + 1)) xs)) xss

-- Narrow (3 rows of 40): interchanged.
-- ==
-- entry: narrow
-- input { 3i64 40i64 5i64 } output { [-6623i64, 179i64, -895i64] }
-- input { 3i64 40i64 0i64 } output { [0i64, 0i64, 0i64] }
entry narrow (r: i64) (c: i64) (n: i64) = steps (gen r c) n

-- Wide (600 rows of 2): sequentialised inside each element.
-- ==
-- entry: wide
-- input { 600i64 2i64 4i64 } output { 174i64 [-406i64, 406i64, -58i64] }
entry wide (r: i64) (c: i64) (n: i64) = let s = steps (gen r c) n in (i64.sum s, s[0:3])

-- The body reads the mapped element and the loop variable, and the
-- accumulator inside the inner SOAC.
-- ==
-- entry: uses_elem
-- input { 8i64 50i64 6i64 } output { [2615i64, 3620i64, 3418i64, 2216i64, 3221i64, 4019i64, 2817i64, 2615i64] }
entry uses_elem (k: i64) (m: i64) (n: i64) =
  let xs = map (\i -> (i * 5) % 7) (iota k)
  let ys = iota m
  in map (\x -> loop acc = x for i < n do acc + (reduce (+) 0 (map (\y -> y + x + acc) ys)) % 1000 + i) xs

-- A trip count that depends on the element: never interchanged.
-- ==
-- entry: bound_depends
-- input { [3i64, 0i64, 5i64, 2i64] 40i64 } output { [2340i64, 0i64, 7800i64, 780i64] }
entry bound_depends (xs: []i64) (m: i64) =
  let ys = iota m
  in map (\x -> loop acc = 0i64 for i < x do acc + reduce (+) 0 (map (\y -> y * i) ys)) xs

-- A tuple as loop state.
-- ==
-- entry: tuple_state
-- input { 4i64 16i64 7i64 } output { [84i64, 105i64, 63i64, 105i64] [6i64, 6i64, 6i64, 6i64] }
entry tuple_state (r: i64) (c: i64) (n: i64) =
  unzip (map (\xs -> loop (a, k) = (0i64, 0i64) for i < n do
                       let m = i64.maximum (map (\x -> x * i) xs)
                       in (a + m, k + if m > i then 1 else 0))
             (gen r c))

-- Arrays as loop state (`loop row for ...`, the row being the mapped
-- element): interchanged, each iteration one map over all rows' elements.
-- ==
-- entry: array_state
-- input { [[1i64, 2, 3], [4, 5, 6]] 3i64 } output { [[12i64, 20i64, 28i64], [36i64, 44i64, 52i64]] }
entry array_state [r][c] (xss: [r][c]i64) (n: i64) : [r][c]i64 =
  map (\row -> loop row for i < n do map (\x -> x * 2 + i) row) xss
