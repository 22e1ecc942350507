-- A size parameter used only in the inferred result type (no return type
-- declared) is accepted, as Futhark does (adbench's onehot library:
-- `def resize [n][m] 'a (gen: gen [n] a) = {size = witness m, gen = gen.gen}`).
-- ==
-- input { 1i64 } output { 3i64 0i64 }
def witness x = [] : [0][x]()
def resize [n][m] 'a (g: {size: [0][n](), gen: i64 -> a}) = {size = witness m, gen = g.gen}
def main (x: i64) =
  let r : {size: [0][5](), gen: i64 -> i64} = resize {size = witness 3, gen = \i -> i + x}
  in (r.gen 2, length r.size)
