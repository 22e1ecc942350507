-- A size bound by `let [m]` that the value does not determine (the rows
-- of an empty array literal) is ambiguous.
-- ==
-- error: Ambiguous size "m"

def main =
  let [n][m] (xss: [n][m]i64) = []
  in (n, m)
