-- Reductions over tuples of arrays of different ranks and over matrices
-- (Futhark's issue2482): no segmented step takes such accumulators, so
-- chunks of elements are folded in parallel, one element per chunk with
-- the accumulator in private storage, then the chunks' results; inside a
-- map, each element folds its own. They ran on the reference.

def op [k] [n] ((xa, xb): ([k]f32, [n][k]f32)) ((ya, yb): ([k]f32, [n][k]f32)) =
  (map2 f32.max xa ya, map2 (map2 (+)) xb yb)

-- ==
-- entry: nested
-- input { [[[1f32, 2f32], [3f32, 0f32]], [[5f32, -1f32], [0f32, 0f32]]]
--         [[[[1f32, 1f32], [2f32, 2f32]], [[3f32, 3f32], [4f32, 4f32]]],
--          [[[5f32, 5f32], [6f32, 6f32]], [[7f32, 7f32], [8f32, 8f32]]]] }
-- output { [[3f32, 2f32], [5f32, 0f32]]
--          [[[4f32, 4f32], [6f32, 6f32]], [[12f32, 12f32], [14f32, 14f32]]] }
entry nested [n] [k] [l] (xs: [n][l][k]f32) (ys: [n][l][n][k]f32) =
  unzip (map (reduce op (replicate k f32.lowest, replicate n (replicate k 0))) (map2 zip xs ys))

-- ==
-- entry: flat
-- input { 1000i64 3i64 4i64 }
-- output { 999f32 18000f32 }
entry flat (l: i64) (k: i64) (n: i64) =
  let xs = tabulate_2d l k (\i j -> f32.i64 ((i * 7 + j) % l))
  let ys = tabulate_3d l n k (\i _ _ -> f32.i64 (i % 4))
  let (a, b) = reduce op (replicate k f32.lowest, replicate n (replicate k 0)) (zip xs ys)
  in (f32.maximum a, f32.sum (flatten b))

-- Products of 2x2 matrices as [2][2] (an operator on matrices that is
-- not elementwise): the Fibonacci matrix to the power n.
def mat_mul (x: [2][2]i64) (y: [2][2]i64) : [2][2]i64 =
  [[x[0][0] * y[0][0] + x[0][1] * y[1][0], x[0][0] * y[0][1] + x[0][1] * y[1][1]],
   [x[1][0] * y[0][0] + x[1][1] * y[1][0], x[1][0] * y[0][1] + x[1][1] * y[1][1]]]

-- ==
-- entry: fibonacci
-- input { 50i64 }
-- output { [[20365011074i64, 12586269025i64], [12586269025i64, 7778742049i64]] }
entry fibonacci (n: i64) = reduce mat_mul [[1, 0], [0, 1]] (replicate n [[1, 1], [1, 0]])
