-- Derivatives inside mapped functions of closures over the same code with
-- different functions in their environments (`mk mul`, `mk add`), and of
-- functions that call user functions on scalars. The generated derivative
-- code is memoised by its source; it used to be reused for a closure whose
-- environment gave another function (jvp: a wrong answer, the derivative
-- of the first). Expected values: the reference backend.

def mul (a: f64) (b: f64) = a * b
def add (a: f64) (b: f64) = a + b * 3
def mk (op: f64 -> f64 -> f64) = \(a: f64) -> op a a

-- ==
-- entry: forward reverse
-- input { [1.0, 2.0] }
-- output { [2.0, 4.0] [4.0, 4.0] }
entry forward (xs: []f64) = let f = mk mul let g = mk add in (map (\x -> jvp f x 1) xs, map (\x -> jvp g x 1) xs)
entry reverse (xs: []f64) = let f = mk mul let g = mk add in (map (\x -> vjp f x 1) xs, map (\x -> vjp g x 1) xs)

def scaled_sin (a: f64) (b: f64) = a * f64.sin b
def h (a: f64) = scaled_sin a 2.0 + a * scaled_sin 1.0 a

-- ==
-- entry: calls_forward calls_reverse
-- input { [1.0, 2.0, -0.5] }
-- output { [2.291070717501718, 0.9863011805570786, -8.919392723707675e-3] }
entry calls_forward (xs: []f64) = map (\x -> jvp h x 1) xs
entry calls_reverse (xs: []f64) = map (\x -> vjp h x 1) xs
