-- Declared with *, or not declared, it is.
-- ==
-- input { [5, 5, 5, 5] } output { [0, 0, 0, 5] [1, 1, 5, 5] }

def main (xs: [4]i32) =
  let a = loop (acc: *[4]i32) = copy xs for i < 3 do acc with [i] = 0
  let b = loop acc = copy xs for i < 2 do acc with [i] = 1
  in (a, b)
