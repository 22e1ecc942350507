-- A type taken from a module whose sizes name the module's values
-- (`type t = [k]i64` in M) means M's values where it is used: `iota n :>
-- M.t` checks n against M.k, directly, through an abbreviation with a size
-- argument, and through a module type (Futhark's modules/sizeparams1.fut).
-- ==
-- input { 2i64 } output { [0i64, 1i64] [0i64, 1i64] [0i64, 1i64] }
-- input { 1i64 } error: cannot match shape

type ints [n] = [n]i64
module M = { def k = 2i64 type t = [k]i64 type u = ints [k] }
module type MT = { val k : i64 type v = ints [k] }
module N : MT = { def k = 2i64 type v = ints [k] }
def main (n: i64) = (iota n :> M.t, iota n :> M.u, iota n :> N.v)
