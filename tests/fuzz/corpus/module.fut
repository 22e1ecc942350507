module type S = { type t val f : t -> t include T module M : U }
module M : S with t = i32 = { type t = i32 def f x = x }
module F (P: S) = { open P def g = f }
module G = F(M)
module H = \(P: S) : S -> P
local open import "foo"
