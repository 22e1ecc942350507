-- Values of a sealed nested module's abstract type work with that module's
-- functions, and a refined nested type stays transparent (inside the
-- module type or from outside, `with inner.t = i32`).
-- ==
-- input { 4 } output { 2 5 6 }

module type counter = {type t val zero : t val inc : t -> t val get : t -> i32}
module type MT = {
  module C: counter
  module D: counter with t = i32
}

module M : MT = {
  module C = {type t = i32 def zero = 0 def inc (x: t) = x + 1 def get (x: t) = x}
  module D = C
}

module type has_t = {type t}
module type has_inner = {module inner: has_t}
module N : has_inner with inner.t = i32 = {module inner = {type t = i32}}

def main (x: i32) = (M.C.get (M.C.inc (M.C.inc M.C.zero)), M.D.inc x, (x + 2 : N.inner.t))
