-- A size parameter must be the size of some parameter (or, as in current
-- Futhark's `rep`, of the result).
-- ==
-- error: Size \[n\] unused in pattern

def f [n] (x: i32) = x

def main (x: i32) = f x
