-- A loop parameter whose size the body leaves alone has the initial
-- value's size after the loop (Futhark's checkLoop).
-- ==
-- error: \[10\]i32

def main [n] (xs: *[n]i32) : [10]i32 =
  loop xs for i < n do xs with [i] = xs[i] + 1
