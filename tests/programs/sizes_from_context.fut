-- `unflatten`, `split` and `rep` with Futhark's signatures: their sizes come
-- from the context (a return type, an annotation, a later use) or are solved
-- from the argument's size (`n * m`, `n + m`).
-- ==
-- entry: rows
-- input { 2i64 3i64 } output { [[0i64, 1i64, 2i64], [3i64, 4i64, 5i64]] }

-- ==
-- entry: row_sums
-- input { 3i64 2i64 } output { [1i64, 5i64, 9i64] }

-- ==
-- entry: halves
-- input { [1, 2, 3, 4, 5] } output { [1, 2] [3, 4, 5] }

-- ==
-- entry: cube
-- input { [1, 2, 3, 4, 5, 6, 7, 8] } output { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] }

-- ==
-- entry: reps
-- input { 3i64 } output { [7, 7, 7] }

-- ==
-- entry: bad_unflatten
-- input { 2i64 [1, 2, 3] } error: shape

entry rows (n: i64) (m: i64) : [n][m]i64 = unflatten (iota (n * m))
entry row_sums (n: i64) (m: i64) : [n]i64 =
  let a = unflatten (iota (n * m))
  in map (\r -> reduce (+) 0 r) a
entry halves (xs: [5]i32) : ([2]i32, [3]i32) = split xs
entry cube (xs: [8]i32) = unflatten_3d xs : [2][2][2]i32
entry reps (n: i64) : [n]i32 = rep 7
entry bad_unflatten (n: i64) (xs: []i32) : [n][2]i32 = unflatten (xs :> [n * 2]i32)
