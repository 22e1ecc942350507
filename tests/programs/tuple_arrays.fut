-- Arrays of tuples and records with array or nested components, going
-- into and coming out of mapped functions. Futhark keeps an array of
-- tuples as a tuple of arrays; so does the flattener (elem_tree.hpp,
-- Lowerer::view_of), and a map returning a tuple with array parts writes
-- each part once per row (planner map_rows).

-- A map returning a tuple of an array and a scalar.
-- ==
-- entry: split_rows
-- input { [[1i64, 2i64, 3i64], [4i64, 5i64, 6i64]] }
-- output { [[2i64, 4i64, 6i64], [8i64, 10i64, 12i64]] [6i64, 15i64] }
entry split_rows (xss: [][]i64) : ([][]i64, []i64) =
  unzip (map (\xs -> (map (* 2) xs, i64.sum xs)) xss)

-- The same arrays zipped and passed to a second map: an array of tuples
-- whose first component is an array.
-- ==
-- entry: through_two_maps
-- input { [[1i64, 2i64, 3i64], [4i64, 5i64, 6i64]] }
-- output { [18i64, 45i64] }
entry through_two_maps (xss: [][]i64) : []i64 =
  let ps = map (\xs -> (map (* 2) xs, i64.sum xs)) xss
  in map (\(ys, s) -> i64.sum ys + s) ps

-- Nested tuples of scalars as array elements.
-- ==
-- entry: nested
-- input { [1i32, 2i32, 3i32] } output { [3i32, 6i32, 9i32] }
entry nested (xs: []i32) : []i32 =
  let ps = map (\x -> ((x, x + 1), x - 1)) xs
  in map (\((a, b), c) -> a + b + c) ps

-- Records with array fields, built in one map and read in another.
-- ==
-- entry: records
-- input { [[1.0f32, 2.0f32], [3.0f32, 4.0f32]] }
-- output { [3.5f32, 8.5f32] }
entry records (xss: [][]f32) : []f32 =
  let rs = map (\xs -> {total = f32.sum xs, scaled = map (/ 2) xs}) xss
  in map (\r -> r.total + r.scaled[0]) rs

-- A triple of arrays per row, then a reduction over rows of tuples.
-- ==
-- entry: triples
-- input { 4i64 3i64 } output { 18i64 6i64 }
entry triples (m: i64) (n: i64) : (i64, i64) =
  let ts = map (\r -> (map (+ r) (iota n), replicate n r, r)) (iota m)
  let sums = map (\(a, b, c) -> i64.sum a - i64.sum b + c) ts
  in (i64.sum sums, i64.sum (map (.2) ts))

-- An array of tuples with array components as an entry argument.
-- ==
-- entry: pairs_in
-- input { [[1i32, 2i32], [3i32, 4i32]] [10i32, 20i32] } output { [13i32, 27i32] }
entry pairs_in (xss: [][2]i32) (ys: []i32) : []i32 =
  let ps = zip xss ys
  in map (\(xs, y) -> xs[0] + xs[1] + y) ps
