-- A size bound by `let [n]` may also appear in a function type when an
-- array of the pattern has it.
-- ==
-- input { [1, 2, 3] } output { 3i64 6 }

def main (ys: []i32) =
  let [n] (xs: [n]i32, f: [n]i32 -> i32) = (ys, \(zs: [n]i32) -> i32.sum zs)
  in (n, f xs)
