-- An argument whose size the entry point does not accept is an error of
-- the run, which a case expecting an error gets (as a compiled Futhark
-- program fails when it starts). The result type fixes the size to 3.
-- ==
-- input { [1, 2, 3] } output { [2, 4, 6] }
-- input { [1, 2] } error:
-- input { [1, 2, 3, 4] } error: expected \[3\]i32

def main (xs: []i32) : [3]i32 =
  map (* 2) xs
