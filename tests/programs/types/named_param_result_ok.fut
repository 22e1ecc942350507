-- ==
-- input { 3i64 }
-- output { [0i64,1i64,2i64] }

def ap (f: (n: i64) -> [n]i64) (k: i64) : [k]i64 =
  f k

def main (k: i64) = ap (\m -> iota m) k
