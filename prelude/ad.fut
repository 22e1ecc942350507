-- | Automatic differentiation, as in Futhark's prelude. thorn differentiates
-- on the reference path: forward mode by dual numbers, reverse mode by a tape
-- (interp/eval/ad.hpp). Numbers carry derivatives (integers too); booleans do not.

import "soacs"

-- | Forward mode: `jvp2 f x x'` is `(f x, d)` where `d` is the derivative
-- of `f` at `x` in the direction `x'` (one column of the Jacobian when `x'`
-- is a unit vector).
def jvp2 'a 'b (f: a -> b) (x: a) (x': a): (b, b) = __intrinsic "jvp2" f x x'

-- | Reverse mode: `vjp2 f x y'` is `(f x, y' J)` where `J` is the Jacobian
-- of `f` at `x` (one row of it when `y'` is a unit vector).
def vjp2 'a 'b (f: a -> b) (x: a) (y': b): (b, a) = __intrinsic "vjp2" f x y'

-- | `jvp2` without the result of `f`.
def jvp 'a 'b (f: a -> b) (x: a) (x': a): b = (jvp2 f x x').1

-- | `vjp2` without the result of `f`.
def vjp 'a 'b (f: a -> b) (x: a) (y': b): a = (vjp2 f x y').1

-- | Jacobian-Matrix Product, returning also the primal result: `jvp2` for
-- each seed in `x'`, semantically a map of `jvp2` (as Futhark defines it),
-- but vector AD: thorn runs the primal once (interp/eval/ad.cpp).
def jmp2 'a 'b [n] (f: a -> b) (x: a) (x': [n]a): (b, [n]b) =
  if n == 0 then (f x, map (\t -> (jvp2 f x t).1) x') else __intrinsic "jmp2" f x x'

-- | Matrix-Jacobian Product, returning also the primal result: `vjp2` for
-- each seed in `y'`; one forward sweep, one return sweep per seed.
def mjp2 'a 'b [n] (f: a -> b) (x: a) (y': [n]b): (b, [n]a) =
  if n == 0 then (f x, map (\s -> (vjp2 f x s).1) y') else __intrinsic "mjp2" f x y'

-- | Jacobian-Matrix Product: `jvp` for each seed.
def jmp 'a 'b [n] (f: a -> b) (x: a) (x': [n]a): [n]b = (jmp2 f x x').1

-- | Matrix-Jacobian Product: `vjp` for each seed.
def mjp 'a 'b [n] (f: a -> b) (x: a) (y': [n]b): [n]a = (mjp2 f x y').1

-- | Custom reverse-mode derivative: `with_vjp f f' x` is `f x`; in the
-- return sweep of a `vjp`, `f'` is called with the result of `f` and its
-- adjoint and returns the adjoint of `x` (in place of differentiating `f`).
-- Free variables of `f` get no adjoint. Forward mode differentiates `f`.
def with_vjp 'a 'b (f: a -> b) (f': b -> b -> a) (x: a): b = __intrinsic "with_vjp" f f' x

-- | `with_vjp` with the intermediate result `c` that the adjoint code needs
-- kept apart from the primal result `b`.
def with_vjp_tape 'a 'b 'c (f: a -> (c, b)) (f': (c, b) -> a) (x: a): b =
  (with_vjp f (\(tape, _) (_, adj) -> f' (tape, adj)) x).1
