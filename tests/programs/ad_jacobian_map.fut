-- Jacobians as maps of jvp/vjp (`tabulate n (jvp f x <-< onehot n)`,
-- `map (\v -> vjp f x v) vs`): on the host backend the flattener lowers a
-- jvp2/vjp2 in a mapped function by generating the derivative function
-- (interp/flatten/lower_ad.cpp), so the map is one plan; array literals in
-- the differentiated function have forward and reverse rules (the array-level
-- sweep and the element transformations). --validate compares with the
-- reference tape. Expected values: the reference backend, checked against
-- the analytic Jacobians (bellman at [0.5, 0.25]: [[0, 1], [-1/sqrt 3, 0]]).

def onehot n (i: i64) : [n]f64 = tabulate n (\j -> f64.bool (i == j))

-- dpsolve_tests.fut's function: an array literal of scalar expressions.
def bellman (x: [2]f64) : [2]f64 = [f64.sqrt x[1], f64.sqrt (1 - x[0] ** 2)]

-- ==
-- entry: bellman_jvp_cols bellman_vjp_rows bellman_map_jvp bellman_map_vjp
-- input { [0.5, 0.25] }
-- output { [[0.0, 1.0], [-0.5773502691896258, 0.0]] }
entry bellman_jvp_cols (x: [2]f64) = tabulate 2 (jvp bellman x <-< onehot 2) |> transpose
entry bellman_vjp_rows (x: [2]f64) = tabulate 2 (vjp bellman x <-< onehot 2)
entry bellman_map_jvp (x: [2]f64) = map (\v -> jvp bellman x v) (tabulate 2 (onehot 2)) |> transpose
entry bellman_map_vjp (x: [2]f64) = map (\v -> vjp bellman x v) (tabulate 2 (onehot 2))

-- The literal itself differentiated (not in a map): the sweep's rule.
-- ==
-- entry: bellman_jvp
-- input { [0.5, 0.25] [1.0, 2.0] }
-- output { [2.0, -0.5773502691896258] }
entry bellman_jvp (x: [2]f64) (v: [2]f64) = jvp bellman x v

-- ==
-- entry: bellman_vjp
-- input { [0.5, 0.25] [1.0, 2.0] }
-- output { [-0.5773502691896258, 2.0] }
entry bellman_vjp (x: [2]f64) (v: [2]f64) = vjp bellman x (reverse v)

-- An inner map, a reduction and a captured active scalar.
def squash [n] (x: [n]f64) : [n]f64 =
  let s = f64.sum (map (\a -> a * a) x)
  in map (\a -> a / (1 + s)) x

-- ==
-- entry: squash_jvp squash_vjp
-- input { [1.0, 2.0, 0.5] }
-- output { [[0.1088, -0.1024, -0.0256], [-0.1024, -0.0448, -0.0512], [-0.0256, -0.0512, 0.1472]] }
entry squash_jvp (x: [3]f64) = tabulate 3 (jvp squash x <-< onehot 3)
entry squash_vjp (x: [3]f64) = tabulate 3 (vjp squash x <-< onehot 3)

-- A literal of arrays, an inner map, and a partial application to a
-- constant of the derivative.
def stack (c: f64) (x: [2]f64) : [3][2]f64 = [x, map (* c) x, [x[0] * x[1], c]]

-- ==
-- entry: stack_jvp stack_vjp
-- input { [3.0, 5.0] }
-- output { [[[1.0, 0.0], [2.0, 0.0], [5.0, 0.0]], [[0.0, 1.0], [0.0, 2.0], [3.0, 0.0]]] }
entry stack_jvp (x: [2]f64) = tabulate 2 (jvp (stack 2) x <-< onehot 2)
entry stack_vjp (x: [2]f64) =
  -- One vjp per entry of the result (a one-hot adjoint), regrouped by x's index.
  let rows = map (\k -> vjp (stack 2) x (tabulate_2d 3 2 (\r c -> f64.bool (r * 2 + c == k)))) (iota 6)
  in tabulate 2 (\i -> tabulate_2d 3 2 (\r c -> rows[r * 2 + c][i]))

-- A loop with a literal body: forward mode generates a loop over (value,
-- tangent) pairs; reverse mode (no loop rule in the vjp transformation yet)
-- runs on the reference backend, with the same values.
def iter (x: [2]f64) : [2]f64 =
  loop y = x for i < 3 do [y[0] * y[1] + f64.i64 i, f64.sin y[0]]

-- ==
-- entry: iter_jvp iter_vjp
-- input { [0.5, 1.5] }
-- output { [[2.431010686082902, 0.6607883230347038], [0.28876994636677683, 0.05025816855817685]] }
entry iter_jvp (x: [2]f64) = tabulate 2 (jvp iter x <-< onehot 2) |> transpose
entry iter_vjp (x: [2]f64) = tabulate 2 (vjp iter x <-< onehot 2)

-- A while loop whose trip count depends on the primal.
-- ==
-- entry: doubling_jvp
-- input { [0.5, 1.5] }
-- output { [[32.0, 0.0], [0.0, 32.0]] }
def doubling (x: [2]f64) : [2]f64 = loop y = x while y[0] < 10 do map (* 2) y
entry doubling_jvp (x: [2]f64) = tabulate 2 (jvp doubling x <-< onehot 2)

-- A captured active array gathered at a literal index in a mapped lambda.
-- ==
-- entry: gather_lit_vjp
-- input { [1.0, 2.0, 3.0] [1.0, 0.5, 2.0] }
-- output { [23.0, 2.0, 12.0] }
entry gather_lit_vjp (x: [3]f64) (v: [3]f64) = vjp (\(x: [3]f64) -> map (\a -> a * a * x[0]) x) x v
