-- reduce_by_index into rows whose operator is not elementwise (Futhark's
-- hist/array_novec): each bin's whole row one value of the histogram, the
-- operator applied to rows rebuilt in private arrays. It ran on the
-- reference ("a vectorised operator that is not elementwise").

def vec_add [m] (x: [m]i32) (y: [m]i32) : [m]i32 =
  loop acc = copy x for i in iota m do acc with [i] = acc[i] + y[i]

-- 2x2 matrices as rows of 4, multiplied (associative, not commutative;
-- these commute: powers of one matrix).
def mat_mul (x: [4]i64) (y: [4]i64) : [4]i64 =
  [x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3]]

-- ==
-- entry: sums
-- input { [[1,2,3],[4,5,6]] [0i64,0i64,2i64,1i64] }
-- output { [[1, 4, 7], [4, 6, 8]] }
entry sums [m] [n] [k] (xs: *[n][m]i32) (image: *[k]i64) : *[n][m]i32 =
  reduce_by_index xs vec_add (replicate m 0) image (replicate k (map i32.i64 (iota m)))

-- Fibonacci matrices by bins: bin b gets [[1, 1], [1, 0]] to the power of
-- the number of indices equal to b (every third index out of range),
-- wrapping around in i64.
-- ==
-- entry: powers
-- input { 10000i64 }
-- output { [[6578559995583397424i64, 276197228599344265i64, 276197228599344265i64, 6302362766984053159i64],
--            [6578559995583397424i64, 276197228599344265i64, 276197228599344265i64, 6302362766984053159i64],
--            [276197228599344265i64, 6302362766984053159i64, 6302362766984053159i64, -6026165538384708894i64],
--            [6578559995583397424i64, 276197228599344265i64, 276197228599344265i64, 6302362766984053159i64]] }
entry powers (n: i64) =
  let is = map (\i -> if i % 3 == 2 then -1 else i % 4) (iota n)
  in reduce_by_index (replicate 4 [1, 0, 0, 1]) mat_mul [1, 0, 0, 1] is (replicate n [1, 1, 1, 0])

-- ==
-- entry: counts
-- input { 100000i64 6i64 }
-- output { 10i32 }
entry counts (n: i64) (m: i64) =
  let is = map (\i -> (i * 7919) % 17) (iota n)
  let vs = tabulate_2d n m (\i j -> i32.i64 ((i + j) % 5))
  let h = reduce_by_index (replicate 17 (replicate m 0)) vec_add (replicate m 0) is vs
  in i32.sum (flatten h) % 11
