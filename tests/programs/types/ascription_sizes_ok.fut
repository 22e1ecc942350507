-- Anonymous sizes in ascriptions take the expression's sizes.
-- ==
-- input { 3i64 }
-- output { [0i64,1i64,2i64] 3i64 }

def main (n: i64) : ([n]i64, i64) =
  let xs = iota n : []i64
  let f = \(k: i64) : []i64 -> iota k
  in (xs, length (f n))
