-- The size of an unannotated parameter of one definition, left inside its
-- result's size expression (`[m + m]` of `xs ++ xs`), is not checked
-- against the bindings of a later definition that uses it.
-- ==
-- input { [1.0, 2.0] } output { 4i64 }

def f (xs: []f64) = xs ++ xs

def cotangents (n: i64) = tabulate (n + n) (\i -> replicate (n + n) 0f64 with [i] = 1)

def main [n] (xs: [n]f64) = length (map (vjp f xs) (cotangents n))
