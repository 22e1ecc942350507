-- Branches of different sizes give an existential size, which is not the
-- declared constant one.
-- ==
-- error: \[p\].*\[q\]

def pick (c: bool) (p: i64) (q: i64) : [3]i64 =
  if c then iota p else iota q
