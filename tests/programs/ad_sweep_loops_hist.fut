-- Automatic differentiation by the array-level rules, continued: loops
-- (each iteration's operations recorded; the loop-carried values kept) and
-- reduce_by_index with * (zero counting) and max (arg-index; the
-- destination wins ties), the seed's T10 and T11. On the host backend with
-- --validate each result is compared with the reference tape.

-- ==
-- entry: power
-- input { 2.0 } output { 32.0 32.0 }
entry power (x: f64) =
  let f x = loop acc = x for _i < 3 do acc * x
  in (vjp f x 1, jvp f x 1)

-- An array carried through a loop of maps.
-- ==
-- entry: iterate_map
-- input { [0.5, 1.0] } output { [12.8125, 80.0] 92.8125 }
entry iterate_map (xs: []f64) =
  let f xs = f64.sum (loop acc = xs for _i < 3 do map (\a -> a * a + 1) acc)
  in (vjp f xs 1, jvp f xs (map (const 1) xs))

-- ==
-- entry: while_loop
-- input { 1.0 } output { 13.1875 13.1875 }
entry while_loop (x: f64) =
  let f x = (loop (acc, k) = (x, 0i32) while k < 4 do (acc * 1.5 + x, k + 1)).0
  in (vjp f x 1, jvp f x 1)

-- ==
-- entry: for_in
-- input { 2.0 } output { 16.0 16.0 }
entry for_in (x: f64) =
  let f x = loop acc = x for c in [1.0, 2.0, 3.0] do acc * c + x
  in (vjp f x 1, jvp f x 1)

-- T10: reduce_by_index (*), zeros in a bin.
-- ==
-- entry: hist_mul
-- input { [1.0, 2.0] [0i64, 0i64, 1i64, 1i64, 5i64] [2.0, 3.0, 0.0, 4.0, 7.0] }
-- output { [6.0, 0.0] [6.0, 0.0] [3.0, 2.0, 8.0, 0.0, 0.0] [11.0, 8.0] }
-- input { [1.0, 2.0] [0i64, 0i64, 1i64, 1i64] [0.0, 0.0, 5.0, 4.0] }
-- output { [0.0, 40.0] [0.0, 20.0] [0.0, 0.0, 8.0, 10.0] [0.0, 38.0] }
entry hist_mul (dst: []f64) (is: []i64) (vs: []f64) =
  let f (d, v) = reduce_by_index (copy d) (*) 1 is v
  let (ys, (dbar, vbar)) = vjp2 f (dst, vs) (map (const 1) dst)
  in (ys, dbar, vbar, jvp f (dst, vs) (map (const 1) dst, map (const 1) vs))

-- T11: reduce_by_index max with ties.
-- ==
-- entry: hist_max
-- input { [7.0, 0.0] [0i64, 0i64, 1i64, 1i64] [3.0, 7.0, 2.0, 2.0] }
-- output { [7.0, 2.0] [1.0, 0.0] [0.0, 0.0, 1.0, 0.0] [10.0, 3.0] }
entry hist_max (dst: []f64) (is: []i64) (vs: []f64) =
  let f (d, v) = reduce_by_index (copy d) f64.max f64.lowest is v
  let (ys, (dbar, vbar)) = vjp2 f (dst, vs) (map (const 1) dst)
  in (ys, dbar, vbar, jvp f (dst, vs) ([10, 20], [1, 2, 3, 4]))

-- min, and values out of bounds.
-- ==
-- entry: hist_min
-- input { [1.0, 9.0, 4.0] [1i64, 1i64, 2i64, 7i64, -1i64] [3.0, 5.0, 6.0, 0.0, 0.0] }
-- output { [1.0, 3.0, 4.0] [1.0, 0.0, 1.0] [1.0, 0.0, 0.0, 0.0, 0.0] }
entry hist_min (dst: []f64) (is: []i64) (vs: []f64) =
  let (ys, (dbar, vbar)) =
    vjp2 (\(d, v) -> reduce_by_index (copy d) f64.min f64.highest is v) (dst, vs) (map (const 1) dst)
  in (ys, dbar, vbar)
