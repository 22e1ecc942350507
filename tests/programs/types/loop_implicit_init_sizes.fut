-- `loop (b, d) for ...` starts from the outer b and d: the loop's result
-- has their sizes (d keeps [nn]), not open ones that a branch could fix.
-- So the declared `[]` of `f` is not taken to be the then-branch's [1].
-- ==
-- input { [1.0, 2.0, 3.0] [3.0, 4.0, 5.0] } output { 3i64 [3.0, 2.0, 2.0] }

def f [nn] (b: *[]f64, d: *[nn]f64) : ([]f64, []f64) =
  if nn == 1
  then (b, [d[0] / b[0]])
  else let (b, d) =
         loop (b, d) for i < nn - 1 do
           let d[i + 1] = d[i + 1] - b[i + 1]
           in (b, d)
       in (b, d)

def main (b: []f64) (d: []f64) =
  let (b', d') = f (copy b, copy d)
  in (length b', d')
