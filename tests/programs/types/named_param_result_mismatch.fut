-- Two named parameters stand for the same size when function types are
-- unified: their results must agree.
-- ==
-- error: Sizes "n" and "n \+ 1" do not match

def ap (f: (n: i64) -> [n]i64) (k: i64) : [k]i64 =
  f k

def main = ap (\n -> iota (n + 1)) 10
