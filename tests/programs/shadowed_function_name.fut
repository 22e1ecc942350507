-- A name bound inside a function that has the function's own name (a
-- match pattern, a let, a lambda parameter) is not a recursive reference:
-- the recursion checker must not ask it to be a saturated application.
-- ==
-- input { 10 } output { 15 12 }

type^ foobar = #foo i32 | #bar (i32 -> i32)

def f (fb: foobar) (x: i32) : i32 =
  match fb
  case #foo y -> x + y
  case #bar f -> f x

def g (h: i32 -> i32) (x: i32) : i32 =
  let g = \y -> h y + 1
  in g x

def main (x: i32) = (f (#bar (+ 5)) x, g (+ 1) x)
