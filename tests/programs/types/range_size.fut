-- An i64 range between size expressions has the size Futhark gives it:
-- `0..<(n + 1)` is [n + 1], which is not [n].
-- ==
-- error: n \+ 1

def main (n: i64) : [n]i64 =
  0..<(n + 1)
