-- Forward mode gives booleans tangents, as Futhark's Fwd.hs does (its
-- tests/ad/not.fut): `!x` has the derivative x (pdUnOp (Neg Bool)), so the
-- tangent of `!x` is x' && x; a short-circuited `&&`/`||` is a constant
-- (no tangent); a conversion converts the tangent; `if` picks a branch by
-- the primal. `!` on an integer is the complement, with derivative `!x`.
-- Also: a type variable instantiated with a unique type is not unique
-- (Futhark's reducebyindexminmax9: the seed of vjp whose function returns
-- `*[]f32` is not consumed).
-- ==
-- entry: not_t
-- input { true true } output { true }
-- input { false true } output { false }
-- input { true false } output { false }

-- ==
-- entry: not_conv
-- input { true } output { 1.0 }
-- input { false } output { 0.0 }

-- ==
-- entry: and_or
-- input { true } output { false false true false }
-- input { false } output { false false false true }

-- ==
-- entry: branch
-- input { true 2.0 } output { 12.0 }
-- input { false 2.0 } output { 1.0 }

-- ==
-- entry: complement
-- input { 5i32 1i32 } output { -6i32 }
-- input { 5i32 2i32 } output { -12i32 }

-- ==
-- entry: unique_seed
-- input { [1f32, 2f32] [3f32, 4f32] } output { [6f32, 8f32] }

entry not_t (x: bool) (t: bool) = jvp (\b -> !b) x t

entry not_conv (x: bool) = jvp (\b -> f64.bool (!b)) x true

-- `a && b` is `if a then b else false`: b's tangent when a holds, else
-- false; `a || b` is `if a then true else b`.
entry and_or (x: bool) =
  ( jvp (\b -> b && true) x true
  , jvp (\b -> b || false) x true
  , jvp (\(a, b) -> a && b) (x, true) (false, true)
  , jvp (\(a, b) -> a || b) (x, true) (false, true) )

entry branch (b: bool) (x: f64) =
  jvp (\(b, x) -> if b then x * x * 1.5 else x * 0.5) (b, x) (true, 2.0)

entry complement (x: i32) (t: i32) = jvp (\v -> !v) x t

def fresh [n] (xs: [n]f32) : *[n]f32 = map (* 2) xs

entry unique_seed [n] (xs: [n]f32) bar = vjp fresh xs bar

-- ==
-- entry: nested
-- input { true } output { true }
-- input { false } output { true }

-- ==
-- entry: op_values
-- input { true true } output { true false }
-- input { true false } output { false false }
-- input { false true } output { true false }

-- The inner tangent of `!c` is c' && c; its tangent with respect to the
-- outer x (c = x, c' = true) is that of true && x: x' && true, whatever x.
entry nested (b: bool) = jvp (\x -> jvp (\c -> !c) x true) b true

-- `(&&)` and `(||)` as function values do not short-circuit: Futhark's
-- partials of LogAnd are (b, a), of LogOr (true, false).
entry op_values (a: bool) (b: bool) =
  ( jvp (\(x, y) -> (&&) x y) (a, b) (true, false)
  , jvp (\(x, y) -> (||) x y) (a, b) (false, true) )
