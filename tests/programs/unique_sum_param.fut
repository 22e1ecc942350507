-- A unique parameter of a sum type (`*sum`) makes its payload's arrays
-- unique: a payload may be returned as a unique result, and updated.
-- ==
-- input { [1, 2, 3] } output { [7, 2, 3] [1, 2, 3] }

type^ sum = #foo ([]i32) | #bar ([]i32)

def take (v: *sum) : *[]i32 =
  match v
  case #foo arr -> arr
  case #bar arr -> arr

def main (xs: []i32) =
  let ys = take (#foo (copy xs))
  in (ys with [0] = 7, take (#bar (copy xs)))
