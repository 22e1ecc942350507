-- An argument whose size the entry point does not accept is an error of
-- the run, which a case expecting an error gets (as a compiled Futhark
-- program fails when it starts).
-- ==
-- input { [1, 2, 3] } output { [2, 4, 6] }
-- input { [1, 2] } error:
-- input { [1, 2, 3, 4] } error: expected \[3\]i32

def main (xs: [3]i32) : [3]i32 =
  map (* 2) xs
