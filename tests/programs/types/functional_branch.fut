-- Functions may not be returned from if-expressions.
-- ==
-- error: if-results may not be of function type

def f (x: i32) : i32 = x + x
def g (x: i32) : i32 = x + 1

def main (b: bool) (n: i32) : i32 = (if b then f else g) n
