-- Sizes bound by `let [n]` from values whose sizes are known, existential
-- or given by a later use.
-- ==
-- input { [1, -2, 3] } output { 0i64 2i64 3i64 2i64 }

def main (xs: []i32) =
  let [n][m] (xss: [n][m]i32) = [] : [0][2]i32
  let [k] (ys: [k]i32) = filter (> 0) xs
  let f = \(zs: []i32) -> let [l] (ws: [l]i32) = zs in length ws
  in (n, m + length xss, f xs, k)
