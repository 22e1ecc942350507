-- A size-polymorphic constant takes its size from where it is used.
-- ==
-- input { 3i64 } output { [0i64, 1i64, 2i64] [7, 7, 7] }

def count_up [n] : [n]i64 = iota n
def main (x: i64) = unzip (zip count_up (replicate x 7i32))
