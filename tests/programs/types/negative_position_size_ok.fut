-- ==
-- input { }
-- output { 3i64 }

def f [n] (g: [n]i64 -> i64) : i64 = n

def main = f (\(xs: [3]i64) -> xs[0])
