-- A size argument that is an arithmetic expression over something that is
-- not a size expression (`i64.sum ks + n`): Futhark keeps the expression as
-- the size, and `split`'s `[n + m]` unifies with it operator for operator,
-- so m = n here and split's n is solved at run time (Futhark's
-- tests/ad/flatmap0.fut, rev_map).
-- ==
-- entry: direct
-- input { [1i64, 2i64] } output { [1i32, 1i32, 1i32] [1i32, 1i32] }

-- ==
-- entry: swapped
-- input { [1i64, 2i64] } output { [1i32, 1i32] [1i32, 1i32, 1i32] }

-- ==
-- entry: mapped
-- input { [1i64, 2i64] [4.0, 5.0] }
-- output { [[4.0, 5.0, 6.0], [5.0, 6.0, 7.0]] [[7.0, 8.0], [8.0, 9.0]] }

-- ==
-- entry: grad
-- input { [1i64, 2i64] [4.0, 5.0] }
-- output { [[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [2.0, 0.0], [0.0, 2.0]] }

entry direct [n] (ks: [n]i64) = split (map (+ 1) (replicate (i64.sum ks + n) 0i32))

entry swapped [n] (ks: [n]i64) = split (map (+ 1) (replicate (n + i64.sum ks) 0i32))

entry mapped [n] (ks: [n]i64) (xs: [n]f64) =
  unzip (map split (transpose (tabulate (i64.sum ks + n) (\i -> map (+ f64.i64 i) xs))))

def primal (ks: []i64) (xs: []f64) =
  let f (k: i64, x: f64) = (replicate k x, x * 2)
  let (_, _, _, a, b) = flatmap f (zip ks xs)
  in (take (i64.sum ks) a, b)

entry grad [n] (ks: [n]i64) (xs: [n]f64) =
  tabulate (i64.sum ks + n) \i ->
    vjp (primal ks) xs ( if i < i64.sum ks
                         then replicate (i64.sum ks) 0 with [i] = 1
                         else replicate (i64.sum ks) 0
                       , if i < i64.sum ks
                         then replicate n 0
                         else replicate n 0 with [i - i64.sum ks] = 1 )
