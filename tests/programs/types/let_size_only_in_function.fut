-- A size bound by `let [n]` must be the size of a concrete value in the
-- pattern: inside a function type only, it cannot be taken from the value.
-- ==
-- error: Cannot bind \[n\]

def main =
  let [n] (f: [n]bool -> [n]bool) = (\(xs: [10]bool) -> xs)
  in n
