-- A conditional may not return a function.
-- ==
-- error: if-results may not be of function type

def inc (x: i32) = x + 1
def dec (x: i32) = x - 1
def main (c: bool) (x: i32) = (if c then inc else dec) x
