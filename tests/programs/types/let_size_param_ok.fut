-- ==
-- input { 3i64 }
-- output { 3i64 [3i64,3i64,3i64] }

def main n =
  let [k] (xss: [k][k]i64) = replicate n (replicate n n)
  in (k, map (\r -> r[0]) xss)
