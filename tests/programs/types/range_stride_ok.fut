-- A strided range's length is unknown but may be coerced; `0..1..<n` is
-- still [n].
-- ==
-- input { 4i64 }
-- output { [0i64,2i64] [0i64,1i64,2i64,3i64] }

def main (n: i64) : ([]i64, [n]i64) =
  (0..2..<n, 0..1..<n)
