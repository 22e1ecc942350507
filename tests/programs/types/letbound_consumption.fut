-- A partial application that consumes, bound by let, could be called twice.
-- ==
-- error: contains-consumption

def set (xs: *[]f32) (i: i64) (v: f32) = xs with [i] = v

def main (arr: *[]f32) =
  let g = set arr
  in g 0 1
