-- A size expression in a coercion is evaluated with the type, so it may not
-- consume anything.
-- ==
-- error: Consuming "ys", which is not consumable

def main (ys: *[]i32) =
  let zs = replicate 3 0i32 :> [let _ = ys with [0] = 1 in 3]i32
  in (zs, ys)
