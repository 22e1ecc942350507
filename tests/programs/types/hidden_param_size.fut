-- A size bound inside a tuple parameter is not accessible to the caller.
-- ==
-- error: "x"

def f (x: i64, _: bool) : [0][x]i32 = []
