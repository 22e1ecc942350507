-- A size computed in one branch of an `if` is not known in the other: a
-- hole there needs it before anything computes it.
-- ==
-- error: Causality check

def main (b: bool) (A: []i32) =
  if b then filter (> 0) A else ???
