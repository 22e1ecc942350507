-- A size bound by `let [k]` is one size: `[k][k]` cannot match `[n][m]`.
-- ==
-- error: "n" and "m" do not match

def main n m =
  let [k] (xss: [k][k]i64) = replicate n (iota m)
  in k
