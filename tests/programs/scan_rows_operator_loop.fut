-- Scans whose operator combines [m] rows with a loop rather than element
-- by element (Futhark's soacs/scan9): chunks of rows folded in parallel,
-- the chunks' prefixes scanned, then every chunk scanned again from its
-- prefix. They ran on the reference ("a vectorised operator that is not
-- elementwise").

def vec_add [m] (xs: [m]i32) (ys: [m]i32) : [m]i32 =
  loop zs = replicate m 0 for i < m do zs with [i] = xs[i] + ys[i]

-- 2x2 matrices as rows of 4, multiplied: not commutative.
def mat_mul (x: [4]i32) (y: [4]i32) : [4]i32 =
  [x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3]]

-- The last row and a checksum of all rows.
-- ==
-- entry: running_sums
-- input { 1000i64 5i64 }
-- output { [49902i32, 49933i32, 49964i32, 49995i32, 50026i32] 124923870i32 }
entry running_sums (n: i64) (m: i64) =
  let rs = scan vec_add (replicate m 0) (tabulate_2d n m (\i j -> i32.i64 ((i * 13 + j * 7) % 101)))
  in (last rs, i32.sum (flatten rs))

-- Powers of the Fibonacci matrix and of a shift, interleaved: each prefix
-- product in order.
-- ==
-- entry: matrix_prefixes
-- input { 6i64 }
-- output { [[1i32, 1i32, 1i32, 0i32], [1i32, 1i32, 1i32, 0i32], [1i32, 1i32, 1i32, 0i32],
--            [2i32, 1i32, 1i32, 1i32], [2i32, 1i32, 1i32, 1i32], [2i32, 1i32, 1i32, 1i32]] }
entry matrix_prefixes (n: i64) =
  scan mat_mul [1, 0, 0, 1] (tabulate n (\i -> if i % 3 == 0 then [1, 1, 1, 0] else [1, 0, 0, 1]))

-- ==
-- entry: checksum
-- input { 5000i64 }
-- output { -1118826512i32 }
entry checksum (n: i64) =
  let ps = scan mat_mul [1, 0, 0, 1] (tabulate n (\i -> if i % 7 == 0 then [1, 1, 1, 0] else [0, 1, 1, 1]))
  in i32.sum (map2 (*) (map i32.i64 (iota (n * 4))) (flatten ps))

-- ==
-- entry: no_rows
-- input { empty([0][3]i32) }
-- output { empty([0][3]i32) }
entry no_rows (xss: [][3]i32) = scan vec_add [0, 0, 0] xss

-- Rows of more dimensions (Futhark's soacs/scan6): [3][4] planes.
-- ==
-- entry: planes
-- input { 200i64 }
-- output { [[19900i32, 20100i32, 20300i32, 20500i32], [20100i32, 20300i32, 20500i32, 20700i32], [20300i32, 20500i32, 20700i32, 20900i32]] 16602600i32 }
entry planes (n: i64) =
  let xs = tabulate_3d n 3 4 (\i j k -> i32.i64 (i + j + k))
  let ps = scan (map2 vec_add) (replicate 3 (replicate 4 0)) xs
  in (last ps, i32.sum (flatten (flatten ps)))
