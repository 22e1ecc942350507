-- A loop may swap its observed parameters, so each part of the result may
-- be any value returned for an observed parameter.
-- ==
-- error: Consuming "ys", which is not consumable

def main (xs: []i32) (ys: []i32) =
  let (_, b) = loop (a, b) = (copy xs, copy xs) for _i < 2 do (ys, a)
  let b[0] = 1
  in (b, ys)
