-- Size parameters: bound from the arguments, shared between parameters,
-- used in the body and in the return type, and checked at run time.
-- ==
-- entry: dot_entry
-- input { [1, 2, 3] [4, 5, 6] } output { 32 }
-- input { [1, 2, 3] [4, 5] } error: Size mismatch: 3 vs 2

-- ==
-- entry: dims_entry
-- input { [[1, 2, 3], [4, 5, 6]] } output { 2i64 3i64 6i64 }
-- input { empty([0][4]i32) } output { 0i64 4i64 0i64 }

-- ==
-- entry: bad_return
-- input { [1, 2] } error: Function return value does not match shape of declared return type

-- ==
-- entry: coerce
-- input { [1, 2] } output { [1, 2] }
-- input { [1, 2, 3] } error: cannot match shape of type

-- ==
-- entry: take_size
-- input { 2i64 [7, 8, 9] } output { [7, 8] }

def dot [n] (xs: [n]i32) (ys: [n]i32): i32 = reduce (+) 0 (map2 (*) xs ys)
def dims [n] [m] (xss: [n][m]i32) = (n, m, n * m)
def doubled [n] (xs: [n]i32): [n]i32 = xs ++ xs

entry dot_entry [n] (xs: [n]i32) (ys: [n]i32) = dot xs ys
entry dims_entry (xss: [][]i32) = dims xss
entry bad_return (xs: []i32) = doubled xs
entry coerce (xs: []i32) = xs :> [2]i32
entry take_size (k: i64) (xs: []i32) = take k xs

-- ==
-- entry: size_exprs
-- input { [1, 2, 3] } output { [2, 3] [1, 2, 3, 1, 2, 3] }

def tl [n] (xs: [n]i32): [n - 1]i32 = xs[1:]
def twice [n] (xs: [n]i32): [2 * n]i32 = xs ++ xs

entry size_exprs (xs: []i32) = (tl xs, twice xs)
