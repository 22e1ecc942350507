-- `[]` in a type ascription takes the expression's size, so `[]` below
-- needs the size that `filter` computes after it.
-- ==
-- error: Causality check

def main (xs: []i32) =
  let a = [] : [][]i32
  let b = [filter (> 0) xs]
  in a[0] == b[0]
