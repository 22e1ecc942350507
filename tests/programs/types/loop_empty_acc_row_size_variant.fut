-- The accumulator's rows are another parameter's, whose row size the body
-- changes: that size is loop-variant, so the result's rows are not `[d]`.
-- ==
-- error: \[\]\[d\]f64

def build [d] [n] (ps: [n][d]f64) : [][d]f64 =
  let (_, r) = loop (w, acc) = (ps, []) for _i < 2 do (map (\r -> r ++ r) w, acc ++ w)
  in r
