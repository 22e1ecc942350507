-- A size parameter must be the size of some parameter.
-- ==
-- error: Size \[n\] unused in pattern

def f [n] (x: i32) : [n]i32 = replicate n x

def main (x: i32) = f x
