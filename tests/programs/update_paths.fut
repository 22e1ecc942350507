-- In-place updates through record fields and tuple components, then indices:
-- `r with x.y[i] = v` and `let r.x.y[i] = v`.
-- ==
-- input { [5, 6, 7] } output { [1, 0, 7] [9, 6, 7] 3 }
def main (u: *[3]i32) =
  let r = {x = {y = copy u}, n = 3}
  let r.x.y[0] = 1
  let t = (copy u, 2)
  let t = t with 0[0] = 9
  let n = r.n
  let s = r with x.y[1] = 0
  in (s.x.y, t.0, n)
