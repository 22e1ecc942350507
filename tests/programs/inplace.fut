-- In-place updates and consumption: unique parameters, updates in loops,
-- copies keep the original intact, scatter/reduce_by_index consume their
-- destination, updates through slices and of arrays of tuples.
-- ==
-- entry: main
-- input { 5i64 } output { [0i64, 1i64, 4i64, 9i64, 16i64] [0i64, 0i64, 0i64, 0i64, 0i64] [10i64, 1i64, 2i64, 3i64, 4i64] }

-- ==
-- entry: tuples
-- input { [1, 2, 3] [4.0, 5.0, 6.0] } output { [1, 9, 3] [4.0, 9.5, 6.0] }

-- ==
-- entry: slices
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[1, 0, 0], [4, 0, 0]] }

def set_first (xs: *[]i64) (v: i64): *[]i64 = xs with [0] = v

entry main (n: i64) =
  let zeros = replicate n 0
  let squares = loop acc = copy zeros for i < n do acc with [i] = i * i
  let counted = scatter (iota n) [0] [10]
  in (squares, zeros, set_first (copy counted) 10)

entry tuples [n] (xs: [n]i32) (ys: [n]f64) =
  let ps = zip (copy xs) (copy ys)
  let ps[1] = (9, 9.5)
  in unzip ps

entry slices [n] [m] (xss: *[n][m]i32) = xss with [:, 1:] = replicate n (replicate (m - 1) 0)
