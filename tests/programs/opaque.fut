-- `opaque` is the identity, on any type, also on arrays and functions.
-- ==
-- input { [1i32, 2i32, 3i32] } output { [2i32, 4i32, 6i32] 6i32 }
def main (xs: []i32) = (map (opaque (* 2)) (opaque xs), opaque (reduce (+) 0 xs))
