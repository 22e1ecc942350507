-- A tuple pattern with fewer elements than the value.
-- ==
-- error: pattern cannot match

def main (x: i32) =
  let (a, b) = (x, x, x)
  in a + b
