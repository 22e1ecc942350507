-- The `intrinsics` module's strided views and updates of flat arrays, as
-- Futhark's own tests use them; a constant size written as an expression
-- (`iota (2 * 2) |> unflatten`) keeps its factors.
-- ==
-- entry: view
-- input { [0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64, 9i64, 10i64, 11i64, 12i64, 13i64, 14i64, 15i64] }
-- output { [[5i64, 6i64], [14i64, 15i64]] }

-- ==
-- entry: update
-- input { [0i64, 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64, 9i64, 10i64, 11i64, 12i64, 13i64, 14i64, 15i64] }
-- output { [0i64, 1i64, 2i64, 0i64, 4i64, 5i64, 6i64, 1i64, 8i64, 2i64, 10i64, 11i64, 12i64, 3i64, 14i64, 15i64] }
-- input { [0i64, 1i64, 2i64] }
-- error: out of bounds

entry view [n] (xs: [n]i64) : [][]i64 = intrinsics.flat_index_2d xs 5 2 9 2 1

entry update [n] (xs: *[n]i64) : *[n]i64 =
  let vs = iota (2 * 2) |> unflatten
  in intrinsics.flat_update_2d xs 3 6 4 vs
