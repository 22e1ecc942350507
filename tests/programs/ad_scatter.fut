-- Automatic differentiation of scatter by the array-level rule: the
-- destination's adjoint is ȳ with the written positions zeroed, each
-- value's is ȳ at its index (0 out of bounds; of duplicate indices the last
-- write, the one that lands). On the host backend with --validate each
-- result is compared with the reference tape.

-- ==
-- entry: scatter_vjp
-- input { [1.0, 2.0, 3.0, 4.0] [2i64, 0i64, 7i64] [10.0, 20.0, 30.0] [1.0, 2.0, 3.0, 4.0] }
-- output { [0.0, 2.0, 0.0, 4.0] [3.0, 1.0, 0.0] }
-- input { [1.0, 2.0, 3.0] [1i64, 1i64, -1i64] [10.0, 20.0, 30.0] [1.0, 2.0, 3.0] }
-- output { [1.0, 0.0, 3.0] [0.0, 2.0, 0.0] }
entry scatter_vjp (dst: []f64) (is: []i64) (vs: []f64) (yb: []f64) =
  vjp (\(d, v) -> scatter (copy d) is v) (dst, vs) yb

-- ==
-- entry: scatter_jvp
-- input { [1.0, 2.0, 3.0, 4.0] [2i64, 0i64, 7i64] [10.0, 20.0, 30.0] }
-- output { [20.0, 2.0, 10.0, 4.0] [2.0, 1.0, 2.0, 1.0] }
entry scatter_jvp (dst: []f64) (is: []i64) (vs: []f64) =
  jvp2 (\(d, v) -> scatter (copy d) is v) (dst, vs) (map (const 1) dst, map (const 2) vs)

-- A scatter between maps: gradient of a sum of squares after a permutation.
-- ==
-- entry: scatter_chain
-- input { [1.0, 2.0, 3.0] } output { [0.0, 0.0, 24.0] }
entry scatter_chain (xs: []f64) =
  let f xs = f64.sum (map (\x -> x * x) (scatter (map (* 2) xs) [1i64, 0i64] [0.0, 1.0]))
  in vjp f xs 1
