-- A tuple component to the left is held while the ones after it are
-- evaluated, so they may not consume it.
-- ==
-- error: Using variable "xs", but this was consumed

def main (xs: *[]i32) = (xs, let _ = xs with [0] = 5 in 0i32)
