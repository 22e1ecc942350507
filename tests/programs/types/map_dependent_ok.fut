-- Regular uses of dependent functions stay accepted.
-- ==
-- input { 2i64 } output { [0i64, 1i64] [[0i64, 0i64], [1i64, 1i64]] 3i64 }

def upto (k: i64) : [k]i64 = iota k
def main (n: i64) = (n |> upto, map (\k -> replicate 2 k) (iota n), length (upto 3))
