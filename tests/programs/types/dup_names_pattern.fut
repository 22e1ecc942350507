-- Twice in one tuple pattern.
-- ==
-- error: Name "v" also bound at

def main (x: i32) : i32 =
  let (v, v) = (x, x + 1)
  in v
