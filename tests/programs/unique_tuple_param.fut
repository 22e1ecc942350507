-- A consuming parameter of tuple type may be passed on to another
-- consuming function whole: its components are distinct (the caller's
-- argument was checked), though they share the parameter's name.
-- ==
-- input { [1, 2] [3, 4] } output { [0, 2] [0, 4] }

def f [n] (x: *([n]i32, [n]i32)) = (x with 0[0] = 0) with 1[0] = 0

def g [n] (x: *([n]i32, [n]i32)) = f x

entry main [n] (x: *[n]i32) (y: *[n]i32) = g (x, y)
