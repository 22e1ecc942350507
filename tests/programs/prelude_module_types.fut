-- The prelude's module types (from_prim, numeric, integral, real, float)
-- used generically: functors over them, and the prelude's numeric modules
-- passed as their arguments.

-- | Complex numbers over any `real`.
module mk_cplx (T: real) = {
  type t = (T.t, T.t)
  def mk (a: T.t) (b: T.t) : t = (a, b)
  def (a, b) + (c, d) : t = (a T.+ c, b T.+ d)
  def (a, b) * (c, d) : t = (a T.* c T.- b T.* d, a T.* d T.+ b T.* c)
  def mag ((a, b): t) : T.t = T.sqrt (a T.* a T.+ b T.* b)
  def arg ((a, b): t) : T.t = T.atan2 b a
  -- e^(i x) = cos x + i sin x
  def cis (x: T.t) : t = (T.cos x, T.sin x)
  def pow (z: t) (n: i32) : t = loop acc = mk (T.i32 1) (T.i32 0) for _i < n do acc * z
}

module c32 = mk_cplx f32
module c64 = mk_cplx f64

-- | A small linear congruential generator over any `integral`.
module lcg (T: integral) (P: { val a : T.t val c : T.t val m : T.t }) = {
  type rng = T.t
  def next (x: rng) : rng = (P.a T.* x T.+ P.c) T.% P.m
  def rand (seed: rng) (n: i64) : [n]T.t =
    let (_, xs) = loop (x, xs) = (seed, replicate n (T.i32 0)) for i < n do
                    let x' = next x in (x', xs with [i] = x')
    in xs
  -- Bits of the state: popcount and the low bit, through `integral`'s bit
  -- operations.
  def bits (x: rng) : (i32, i32) = (T.popc x, T.get_bit 0 x)
}

-- (u64, so that a * x does not wrap before the modulus.)
module minstd = lcg u64 { def a = 48271u64 def c = 0u64 def m = 2147483647u64 }
module tiny = lcg i16 { def a = 5i16 def c = 3i16 def m = 16i16 }

-- | Sums and averages over any `numeric`.
module stats (T: numeric) = {
  def total [n] (xs: [n]T.t) : T.t = T.sum xs
  def spread [n] (xs: [n]T.t) : T.t = T.maximum xs T.- T.minimum xs
  def dot [n] (xs: [n]T.t) (ys: [n]T.t) : T.t = T.sum (map2 (T.*) xs ys)
  def clamp (lo: T.t) (hi: T.t) (x: T.t) : T.t = T.max lo (T.min hi x)
}

module si32 = stats i32
module sf64 = stats f64
module su8 = stats u8

-- | `float`: the bit representation, through the abstract `int_t`.
module bits_of (F: float) = {
  def roundtrip (x: F.t) : bool = F.from_bits (F.to_bits x) F.== x
  def sign_bit (x: F.t) : i32 = F.get_bit (F.num_bits - 1) x
}

module b32 = bits_of f32

-- | `from_prim`, implemented by `bool` too.
module conv (T: from_prim) = {
  def from_all (x: i32) (y: f64) (z: bool) : (T.t, T.t, T.t) = (T.i32 x, T.f64 y, T.bool z)
}

module cb = conv bool
module ci8 = conv i8

-- ==
-- entry: complex
-- input { 3f64 4f64 } output { 5f64 -7f64 24f64 0.9272952180016122f64 }
entry complex (a: f64) (b: f64) =
  let z = c64.mk a b
  let z2 = c64.pow z 2
  in (c64.mag z, z2.0, z2.1, c64.arg z)

-- ==
-- entry: complex32
-- input { 0f32 } output { 1f32 0f32 }
entry complex32 (x: f32) = c32.cis x

-- ==
-- entry: rng
-- input { 1u64 4i64 } output { [48271u64, 182605794u64, 1291394886u64, 1914720637u64] }
entry rng (seed: u64) (n: i64) = minstd.rand seed n

-- ==
-- entry: rng16
-- input { 7i16 5i64 } output { [6i16, 1i16, 8i16, 11i16, 10i16] 3 1 }
entry rng16 (seed: i16) (n: i64) = let (p, b) = tiny.bits seed in (tiny.rand seed n, p, b)

-- ==
-- entry: sums
-- input { [3, 1, 4, 1, 5] [2.5f64, -1f64, 0.5f64] [200u8, 100u8] }
-- output { 14 4 7.5f64 44u8 100u8 4 }
entry sums (xs: []i32) (ys: []f64) (zs: []u8) =
  (si32.total xs, si32.spread xs, sf64.dot ys ys, su8.total zs, su8.spread zs, si32.clamp 0 4 7)

-- ==
-- entry: floats
-- input { -2.5f32 } output { true 1 }
entry floats (x: f32) = (b32.roundtrip x, b32.sign_bit x)

-- ==
-- entry: conversions
-- input { 300 -1.5f64 true } output { true true true 44i8 -1i8 1i8 }
entry conversions (x: i32) (y: f64) (z: bool) =
  let (a, b, c) = cb.from_all x y z
  let (d, e, f) = ci8.from_all x y z
  in (a, b, c, d, e, f)

-- Ascription keeps the types visible (`integral with t = i32`): a prelude
-- module's t is the primitive type itself.
-- ==
-- entry: transparent
-- input { 5 } output { 6 2.0f32 }
entry transparent (x: i32.t) : (i32, f32.t) = (x + 1, f32.sqrt 4)
