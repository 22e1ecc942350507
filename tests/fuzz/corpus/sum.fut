-- ==
-- input { [1,2,3] }
-- output { 6 }
def main (xs: []i32) : i32 = reduce (+) 0 xs
