-- Arguments are evaluated right to left; a later-evaluated argument may
-- not consume what an earlier-evaluated one holds.
-- ==
-- error: Using variable "xs", but this was consumed

def f (a: []i32) (b: []i32) = map2 (+) a b

def main (xs: *[]i32) = f (xs with [0] = 5) xs
