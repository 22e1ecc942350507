-- A range with a stride has an unknown length (Futhark's range_dim).
-- ==
-- error: unknown length of range

def main (n: i64) : [n]i64 =
  1..2..<n + 1
