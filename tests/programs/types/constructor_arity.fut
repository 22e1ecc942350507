-- A pattern's constructor takes fewer payloads than the type's.
-- ==
-- error: differ in arity

type shape = #circle f64 | #square f64

def area (s: shape) : f64 =
  match s
  case #circle -> 1
  case #square x -> x * x
