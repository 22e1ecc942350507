-- A curried function consuming an array may not be mapped.
-- ==
-- error: Argument of functional type

def f (a: *[]i64) (i: i64) : []i64 =
  let a[i] = 0 in a

def main n =
  let a = iota n
  let b = iota n
  in map (f a) b
