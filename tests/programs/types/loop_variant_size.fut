-- A loop parameter whose size the body changes has a fresh, loop-variant
-- size afterwards: not the initial value's.
-- ==
-- error: \[1\]i32

def main (n: i32) : [1]i32 =
  loop xs = replicate 1 0i32 for _i < n do xs ++ xs
