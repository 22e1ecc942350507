-- Exhaustive matches over nested sums, tuples and bools are accepted.
-- ==
-- input { 1 } output { 11 }
-- input { 2 } output { 7 }

type opt 't = #none | #some t
type shape = #circle (opt i32) | #square bool

def area (s: shape) : i32 =
  match s
  case #circle #none -> 0
  case #circle (#some r) -> r + 10
  case #square true -> 7
  case #square false -> 3

def main (x: i32) : i32 =
  if x == 1 then area (#circle (#some 1)) else area (#square true)
