-- A record update may give an array field another size (Futhark's
-- updateFieldPath: the field takes the new value's type), also through a
-- path of fields.
-- ==
-- input { [1, 2, 3] [4, 5] }
-- output { [4, 5] [4, 5] 2i64 }

def main [n] [m] (xs: [n]i32) (ys: [m]i32) : ([m]i32, [m]i32, i64) =
  let r0 = {xs, inner = {a = xs, k = n}}
  let r1 = r0 with xs = ys
  let r2 = r1 with inner.a = ys
  in (r1.xs, r2.inner.a, length r2.inner.a)
