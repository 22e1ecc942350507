-- Reductions whose operator combines [m] rows with a loop rather than
-- element by element (Futhark's soacs/reduce5 and reduce9): chunks of rows
-- folded in parallel, one element per chunk, then the chunks' rows. They
-- ran on the reference ("a vectorised operator that is not elementwise").

def vec_max [m] (xs: [m]i32) (ys: [m]i32) : [m]i32 =
  loop zs = replicate m 0 for i < m do zs with [i] = i32.max xs[i] ys[i]

-- Not elementwise at all: 2x2 matrices as rows of 4, multiplied.
def mat_mul (x: [4]i32) (y: [4]i32) : [4]i32 =
  [x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3]]

-- ==
-- entry: maxima
-- input { 1000i64 7i64 }
-- output { [988i32, 995i32, 989i32, 996i32, 990i32, 997i32, 991i32] }
entry maxima (n: i64) (m: i64) =
  reduce vec_max (replicate m i32.lowest) (tabulate_2d n m (\i j -> i32.i64 ((i * 13 + j * 7) % 1001)))

-- The product of n Fibonacci matrices [[1, 1], [1, 0]]: [[F(n+1), F(n)], [F(n), F(n-1)]].
-- ==
-- entry: fibonacci
-- input { 40i64 }
-- output { [165580141i32, 102334155i32, 102334155i32, 63245986i32] }
entry fibonacci (n: i64) = reduce mat_mul [1, 0, 0, 1] (replicate n [1, 1, 1, 0])

-- ==
-- entry: one_row
-- input { [[3, 1, 4]] }
-- output { [3, 1, 4] }
entry one_row (xss: [][3]i32) = reduce vec_max [i32.lowest, i32.lowest, i32.lowest] xss
