-- A parametric module ascribed a parametric module type.
-- ==
-- input { 5 } output { 20 }

module type op = {type t val f : t -> t}
module type twice_t = (P: op) -> op with t = P.t
module twice : twice_t = \(P: op) -> {
  type t = P.t
  def f (x: t) = P.f (P.f x)
}
module double = {type t = i32 def f (x: i32) = x * 2}
module quad = twice double
def main (x: i32) = quad.f x
