-- A size parameter that no parameter's type names is still used when the
-- body unifies a parameter's `[]` with it (Futhark checks after inference):
-- `xs: []f64` zipped with `iota n` is [n]f64.
-- ==
-- input { [1.0, 5.0, -1.0, 3.0] }
-- output { -1.0 2i64 }
-- input { empty([0]f64) }
-- output { f64.inf 0i64 }

def argmin [n] (xs: []f64) : (f64, i64) =
  reduce_comm (\(vx, ix) (vy, iy) ->
                 if vx < vy || (vx == vy && ix < iy) then (vx, ix) else (vy, iy))
              (f64.highest, n)
              (zip xs (iota n))

def main (xs: []f64) = argmin xs
