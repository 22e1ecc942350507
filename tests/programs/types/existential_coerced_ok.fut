-- The same with :> is fine; the sizes are checked when it runs.
-- ==
-- input { [1, 2, 3, 4] } output { [1, 2, 3, 4] }
-- input { [1, -2, 3, 4] } error: .

def positives (xs: []i32) : []i32 = filter (> 0) xs
def main (xs: [4]i32) : [4]i32 = positives xs :> [4]i32
