-- A lambda's `[]` return size is the body's size, here n + 1, which the
-- expected function type does not allow.
-- ==
-- error: Sizes "n" and "n \+ 1" do not match

def f (g: (n: i64) -> [n]i64) (l: i64) : i64 =
  (g l)[0]

def main = f (\n : []i64 -> iota (n + 1))
