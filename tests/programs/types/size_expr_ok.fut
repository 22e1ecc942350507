-- Size expressions that are equal after normalisation unify, and names
-- used in size expressions are i64.
-- ==
-- input { 3i64 }
-- output { 8i64 5i64 }

def g n m (_: [n + m]i32) = n + m

def pairs (n: i64) = zip (iota (n + 1)) (iota (1 + n))

def main (k: i64) =
  (i64.sum (map (.1) (pairs k)) + 2, g 2 3 [1, 2, 3, 4, 5])
