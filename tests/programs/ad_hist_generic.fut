-- Automatic differentiation of reduce_by_index with an operator other than
-- +, *, min, max: the seed's generic sort-based rule (values sorted by bin
-- with a radix sort over the significant bits, segmented exclusive scans
-- from both sides) in reverse mode, a histogram of dual pairs in forward
-- mode. On the host backend with --validate each result is compared with
-- the reference tape.

-- T12: (1 + a)(1 + b) - 1, ne 0; index 4 is out of bounds.
-- ==
-- entry: t12
-- input { [1.0, 0.0] [0i64, 1i64, 0i64, 1i64, 4i64] [2.0, 1.0, 3.0, 0.0, 9.0] [1.0, 1.0] }
-- output { [23.0, 1.0] [12.0, 2.0] [8.0, 1.0, 6.0, 2.0, 0.0] }
entry t12 (dst: []f64) (is: []i64) (vs: []f64) (yb: []f64) =
  let f (d, v) = reduce_by_index (copy d) (\a b -> a * b + a + b) 0 is v
  let (y, (db, vb)) = vjp2 f (dst, vs) yb
  in (y, db, vb)

-- The same in forward mode, and with f32 and a larger bin count (several
-- radix-sort bits, bins in no order).
-- ==
-- entry: t12_jvp
-- input { [1.0, 0.0] [0i64, 1i64, 0i64, 1i64, 4i64] [2.0, 1.0, 3.0, 0.0, 9.0] }
-- output { [26.0, 5.0] }
entry t12_jvp (dst: []f64) (is: []i64) (vs: []f64) =
  let f (d, v) = reduce_by_index (copy d) (\a b -> a * b + a + b) 0 is v
  in jvp f (dst, vs) (map (const 1) dst, map (const 1) vs)

-- ==
-- entry: many_bins
-- input { [0.5f32, 0.25f32, 0.0f32, 1.0f32, 0.5f32, 0.1f32] [5i64, 2i64, 5i64, 0i64, 3i64, 5i64, 2i64, 9i64, -1i64, 0i64] [0.1f32, 0.2f32, 0.3f32, 0.4f32, 0.5f32, 0.6f32, 0.7f32, 0.8f32, 0.9f32, 1.0f32] }
-- output { true }
entry many_bins (dst: []f32) (is: []i64) (vs: []f32) =
  let f (d, v) = f32.sum (map (\x -> x * x) (reduce_by_index (copy d) (\a b -> a * b + a + b) 0 is v))
  let (db, vb) = vjp f (dst, vs) 1
  let j = jvp f (dst, vs) (map (const 1) dst, map (const 1) vs)
  in f32.abs (f32.sum db + f32.sum vb - j) < 1e-3

-- A sum under a different neutral element (ne = 0 with a max-like but
-- smooth operator would not be associative; addition with an explicit
-- lambda is): the generic rule must agree with the (+) rule.
-- ==
-- entry: lambda_add
-- input { [10.0, 20.0, 30.0] [0i64, 2i64, 2i64, -1i64, 3i64] [1.0, 2.0, 3.0, 4.0, 5.0] [1.0, 10.0, 100.0] }
-- output { [1.0, 10.0, 100.0] [1.0, 100.0, 100.0, 0.0, 0.0] }
entry lambda_add (dst: []f64) (is: []i64) (vs: []f64) (yb: []f64) =
  vjp (\(d, v) -> reduce_by_index (copy d) (\a b -> a + b) 0 is v) (dst, vs) yb
