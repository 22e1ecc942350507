-- An argument that is a size expression over a name the function's later
-- parameter also has (`mk (m * 2) m` with `mk (n: i64) (m: i64)`): the
-- checker replaces the argument's size while reading its names (this
-- read freed memory and crashed on diku-dk/linalg's lup tests).
-- ==
-- input { 3i64 } output { 6i64 3i64 }
def mk (n: i64) (m: i64) : [n][m]i32 = replicate n (replicate m 0)
def main (m: i64) = let a = mk (m * 2) m in (length a, length a[0])
