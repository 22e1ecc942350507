-- A module type may specify a parametric module (`module T: S1 -> S2`): a
-- module matching it defines one, and a functor whose parameter has that
-- module type may apply it.
-- ==
-- input { 3 } output { 12 5.0 }

module type binop = {val f : i32 -> i32 -> i32}
module type unop = {val g : i32 -> i32}
module type has_T = {module T: binop -> unop}

module twice_of : has_T = {
  module T (P: binop) : unop = {def g (x: i32) = P.f x x}
}

module plus : binop = {def f (x: i32) (y: i32) = x + y}

module use (P: has_T) = {
  module I = P.T plus
  def g (x: i32) = I.g x
}

module U = use twice_of

module type reducer = {
  module Reduce: (X: {type t val ne : t}) -> {val run : i32 -> X.t}
}

module R : reducer = {
  module Reduce (X: {type t val ne : t}) : {val run : i32 -> X.t} = {
    def run (_n: i32) : X.t = copy X.ne
  }
}

module RF = R.Reduce {type t = f64 def ne = 5f64}

def main (x: i32) = (plus.f x x + U.g x, RF.run x)
