-- Parameters used only in a size expression's applications get their types
-- from them (i32 here), so the entry point is not polymorphic.
-- ==
-- input { 2 2 [1, 2, 3, 4] } output { 4i64 }

def count n m : [i64.i32 n * i64.i32 m]i32 -> i64 = \xs -> length xs
def main n m (xs: []i32) = count n m (xs :> [i64.i32 n * i64.i32 m]i32)
