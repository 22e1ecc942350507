-- The indexed array is held while the index is evaluated.
-- ==
-- error: Using variable "xs", but this was consumed

def main (xs: *[]i32) = xs[let ys = xs with [0] = 5 in ys[1]]
