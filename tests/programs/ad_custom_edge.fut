-- Automatic differentiation: custom derivatives (with_vjp, with_vjp_tape)
-- and the edge cases where Futhark's rules fix the answer: pow at 0,
-- iota's length, bit casts in forward mode, reduce_by_index with an
-- operator whose neutral element is not one (the result is
-- map2 op dst (reduce_by_index (replicate w ne) op ne is vs)).

-- with_vjp: the custom adjoint replaces f's own (here: a wrong one on
-- purpose, so that it is seen to be used).
-- ==
-- entry: custom
-- input { 2.5 } output { 5.0 3.23606797749979 5.0 2.0 }
def twice (x: f64) = with_vjp (\x -> x * 2) (\c x_adj -> x_adj + f64.sqrt c) x
entry custom (x: f64) = (twice x, vjp twice x 1, (vjp2 twice x 1).0, jvp twice x 1)

-- with_vjp on a tuple, inside a larger computation, with an array.
-- ==
-- entry: custom_tuple
-- input { [1.0, 2.0, 3.0] 2.0 } output { [20.0, 20.0, 20.0] 12.0 }
def scale (xs: []f64, s: f64) =
  with_vjp (\(xs, s) -> map (* s) xs)
           (\_ ys_adj -> (map (* 10) ys_adj, f64.sum ys_adj * 2))
           (xs, s)
entry custom_tuple (xs: []f64) (s: f64) = vjp (\(xs, s) -> f64.sum (scale (xs, s))) (xs, s) 2

-- with_vjp_tape: the tape (a permutation) is kept apart from the result.
-- ==
-- entry: custom_tape
-- input { [3.0, 1.0, 2.0] } output { [0.3, 0.1, 0.2] }
def rev3 (xs: [3]f64) : [3]f64 =
  with_vjp_tape (\xs -> ([2i64, 1, 0], reverse xs))
                (\(perm, adj) -> scatter (replicate 3 0) perm adj)
                xs
entry custom_tape (xs: [3]f64) = vjp rev3 xs [0.2, 0.1, 0.3]

-- x ** y at x = 0 (Futhark's pow0.fut): finite partials.
-- ==
-- entry: pow_zero
-- input { 0.0 1.0 } output { 1.0 1.0 0.0 }
-- input { 0.0 0.0 } output { 0.0 0.0 0.0 }
-- input { 2.0 3.0 } output { 17.545177444479563 12.0 5.545177444479562 }
entry pow_zero (x: f64) (y: f64) =
  let (dx, dy) = vjp (\(x, y) -> x ** y) (x, y) 1
  in (jvp (\(x, y) -> x ** y) (x, y) (1, 1), dx, dy)

-- The same inside a mapped function (the generated element derivative).
-- ==
-- entry: pow_zero_map
-- input { [0.0, 0.0, 2.0] [1.0, 0.0, 3.0] } output { [1.0, 0.0, 12.0] [0.0, 0.0, 5.545177444479562] }
entry pow_zero_map (xs: []f64) (ys: []f64) =
  vjp (\(xs, ys) -> map2 (**) xs ys) (xs, ys) (map (const 1) xs)

-- iota's length: its adjoint is the sum of the elements' (Futhark's rule).
-- ==
-- entry: iota_len
-- input { 5i64 } output { 5i64 }
entry iota_len (n: i64) = vjp (\n -> i64.sum (iota n)) n 1

-- A bit cast in forward mode: the tangent goes through the same cast.
-- ==
-- entry: bits
-- input { 2f32 1f32 } output { 1065353216i32 }
entry bits (x: f32) (t: f32) = jvp (\x -> i32.u32 (f32.to_bits x)) x t

-- A saturating add as reduce_by_index's operator (Futhark's
-- reducebyindex5.fut): bin 4 receives nothing, and its result is
-- sat 16 0 = 15, which does not depend on dst[4].
-- ==
-- entry: hist_sat
-- input { [0i64,1i64,2i64,1i64,0i64,1i64,2i64,1i64] [15f32,1f32,2f32,15f32,16f32] [1f32,2f32,12f32,3f32,2f32,4f32,7f32,5f32] }
-- output { [0f32,1f32,0f32,1f32,0f32] [0f32,1f32,0f32,1f32,0f32,1f32,0f32,1f32] }
def sat (x: f32) (y: f32) : f32 = if 15 - x < y then 15 else x + y
entry hist_sat [n] [m] (is: [n]i64) (dst: [m]f32) (vs: [n]f32) =
  vjp (\(dst, vs) -> reduce_by_index (copy dst) sat 0 is vs) (dst, vs) (replicate m 1)
