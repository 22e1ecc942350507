-- Automatic differentiation of reduce_by_index with vectorised operators
-- (`map2 op` over rows, `map2 (map2 op)` over matrices): one histogram of
-- scalars over the flattened rows, so the rules for +, *, max and the
-- generic one apply. Expected values are the reference tape's; on the host
-- backend with --validate each result is compared with it again.

def padd [n] [m] [k] (is: [n]i64) (dst: [m][k]f64, vs: [n][k]f64) =
  reduce_by_index (copy dst) (map2 (+)) (replicate k 0) is vs
def pmul [n] [m] [k] (is: [n]i64) (dst: [m][k]f64, vs: [n][k]f64) =
  reduce_by_index (copy dst) (map2 (*)) (replicate k 1) is vs
def pmax [n] [m] [k] (is: [n]i64) (dst: [m][k]f64, vs: [n][k]f64) =
  reduce_by_index (copy dst) (map2 f64.max) (replicate k f64.lowest) is vs
def pgen [n] [m] [k] (is: [n]i64) (dst: [m][k]f64, vs: [n][k]f64) =
  reduce_by_index (copy dst) (map2 (\a b -> a * b + a + b)) (replicate k 0) is vs
def pmax3 [n] [m] [k] [l] (is: [n]i64) (dst: [m][k][l]f64, vs: [n][k][l]f64) =
  reduce_by_index (copy dst) (map2 (map2 f64.max)) (replicate k (replicate l f64.lowest)) is vs

-- ==
-- entry: vadd
-- input { [0i64, 5, -1, 2, 1, 0] [[1.0, 2], [3, 4], [0, 9]] [[5.0, 1], [2, 8], [7, 7], [1, 1], [0, 3], [2, 0]] [[1.0, 2], [3, 4], [5, 6]] }
-- output { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] [[1.0, 2.0], [0.0, 0.0], [0.0, 0.0], [5.0, 6.0], [3.0, 4.0], [1.0, 2.0]] [[8.0, 3.0], [3.0, 7.0], [6.0, 7.0]] }
entry vadd [n] [m] [k] (is: [n]i64) (dst: [m][k]f64) (vs: [n][k]f64) (yb: [m][k]f64) =
  let (dbar, vbar) = vjp (padd is) (dst, vs) yb in (dbar, vbar, jvp (padd is) (dst, vs) (yb, vs))
-- ==
-- entry: vmul
-- input { [0i64, 5, -1, 2, 1, 0] [[1.0, 2], [3, 4], [0, 9]] [[5.0, 1], [2, 8], [7, 7], [1, 1], [0, 3], [2, 0]] [[1.0, 2], [3, 4], [5, 6]] }
-- output { [[10.0, 0.0], [0.0, 12.0], [5.0, 6.0]] [[2.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 54.0], [9.0, 16.0], [5.0, 4.0]] [[30.0, 0.0], [0.0, 24.0], [5.0, 15.0]] }
entry vmul [n] [m] [k] (is: [n]i64) (dst: [m][k]f64) (vs: [n][k]f64) (yb: [m][k]f64) =
  let (dbar, vbar) = vjp (pmul is) (dst, vs) yb in (dbar, vbar, jvp (pmul is) (dst, vs) (yb, vs))
-- ==
-- entry: vmax
-- input { [0i64, 5, -1, 2, 1, 0] [[1.0, 2], [3, 4], [0, 9]] [[5.0, 1], [2, 8], [7, 7], [1, 1], [0, 3], [2, 0]] [[1.0, 2], [3, 4], [5, 6]] }
-- output { [[0.0, 2.0], [3.0, 4.0], [0.0, 6.0]] [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [5.0, 0.0], [0.0, 0.0], [0.0, 0.0]] [[5.0, 2.0], [3.0, 4.0], [1.0, 6.0]] }
entry vmax [n] [m] [k] (is: [n]i64) (dst: [m][k]f64) (vs: [n][k]f64) (yb: [m][k]f64) =
  let (dbar, vbar) = vjp (pmax is) (dst, vs) yb in (dbar, vbar, jvp (pmax is) (dst, vs) (yb, vs))
-- ==
-- entry: vgen
-- input { [0i64, 5, -1, 2, 1, 0] [[1.0, 2], [3, 4], [0, 9]] [[5.0, 1], [2, 8], [7, 7], [1, 1], [0, 3], [2, 0]] [[1.0, 2], [3, 4], [5, 6]] }
-- output { [[18.0, 4.0], [3.0, 16.0], [10.0, 12.0]] [[6.0, 6.0], [0.0, 0.0], [0.0, 0.0], [5.0, 60.0], [12.0, 20.0], [12.0, 12.0]] [[72.0, 7.0], [3.0, 31.0], [11.0, 22.0]] }
entry vgen [n] [m] [k] (is: [n]i64) (dst: [m][k]f64) (vs: [n][k]f64) (yb: [m][k]f64) =
  let (dbar, vbar) = vjp (pgen is) (dst, vs) yb in (dbar, vbar, jvp (pgen is) (dst, vs) (yb, vs))

-- ==
-- entry: vmax3
-- input { [1i64, 0, 1, 7] [[[1.0, 2], [3, 4]], [[0.0, 9], [1, 1]]] [[[5.0, 1], [2, 8]], [[7.0, 7], [1, 1]], [[0.0, 3], [2, 0]], [[9.0, 9], [9, 9]]] [[[1.0, 2], [3, 4]], [[5.0, 6], [7, 8]]] }
entry vmax3 [n] [m] [k] [l] (is: [n]i64) (dst: [m][k][l]f64) (vs: [n][k][l]f64) (yb: [m][k][l]f64) =
  let (dbar, vbar) = vjp (pmax3 is) (dst, vs) yb in (dbar, vbar, jvp (pmax3 is) (dst, vs) (yb, vs))


-- reduce with a vectorised operator: every row into one bin of the same
-- histogram rules (ties of max to the lowest row).
def rmax [n] [m] (arr: [m][n]f64) : [n]f64 = reduce (map2 f64.max) (replicate n f64.lowest) arr
def radd [n] [m] (arr: [m][n]f64) : [n]f64 = reduce (map2 (+)) (replicate n 0) arr
def rmul3 [n] [m] [k] (arr: [m][n][k]f64) = reduce (map2 (map2 (*))) (replicate n (replicate k 1)) arr

-- ==
-- entry: red_vec
-- input { [[1.0, 5], [3, 2], [3, 7]] [1.0, 2] [[1.0, 2], [3, 4], [5, 6]] }
-- output { [[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]] [3.0, 6.0] [[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]] }
entry red_vec [m] [n] (xss: [m][n]f64) (yb: [n]f64) (dx: [m][n]f64) =
  (vjp rmax xss yb, jvp rmax xss dx, vjp radd xss yb)

-- ==
-- entry: red_vec3
-- input { [[[1.0, 5]], [[3, 2]], [[3, 0]]] [[1.0, 2]] }
-- output { [[[9.0, 0.0]], [[3.0, 0.0]], [[3.0, 20.0]]] }
entry red_vec3 [m] [n] [k] (xss: [m][n][k]f64) (yb: [n][k]f64) = vjp rmul3 xss yb
