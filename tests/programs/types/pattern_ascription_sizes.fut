-- A pattern's ascription is checked statically against the pattern inside
-- it: two size parameters may not name the same dimension.
-- ==
-- error: Sizes "m" and "n" do not match

def f [n] [m] ((_, elems: [n]i64): (i64, [m]i64)) : i64 =
  n + m + elems[0]

def main (x: i64, y: []i64) : i64 = f (x, y)
