-- What an anonymous parameter size must keep accepting: it is learnt from
-- its use, and a branch that returns a size computed inside the other
-- branch makes the result existential (not a causality error).
-- ==
-- input { [1i32, -2i32, 3i32] }
-- output { 3i64 2i64 2i64 }

def first3 (xs: []i32) : [3]i32 = xs

def pick (b: bool) (xs: []i32) : []i32 =
  if b then filter (> 0) xs else xs

-- The same with xs unannotated: its size is a variable too.
def pick' (b: bool) xs : []i32 =
  if b then filter (> 0) xs else xs

def main (xs: []i32) = (length (first3 xs), length (pick true xs), length (pick' true xs))
