-- Causality: `f (\_ -> 0)` is evaluated before `filter`, whose result
-- size f's size parameter stands for.
-- ==
-- error: Causality check: size .* needed for type of

def f [n] (_: [n]i32 -> i32) : [n]i32 -> i64 =
  let m = n + 1
  in \_ -> m

def main (xs: []i32) = f (\_ -> 0) <| filter (> 0) xs
