-- == and != on arrays inside mapped functions compare them whole (as in
-- Futhark's ad/reducebyindexminmax8: `map2 (map2 (map2 (==))) r f` over
-- 4-D arrays compares rows). They ran on the reference ("an array where
-- only scalars are supported").

-- ==
-- entry: rows_equal
-- input { [[1, 2, 3], [4, 5, 6], [7, 8, 9]] [[1, 2, 3], [4, 0, 6], [7, 8, 9]] }
-- output { [true, false, true] [false, true, false] }
entry rows_equal (xs: [][]i32) (ys: [][]i32) =
  (map2 (==) xs ys, map2 (!=) xs ys)

-- ==
-- entry: blocks_equal
-- input { 30i64 4i64 5i64 }
-- output { 27i64 }
entry blocks_equal (n: i64) (k: i64) (l: i64) =
  let a = tabulate_3d n k l (\i j c -> f32.i64 (i + j * c))
  let b = tabulate_3d n k l (\i j c -> if i % 10 == 3 && j == 2 && c == 4 then 0 else f32.i64 (i + j * c))
  in map2 (==) a b |> map i64.bool |> i64.sum

-- Tuples with array components.
-- ==
-- entry: pairs_equal
-- input { [[1, 2], [3, 4]] [5, 6] [[1, 2], [3, 4]] [5, 7] }
-- output { [true, false] }
entry pairs_equal (xs: [][2]i32) (as: []i32) (ys: [][2]i32) (bs: []i32) =
  map4 (\x a y b -> (x, a) == (y, b)) xs as ys bs
