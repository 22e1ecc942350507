-- Causality: `[]` in a declared return type is existential, computed by
-- each application of `pos`; `f (\_ -> 0)` would need it first.
-- ==
-- error: Causality check

def f [n] (_: [n]i32 -> i32) : [n]i32 -> i64 =
  let m = n + 1
  in \_ -> m

def pos (xs: []i32) : []i32 = filter (> 0) xs

def main (xs: []i32) = f (\_ -> 0) <| pos xs
