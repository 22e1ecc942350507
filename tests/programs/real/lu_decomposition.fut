-- LU decomposition without pivoting, Doolittle's order (written for
-- thorn): a sequential loop over the pivot column whose body updates the
-- trailing rows with a map of maps reading the pivot row and column, as
-- rodinia's lud does blockwise; then the product L*U, which must give the
-- input back, and the determinant (product of U's diagonal).

def lu [n] (a: [n][n]f64) : ([n][n]f64, [n][n]f64) =
  let (l, u) =
    loop (l, u) = (tabulate_2d n n (\i j -> if i == j then 1f64 else 0), copy a) for k < n do
      let pivot = u[k, k]
      let factors = tabulate n (\i -> if i > k then u[i, k] / pivot else 0)
      let u' = tabulate_2d n n (\i j -> if i > k then u[i, j] - factors[i] * u[k, j] else u[i, j])
      let l' = tabulate_2d n n (\i j -> if j == k && i > k then factors[i] else l[i, j])
      in (l', u')
  in (l, u)

def matmul [n][p][m] (x: [n][p]f64) (y: [p][m]f64) : [n][m]f64 =
  map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose y)) x

-- ==
-- entry: check
-- input { 4i64 }
-- output { 0.0f64 1284.3310460758378f64 }
-- input { 12i64 }
-- output { 0.0f64 5.652619210904386e13f64 }
entry check (n: i64) : (f64, f64) =
  let a = tabulate_2d n n (\i j -> if i == j then f64.i64 (n + 2) else 1 / f64.i64 (1 + i + 2 * j))
  let (l, u) = lu a
  let back = matmul l u
  let err = f64.maximum (map2 (\x y -> f64.abs (x - y)) (flatten back) (flatten a))
  let det = f64.product (map (\i -> u[i, i]) (iota n))
  in (f64.round (err * 1e9), det)
