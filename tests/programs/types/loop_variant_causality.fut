-- A loop-variant size is computed by the loop: a function applied to the
-- loop's result must not need it before the loop runs.
-- ==
-- error: Causality check

def main : []i32 =
  (.0) <| loop (xs: []i32, j) = ([], 0) for i < 10 do (xs ++ xs, j + 1)
