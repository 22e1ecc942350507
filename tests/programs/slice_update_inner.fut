-- In-place updates of slices inside mapped functions (as in rodinia/lud's
-- diagonal block): columns, strided rows, blocks, with indices computed
-- per element and a value read from the array being updated.
-- ==
-- entry: set_column
-- input { [[[1i32, 2i32], [3i32, 4i32]], [[5i32, 6i32], [7i32, 8i32]]] [1i64, 0i64] }
-- output { [[[1i32, 10i32], [3i32, 10i32]], [[10i32, 6i32], [10i32, 8i32]]] }
entry set_column [k][n] (mats: [k][n][n]i32) (cols: [k]i64) : [k][n][n]i32 =
  map2 (\mat c -> let mat = copy mat
                  let mat[:, c] = replicate n 10i32
                  in mat) mats cols

-- ==
-- entry: transpose_column
-- input { [[[1f32, 2f32, 3f32], [4f32, 5f32, 6f32], [7f32, 8f32, 9f32]]] }
-- output { [[[1f32, 2f32, 3f32], [2f32, 5f32, 6f32], [3f32, 8f32, 9f32]]] }
entry transpose_column [k][n] (mats: [k][n][n]f32) : [k][n][n]f32 =
  map (\mat -> let mat = copy mat
               let row = copy mat[0]
               let mat[:, 0] = row
               in mat) mats

-- ==
-- entry: strided
-- input { [[0i64, 0i64, 0i64, 0i64, 0i64, 0i64], [1i64, 1i64, 1i64, 1i64, 1i64, 1i64]] }
-- output { [[7i64, 0i64, 8i64, 0i64, 9i64, 0i64], [7i64, 1i64, 8i64, 1i64, 9i64, 1i64]] }
entry strided (xss: [][6]i64) : [][6]i64 =
  map (\xs -> copy xs with [0:6:2] = [7i64, 8i64, 9i64]) xss

-- ==
-- entry: loop_columns
-- input { [[[1i32, 1i32, 1i32], [1i32, 1i32, 1i32], [1i32, 1i32, 1i32]]] }
-- output { [[[0i32, 1i32, 2i32], [1i32, 2i32, 3i32], [2i32, 3i32, 4i32]]] }
entry loop_columns [k][n] (mats: [k][n][n]i32) : [k][n][n]i32 =
  map (\mat ->
         loop (mat: *[n][n]i32) = copy mat for i < n do
           let col = map (\j -> mat[j, i] + i32.i64 (i + j) - 1) (iota n)
           let mat[:, i] = col
           in mat) mats
