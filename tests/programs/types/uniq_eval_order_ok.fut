-- Accepted: nothing held is consumed later, and a let-bound partial
-- application may consume a fresh argument.
-- ==
-- input { 2 } output { 0 [0i32, 2i32, 2i32] }

def zero (xs: *[]i32) (i: i32) = xs with [i] = 0

def main (x: i32) =
  let xs = replicate 3 x
  let f = zero (copy xs)
  let pair = (xs[0], xs with [0] = 5)
  in (pair.0 - 2, f 0)
