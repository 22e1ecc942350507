-- Derivatives inside mapped functions (interp/flatten/lower_ad.cpp) of
-- functions over tuples and of functions defined inside the element, as
-- in ifl23-revad-red-scan's scan and reduction adjoints: `map (op_bar_2 op)`
-- with `op_bar_2 op (x, y, r_b) = vjp (op x) y r_b` over 2x2 matrices as
-- 4-tuples, and `let op' b a = op a b in vjp (op' y) x r_b`. Each map is
-- one plan on the host backend; --validate compares with the reference.
-- Expected values: the reference backend.

def mm2 (a1: f64, b1: f64, c1: f64, d1: f64) (a2: f64, b2: f64, c2: f64, d2: f64) =
  (a1 * a2 + b1 * c2, a1 * b2 + b1 * d2, c1 * a2 + d1 * c2, c1 * b2 + d1 * d2)

def fromarr (x: [4]f64) = (x[0], x[1], x[2], x[3])
def toarr (a: f64, b: f64, c: f64, d: f64) = [a, b, c, d]

def op_bar_2 't (op: t -> t -> t) (x: t, y: t, r_b: t) : t = vjp (op x) y r_b

-- ==
-- entry: tuple_operator
-- input { [[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 1.5]] [[2.0, 0.0, 1.0, 1.0], [1.0, 1.0, -1.0, 3.0]] [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.5, 0.0]] }
-- output { [[1.0, 0.0, 2.0, 0.0], [1.0, 0.5, 0.75, -1.0]] }
entry tuple_operator (xs: [][4]f64) (ys: [][4]f64) (bs: [][4]f64) =
  map (op_bar_2 mm2) (zip3 (map fromarr xs) (map fromarr ys) (map fromarr bs)) |> map toarr

def op_bar_1 (op: f64 -> f64 -> f64) (x: f64, y: f64, r_b: f64) : f64 =
  let op' b a = op a b
  in vjp (op' y) x r_b

def scaled_sin (a: f64) (b: f64) = a * f64.sin b

-- ==
-- entry: local_function
-- input { [1.0, 2.0, 0.5] [0.5, -1.0, 3.0] [1.0, 2.0, -1.0] }
-- output { [0.479425538604203, -1.682941969615793, -0.1411200080598672] }
entry local_function (xs: []f64) (ys: []f64) (bs: []f64) =
  map (op_bar_1 scaled_sin) (zip3 xs ys bs)

-- Forward mode: tangents of functions of tuples at a point that differs
-- per element (the tangent of a tuple parameter is a tuple).
def polar (r: f64, th: f64) = (r * f64.cos th, r * f64.sin th)

-- ==
-- entry: tuple_tangents
-- input { [[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 1.5]] [[2.0, 0.0, 1.0, 1.0], [1.0, 1.0, -1.0, 3.0]] [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.5, 0.0]] }
-- output { [[1.0, 0.0, 3.0, 0.0], [-0.5, 0.5, 0.75, 2.0]] }
entry tuple_tangents (xs: [][4]f64) (ys: [][4]f64) (ts: [][4]f64) =
  map3 (\x y t -> toarr (jvp (mm2 (fromarr x)) (fromarr y) (fromarr t))) xs ys ts

-- ==
-- entry: polar_tangents
-- input { [1.0, 2.0] [0.5, 1.0] }
-- output { [0.6378697925882713, -0.30116867893975674] [0.9182168195493894, 1.3817732906760363] }
entry polar_tangents (rs: []f64) (ths: []f64) = map2 (\r th -> jvp polar (r, th) (1, 0.5)) rs ths |> unzip
