-- Accumulators (`intrinsics.acc`), as Futhark's own tests use them: a
-- stream that writes through an accumulator once per input element;
-- writes combine through the operator for hist_stream, and indices out
-- of bounds are ignored.

type~ acc 't = intrinsics.acc t

def write [n] 't (acc: *acc ([n]t)) (i: i64) (v: t) : *acc ([n]t) =
  intrinsics.acc_write acc i v

-- Two writes per element, the second to the next bin; -1 and 20 are out of bounds.
-- ==
-- entry: hist
-- input { [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] [3i64, -1i64, 4i64, 9i64] }
-- output { [-1, 1, 2, 6, 11, 9, 6, 7, 8, 18] }
entry hist (xs: *[]i32) (is: []i64) =
  intrinsics.hist_stream xs (+) 0
    (\(acc: *acc ([]i32)) i -> let acc = write acc i (i32.i64 i) in write acc (i + 1) (i32.i64 i))
    is

-- A loop inside the stream's function; a tuple-valued destination with max.
-- ==
-- entry: scatter
-- input { [0, 0, 0, 0, 0, 0, 0, 0] 4i64 }
-- output { [0, 1, 1, 1, 1, 1, 0, 0] }
entry scatter (xs: *[]i32) (k: i64) =
  intrinsics.scatter_stream xs (\(acc: *acc ([]i32)) i -> loop acc for j < i do write acc (i + j) 1) (iota k)

-- ==
-- entry: argmax
-- input { [1i64, 0i64, 1i64, 5i64] [3f32, 7f32, 9f32, 1f32] }
-- output { [7f32, 9f32] [1i64, 2i64] }
entry argmax (is: []i64) (vs: []f32) =
  let op (a: f32, i: i64) (b: f32, j: i64) = if a > b || (a == b && i < j) then (a, i) else (b, j)
  in unzip (intrinsics.hist_stream (replicate 2 (f32.lowest, -1)) op (f32.lowest, -1)
              (\(acc: *acc ([](f32, i64))) (i, v, j) -> write acc i (v, j))
              (zip3 is vs (indices vs)))
