-- Using an array after it was consumed by an in-place update (through an
-- alias) is rejected, as in Futhark.
-- ==
-- error: "a", but this was consumed

def main (n: i64) =
  let a = iota n
  let b = a
  let a[0] = 1
  in b
