-- A type parameter does not support equality.
-- ==
-- error: does not support equality

def f 't (x: t) = x == x

def main (x: i32) = f x
