-- A functor's result type specifies a nested module its parameter is bound
-- to (`module Hasher = H`); values of the result use the argument's types
-- (futhark-benchmarks' misc/poseidon). Sealing the nested module by the
-- spec made Hasher.t a type of its own and rejected the program.
-- ==
-- input { 4i64 } output { 6i64 }

module type field = { type t val zero : t val add : t -> t -> t val of : i64 -> t val to : t -> i64 }

module type hasher = { module Field: field val combine : Field.t -> Field.t -> Field.t }

module type builder = {
  module Hasher: hasher
  val leaves : i64
  val root : [leaves]Hasher.Field.t -> Hasher.Field.t
}

module i64_field : field with t = i64 = {
  type t = i64
  def zero = 0i64
  def add (a: i64) (b: i64) = a + b
  def of (x: i64) = x
  def to (x: i64) = x
}

module sum_hasher : hasher with Field.t = i64 = {
  module Field = i64_field
  def combine = Field.add
}

module make_builder (H: hasher) (P: { val leaves : i64 }) : builder = {
  module Hasher = H
  def leaves = P.leaves
  def root (xs: [leaves]Hasher.Field.t) = reduce Hasher.combine Hasher.Field.zero xs
}

module b4 : builder = make_builder sum_hasher { def leaves : i64 = 4 }

def main (n: i64) : i64 =
  let xs = map b4.Hasher.Field.of (iota n) :> [b4.leaves]b4.Hasher.Field.t
  in b4.Hasher.Field.to (b4.root xs)
