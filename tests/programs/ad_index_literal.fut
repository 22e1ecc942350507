-- The gradient of a map whose rows carry the derivative and are indexed
-- by a literal (`x[1]`): the reverse rule's one-hot adjoint takes an i64
-- position, and the literal was typed otherwise ("compare: r... has type
-- i32, expected i64", an internal error on the host backend).
-- ==
-- input { 3i64 }
-- output { [[0.1, 1.0, 0.30000000000000004], [0.2, 1.7999999999999998, 0.6000000000000001], [0.3, 2.6, 0.8999999999999999]] }

def f (w: [3]f64) (xs: [][3]f64) =
  f64.sum (map (\x -> let p = f64.sum (map2 (*) w x) in p * x[1]) xs)

entry main (n: i64) =
  let xs = tabulate_2d n 3 (\i j -> f64.i64 (i + j) / 10)
  in vjp (\xs -> f [1, 2, 3] xs) xs 1
