-- scatter_2d and reduce_by_index_2d: index tuples out of bounds in any
-- dimension are ignored (the flattener linearises them).
-- ==
-- input { [[1,2,3],[4,5,6]] [0i64, 1, 1, 2, -1, 0] [0i64, 2, 3, 0, 0, 1] [10,20,30,40,50,60] }
-- output { [[10, 60, 3], [4, 5, 20]] [[2, 8, 3], [4, 5, 8]] }
entry main (a: [][]i32) (is: []i64) (js: []i64) (vs: []i32) =
  (scatter_2d (copy a) (zip is js) vs, reduce_by_index_2d (copy a) (+) 0 (zip is js) (map (/10) vs))
