-- | Basic mathematical modules: one per primitive type, with Futhark's
-- names. Arithmetic operators are the built-in ones at the module's type,
-- so that `reduce i32.+ 0` hands the dispatcher the built-in `+`.

import "soacs"

-- | Values that can be made from every primitive type. Conversions follow
-- Futhark's rules: to `bool`, zero is false; from `bool`, true is 1; integer
-- narrowing truncates bits, widening extends by the source's signedness;
-- float to integer truncates towards zero.
module type from_prim = {
  type t
  val i8 : i8 -> t
  val i16 : i16 -> t
  val i32 : i32 -> t
  val i64 : i64 -> t
  val u8 : u8 -> t
  val u16 : u16 -> t
  val u32 : u32 -> t
  val u64 : u64 -> t
  val f16 : f16 -> t
  val f32 : f32 -> t
  val f64 : f64 -> t
  val bool : bool -> t
}

-- | Operations shared by integers and floats.
module type numeric = {
  include from_prim
  val (+) : t -> t -> t
  val (-) : t -> t -> t
  val (*) : t -> t -> t
  val (/) : t -> t -> t
  val (%) : t -> t -> t
  val (**) : t -> t -> t
  val to_i64 : t -> i64
  val (==) : t -> t -> bool
  val (<) : t -> t -> bool
  val (>) : t -> t -> bool
  val (<=) : t -> t -> bool
  val (>=) : t -> t -> bool
  val (!=) : t -> t -> bool
  val neg : t -> t
  val max : t -> t -> t
  val min : t -> t -> t
  val abs : t -> t
  val sgn : t -> t
  val highest : t
  val lowest : t
  val sum [n] : [n]t -> t
  val product [n] : [n]t -> t
  val maximum [n] : [n]t -> t
  val minimum [n] : [n]t -> t
}

-- | `numeric` with division rounding towards zero and bit operations.
module type integral = {
  include numeric
  val (//) : t -> t -> t
  val (%%) : t -> t -> t
  val (&) : t -> t -> t
  val (|) : t -> t -> t
  val (^) : t -> t -> t
  val not : t -> t
  val (<<) : t -> t -> t
  val (>>) : t -> t -> t
  val (>>>) : t -> t -> t
  val num_bits : i32
  val get_bit : i32 -> t -> i32
  val set_bit : i32 -> t -> i32 -> t
  val popc : t -> i32
  val mul_hi : (x: t) -> (y: t) -> t
  val mad_hi : (a: t) -> (b: t) -> (c: t) -> t
  val clz : t -> i32
  val ctz : t -> i32
}

-- | Numbers that model the reals.
module type real = {
  include numeric
  val recip : t -> t
  val from_fraction : i64 -> i64 -> t
  val to_i64 : t -> i64
  val to_f64 : t -> f64
  val sqrt : t -> t
  val rsqrt : t -> t
  val cbrt : t -> t
  val exp : t -> t
  val sin : t -> t
  val cos : t -> t
  val tan : t -> t
  val sinpi : t -> t
  val cospi : t -> t
  val tanpi : t -> t
  val asin : t -> t
  val acos : t -> t
  val atan : t -> t
  val asinpi : t -> t
  val acospi : t -> t
  val atanpi : t -> t
  val sinh : t -> t
  val cosh : t -> t
  val tanh : t -> t
  val asinh : t -> t
  val acosh : t -> t
  val atanh : t -> t
  val atan2 : t -> t -> t
  val atan2pi : t -> t -> t
  val hypot : t -> t -> t
  val gamma : t -> t
  val lgamma : t -> t
  val erf : t -> t
  val erfc : t -> t
  val lerp : t -> t -> t -> t
  val log : t -> t
  val log2 : t -> t
  val log10 : t -> t
  val log1p : t -> t
  val ceil : t -> t
  val floor : t -> t
  val trunc : t -> t
  val round : t -> t
  val mad : (a: t) -> (b: t) -> (c: t) -> t
  val fma : (a: t) -> (b: t) -> (c: t) -> t
  val isinf : t -> bool
  val isnan : t -> bool
  val inf : t
  val nan : t
  val pi : t
  val e : t
}

-- | `real` with access to the IEEE bit representation.
module type float = {
  include real
  -- | The unsigned integer type with as many bits as `t`.
  type int_t
  val from_bits : int_t -> t
  val to_bits : t -> int_t
  val num_bits : i32
  val get_bit : i32 -> t -> i32
  val set_bit : i32 -> t -> i32 -> t
  val epsilon : t
  val nextafter : (x: t) -> (y: t) -> t
  val ldexp : t -> i32 -> t
  val copysign : (x: t) -> (y: t) -> t
}

-- | Boolean conversions: 0 is false, anything else true.
module bool : from_prim with t = bool = {
  type t = bool
  def i8 (x: i8): bool = __intrinsic "to_bool" x
  def i16 (x: i16): bool = __intrinsic "to_bool" x
  def i32 (x: i32): bool = __intrinsic "to_bool" x
  def i64 (x: i64): bool = __intrinsic "to_bool" x
  def u8 (x: u8): bool = __intrinsic "to_bool" x
  def u16 (x: u16): bool = __intrinsic "to_bool" x
  def u32 (x: u32): bool = __intrinsic "to_bool" x
  def u64 (x: u64): bool = __intrinsic "to_bool" x
  def f16 (x: f16): bool = __intrinsic "to_bool" x
  def f32 (x: f32): bool = __intrinsic "to_bool" x
  def f64 (x: f64): bool = __intrinsic "to_bool" x
  def bool (x: bool): bool = __intrinsic "to_bool" x
}

module i8 : (integral with t = i8) = {
  type t = i8
  def (+) : i8 -> i8 -> i8 = (+)
  def (-) : i8 -> i8 -> i8 = (-)
  def (*) : i8 -> i8 -> i8 = (*)
  def (/) : i8 -> i8 -> i8 = (/)
  def (%) : i8 -> i8 -> i8 = (%)
  def (//) : i8 -> i8 -> i8 = (//)
  def (%%) : i8 -> i8 -> i8 = (%%)
  def (**) : i8 -> i8 -> i8 = (**)
  def (&) : i8 -> i8 -> i8 = (&)
  def (|) : i8 -> i8 -> i8 = (|)
  def (^) : i8 -> i8 -> i8 = (^)
  def (<<) : i8 -> i8 -> i8 = (<<)
  def (>>) : i8 -> i8 -> i8 = (>>)
  def (>>>) : i8 -> i8 -> i8 = (>>>)
  def (==) : i8 -> i8 -> bool = (==)
  def (<) : i8 -> i8 -> bool = (<)
  def (>) : i8 -> i8 -> bool = (>)
  def (<=) : i8 -> i8 -> bool = (<=)
  def (>=) : i8 -> i8 -> bool = (>=)
  def (!=) : i8 -> i8 -> bool = (!=)
  def not (x: i8): i8 = !x
  def neg (x: i8): i8 = -x
  def i8 (x: i8): i8 = __intrinsic "to_i8" x
  def i16 (x: i16): i8 = __intrinsic "to_i8" x
  def i32 (x: i32): i8 = __intrinsic "to_i8" x
  def i64 (x: i64): i8 = __intrinsic "to_i8" x
  def u8 (x: u8): i8 = __intrinsic "to_i8" x
  def u16 (x: u16): i8 = __intrinsic "to_i8" x
  def u32 (x: u32): i8 = __intrinsic "to_i8" x
  def u64 (x: u64): i8 = __intrinsic "to_i8" x
  def f16 (x: f16): i8 = __intrinsic "to_i8" x
  def f32 (x: f32): i8 = __intrinsic "to_i8" x
  def f64 (x: f64): i8 = __intrinsic "to_i8" x
  def bool (x: bool): i8 = __intrinsic "to_i8" x
  def sign (x: u8): i8 = __intrinsic "to_i8" x
  def unsign (x: i8): u8 = __intrinsic "to_u8" x
  def to_i32 (x: i8): i32 = __intrinsic "to_i32" x
  def to_i64 (x: i8): i64 = __intrinsic "to_i64" x
  def abs (x: i8): i8 = __intrinsic "abs" x
  def sgn (x: i8): i8 = __intrinsic "sgn" x
  def max (x: i8) (y: i8): i8 = __intrinsic "max" x y
  def min (x: i8) (y: i8): i8 = __intrinsic "min" x y
  def highest: i8 = 127i8
  def lowest: i8 = highest + 1
  def num_bits: i32 = 8
  def get_bit (bit: i32) (x: i8): i32 = __intrinsic "get_bit" bit x
  def set_bit (bit: i32) (x: i8) (b: i32): i8 = __intrinsic "set_bit" bit x b
  def popc (x: i8): i32 = __intrinsic "popc" x
  def clz (x: i8): i32 = __intrinsic "clz" x
  def ctz (x: i8): i32 = __intrinsic "ctz" x
  def mul_hi (x: i8) (y: i8): i8 = __intrinsic "mul_hi" x y
  def mad_hi (a: i8) (b: i8) (c: i8): i8 = __intrinsic "mad_hi" a b c
  def sum [n] (xs: [n]i8): i8 = reduce (+) 0 xs
  def product [n] (xs: [n]i8): i8 = reduce (*) 1 xs
  def maximum [n] (xs: [n]i8): i8 = reduce max lowest xs
  def minimum [n] (xs: [n]i8): i8 = reduce min highest xs
}

module i16 : (integral with t = i16) = {
  type t = i16
  def (+) : i16 -> i16 -> i16 = (+)
  def (-) : i16 -> i16 -> i16 = (-)
  def (*) : i16 -> i16 -> i16 = (*)
  def (/) : i16 -> i16 -> i16 = (/)
  def (%) : i16 -> i16 -> i16 = (%)
  def (//) : i16 -> i16 -> i16 = (//)
  def (%%) : i16 -> i16 -> i16 = (%%)
  def (**) : i16 -> i16 -> i16 = (**)
  def (&) : i16 -> i16 -> i16 = (&)
  def (|) : i16 -> i16 -> i16 = (|)
  def (^) : i16 -> i16 -> i16 = (^)
  def (<<) : i16 -> i16 -> i16 = (<<)
  def (>>) : i16 -> i16 -> i16 = (>>)
  def (>>>) : i16 -> i16 -> i16 = (>>>)
  def (==) : i16 -> i16 -> bool = (==)
  def (<) : i16 -> i16 -> bool = (<)
  def (>) : i16 -> i16 -> bool = (>)
  def (<=) : i16 -> i16 -> bool = (<=)
  def (>=) : i16 -> i16 -> bool = (>=)
  def (!=) : i16 -> i16 -> bool = (!=)
  def not (x: i16): i16 = !x
  def neg (x: i16): i16 = -x
  def i8 (x: i8): i16 = __intrinsic "to_i16" x
  def i16 (x: i16): i16 = __intrinsic "to_i16" x
  def i32 (x: i32): i16 = __intrinsic "to_i16" x
  def i64 (x: i64): i16 = __intrinsic "to_i16" x
  def u8 (x: u8): i16 = __intrinsic "to_i16" x
  def u16 (x: u16): i16 = __intrinsic "to_i16" x
  def u32 (x: u32): i16 = __intrinsic "to_i16" x
  def u64 (x: u64): i16 = __intrinsic "to_i16" x
  def f16 (x: f16): i16 = __intrinsic "to_i16" x
  def f32 (x: f32): i16 = __intrinsic "to_i16" x
  def f64 (x: f64): i16 = __intrinsic "to_i16" x
  def bool (x: bool): i16 = __intrinsic "to_i16" x
  def sign (x: u16): i16 = __intrinsic "to_i16" x
  def unsign (x: i16): u16 = __intrinsic "to_u16" x
  def to_i32 (x: i16): i32 = __intrinsic "to_i32" x
  def to_i64 (x: i16): i64 = __intrinsic "to_i64" x
  def abs (x: i16): i16 = __intrinsic "abs" x
  def sgn (x: i16): i16 = __intrinsic "sgn" x
  def max (x: i16) (y: i16): i16 = __intrinsic "max" x y
  def min (x: i16) (y: i16): i16 = __intrinsic "min" x y
  def highest: i16 = 32767i16
  def lowest: i16 = highest + 1
  def num_bits: i32 = 16
  def get_bit (bit: i32) (x: i16): i32 = __intrinsic "get_bit" bit x
  def set_bit (bit: i32) (x: i16) (b: i32): i16 = __intrinsic "set_bit" bit x b
  def popc (x: i16): i32 = __intrinsic "popc" x
  def clz (x: i16): i32 = __intrinsic "clz" x
  def ctz (x: i16): i32 = __intrinsic "ctz" x
  def mul_hi (x: i16) (y: i16): i16 = __intrinsic "mul_hi" x y
  def mad_hi (a: i16) (b: i16) (c: i16): i16 = __intrinsic "mad_hi" a b c
  def sum [n] (xs: [n]i16): i16 = reduce (+) 0 xs
  def product [n] (xs: [n]i16): i16 = reduce (*) 1 xs
  def maximum [n] (xs: [n]i16): i16 = reduce max lowest xs
  def minimum [n] (xs: [n]i16): i16 = reduce min highest xs
}

module i32 : (integral with t = i32) = {
  type t = i32
  def (+) : i32 -> i32 -> i32 = (+)
  def (-) : i32 -> i32 -> i32 = (-)
  def (*) : i32 -> i32 -> i32 = (*)
  def (/) : i32 -> i32 -> i32 = (/)
  def (%) : i32 -> i32 -> i32 = (%)
  def (//) : i32 -> i32 -> i32 = (//)
  def (%%) : i32 -> i32 -> i32 = (%%)
  def (**) : i32 -> i32 -> i32 = (**)
  def (&) : i32 -> i32 -> i32 = (&)
  def (|) : i32 -> i32 -> i32 = (|)
  def (^) : i32 -> i32 -> i32 = (^)
  def (<<) : i32 -> i32 -> i32 = (<<)
  def (>>) : i32 -> i32 -> i32 = (>>)
  def (>>>) : i32 -> i32 -> i32 = (>>>)
  def (==) : i32 -> i32 -> bool = (==)
  def (<) : i32 -> i32 -> bool = (<)
  def (>) : i32 -> i32 -> bool = (>)
  def (<=) : i32 -> i32 -> bool = (<=)
  def (>=) : i32 -> i32 -> bool = (>=)
  def (!=) : i32 -> i32 -> bool = (!=)
  def not (x: i32): i32 = !x
  def neg (x: i32): i32 = -x
  def i8 (x: i8): i32 = __intrinsic "to_i32" x
  def i16 (x: i16): i32 = __intrinsic "to_i32" x
  def i32 (x: i32): i32 = __intrinsic "to_i32" x
  def i64 (x: i64): i32 = __intrinsic "to_i32" x
  def u8 (x: u8): i32 = __intrinsic "to_i32" x
  def u16 (x: u16): i32 = __intrinsic "to_i32" x
  def u32 (x: u32): i32 = __intrinsic "to_i32" x
  def u64 (x: u64): i32 = __intrinsic "to_i32" x
  def f16 (x: f16): i32 = __intrinsic "to_i32" x
  def f32 (x: f32): i32 = __intrinsic "to_i32" x
  def f64 (x: f64): i32 = __intrinsic "to_i32" x
  def bool (x: bool): i32 = __intrinsic "to_i32" x
  def sign (x: u32): i32 = __intrinsic "to_i32" x
  def unsign (x: i32): u32 = __intrinsic "to_u32" x
  def to_i32 (x: i32): i32 = __intrinsic "to_i32" x
  def to_i64 (x: i32): i64 = __intrinsic "to_i64" x
  def abs (x: i32): i32 = __intrinsic "abs" x
  def sgn (x: i32): i32 = __intrinsic "sgn" x
  def max (x: i32) (y: i32): i32 = __intrinsic "max" x y
  def min (x: i32) (y: i32): i32 = __intrinsic "min" x y
  def highest: i32 = 2147483647i32
  def lowest: i32 = highest + 1
  def num_bits: i32 = 32
  def get_bit (bit: i32) (x: i32): i32 = __intrinsic "get_bit" bit x
  def set_bit (bit: i32) (x: i32) (b: i32): i32 = __intrinsic "set_bit" bit x b
  def popc (x: i32): i32 = __intrinsic "popc" x
  def clz (x: i32): i32 = __intrinsic "clz" x
  def ctz (x: i32): i32 = __intrinsic "ctz" x
  def mul_hi (x: i32) (y: i32): i32 = __intrinsic "mul_hi" x y
  def mad_hi (a: i32) (b: i32) (c: i32): i32 = __intrinsic "mad_hi" a b c
  def sum [n] (xs: [n]i32): i32 = reduce (+) 0 xs
  def product [n] (xs: [n]i32): i32 = reduce (*) 1 xs
  def maximum [n] (xs: [n]i32): i32 = reduce max lowest xs
  def minimum [n] (xs: [n]i32): i32 = reduce min highest xs
}

module i64 : (integral with t = i64) = {
  type t = i64
  def (+) : i64 -> i64 -> i64 = (+)
  def (-) : i64 -> i64 -> i64 = (-)
  def (*) : i64 -> i64 -> i64 = (*)
  def (/) : i64 -> i64 -> i64 = (/)
  def (%) : i64 -> i64 -> i64 = (%)
  def (//) : i64 -> i64 -> i64 = (//)
  def (%%) : i64 -> i64 -> i64 = (%%)
  def (**) : i64 -> i64 -> i64 = (**)
  def (&) : i64 -> i64 -> i64 = (&)
  def (|) : i64 -> i64 -> i64 = (|)
  def (^) : i64 -> i64 -> i64 = (^)
  def (<<) : i64 -> i64 -> i64 = (<<)
  def (>>) : i64 -> i64 -> i64 = (>>)
  def (>>>) : i64 -> i64 -> i64 = (>>>)
  def (==) : i64 -> i64 -> bool = (==)
  def (<) : i64 -> i64 -> bool = (<)
  def (>) : i64 -> i64 -> bool = (>)
  def (<=) : i64 -> i64 -> bool = (<=)
  def (>=) : i64 -> i64 -> bool = (>=)
  def (!=) : i64 -> i64 -> bool = (!=)
  def not (x: i64): i64 = !x
  def neg (x: i64): i64 = -x
  def i8 (x: i8): i64 = __intrinsic "to_i64" x
  def i16 (x: i16): i64 = __intrinsic "to_i64" x
  def i32 (x: i32): i64 = __intrinsic "to_i64" x
  def i64 (x: i64): i64 = __intrinsic "to_i64" x
  def u8 (x: u8): i64 = __intrinsic "to_i64" x
  def u16 (x: u16): i64 = __intrinsic "to_i64" x
  def u32 (x: u32): i64 = __intrinsic "to_i64" x
  def u64 (x: u64): i64 = __intrinsic "to_i64" x
  def f16 (x: f16): i64 = __intrinsic "to_i64" x
  def f32 (x: f32): i64 = __intrinsic "to_i64" x
  def f64 (x: f64): i64 = __intrinsic "to_i64" x
  def bool (x: bool): i64 = __intrinsic "to_i64" x
  def sign (x: u64): i64 = __intrinsic "to_i64" x
  def unsign (x: i64): u64 = __intrinsic "to_u64" x
  def to_i32 (x: i64): i32 = __intrinsic "to_i32" x
  def to_i64 (x: i64): i64 = __intrinsic "to_i64" x
  def abs (x: i64): i64 = __intrinsic "abs" x
  def sgn (x: i64): i64 = __intrinsic "sgn" x
  def max (x: i64) (y: i64): i64 = __intrinsic "max" x y
  def min (x: i64) (y: i64): i64 = __intrinsic "min" x y
  def highest: i64 = 9223372036854775807i64
  def lowest: i64 = highest + 1
  def num_bits: i32 = 64
  def get_bit (bit: i32) (x: i64): i32 = __intrinsic "get_bit" bit x
  def set_bit (bit: i32) (x: i64) (b: i32): i64 = __intrinsic "set_bit" bit x b
  def popc (x: i64): i32 = __intrinsic "popc" x
  def clz (x: i64): i32 = __intrinsic "clz" x
  def ctz (x: i64): i32 = __intrinsic "ctz" x
  def mul_hi (x: i64) (y: i64): i64 = __intrinsic "mul_hi" x y
  def mad_hi (a: i64) (b: i64) (c: i64): i64 = __intrinsic "mad_hi" a b c
  def sum [n] (xs: [n]i64): i64 = reduce (+) 0 xs
  def product [n] (xs: [n]i64): i64 = reduce (*) 1 xs
  def maximum [n] (xs: [n]i64): i64 = reduce max lowest xs
  def minimum [n] (xs: [n]i64): i64 = reduce min highest xs
}

module u8 : (integral with t = u8) = {
  type t = u8
  def (+) : u8 -> u8 -> u8 = (+)
  def (-) : u8 -> u8 -> u8 = (-)
  def (*) : u8 -> u8 -> u8 = (*)
  def (/) : u8 -> u8 -> u8 = (/)
  def (%) : u8 -> u8 -> u8 = (%)
  def (//) : u8 -> u8 -> u8 = (//)
  def (%%) : u8 -> u8 -> u8 = (%%)
  def (**) : u8 -> u8 -> u8 = (**)
  def (&) : u8 -> u8 -> u8 = (&)
  def (|) : u8 -> u8 -> u8 = (|)
  def (^) : u8 -> u8 -> u8 = (^)
  def (<<) : u8 -> u8 -> u8 = (<<)
  def (>>) : u8 -> u8 -> u8 = (>>)
  def (>>>) : u8 -> u8 -> u8 = (>>>)
  def (==) : u8 -> u8 -> bool = (==)
  def (<) : u8 -> u8 -> bool = (<)
  def (>) : u8 -> u8 -> bool = (>)
  def (<=) : u8 -> u8 -> bool = (<=)
  def (>=) : u8 -> u8 -> bool = (>=)
  def (!=) : u8 -> u8 -> bool = (!=)
  def not (x: u8): u8 = !x
  def neg (x: u8): u8 = -x
  def i8 (x: i8): u8 = __intrinsic "to_u8" x
  def i16 (x: i16): u8 = __intrinsic "to_u8" x
  def i32 (x: i32): u8 = __intrinsic "to_u8" x
  def i64 (x: i64): u8 = __intrinsic "to_u8" x
  def u8 (x: u8): u8 = __intrinsic "to_u8" x
  def u16 (x: u16): u8 = __intrinsic "to_u8" x
  def u32 (x: u32): u8 = __intrinsic "to_u8" x
  def u64 (x: u64): u8 = __intrinsic "to_u8" x
  def f16 (x: f16): u8 = __intrinsic "to_u8" x
  def f32 (x: f32): u8 = __intrinsic "to_u8" x
  def f64 (x: f64): u8 = __intrinsic "to_u8" x
  def bool (x: bool): u8 = __intrinsic "to_u8" x
  def to_i32 (x: u8): i32 = __intrinsic "to_i32" x
  def to_i64 (x: u8): i64 = __intrinsic "to_i64" x
  def abs (x: u8): u8 = __intrinsic "abs" x
  def sign (x: u8): i8 = __intrinsic "to_i8" x
  def unsign (x: i8): u8 = __intrinsic "to_u8" x
  def sgn (x: u8): u8 = __intrinsic "sgn" x
  def max (x: u8) (y: u8): u8 = __intrinsic "max" x y
  def min (x: u8) (y: u8): u8 = __intrinsic "min" x y
  def highest: u8 = 255u8
  def lowest: u8 = 0
  def num_bits: i32 = 8
  def get_bit (bit: i32) (x: u8): i32 = __intrinsic "get_bit" bit x
  def set_bit (bit: i32) (x: u8) (b: i32): u8 = __intrinsic "set_bit" bit x b
  def popc (x: u8): i32 = __intrinsic "popc" x
  def clz (x: u8): i32 = __intrinsic "clz" x
  def ctz (x: u8): i32 = __intrinsic "ctz" x
  def mul_hi (x: u8) (y: u8): u8 = __intrinsic "mul_hi" x y
  def mad_hi (a: u8) (b: u8) (c: u8): u8 = __intrinsic "mad_hi" a b c
  def sum [n] (xs: [n]u8): u8 = reduce (+) 0 xs
  def product [n] (xs: [n]u8): u8 = reduce (*) 1 xs
  def maximum [n] (xs: [n]u8): u8 = reduce max lowest xs
  def minimum [n] (xs: [n]u8): u8 = reduce min highest xs
}

module u16 : (integral with t = u16) = {
  type t = u16
  def (+) : u16 -> u16 -> u16 = (+)
  def (-) : u16 -> u16 -> u16 = (-)
  def (*) : u16 -> u16 -> u16 = (*)
  def (/) : u16 -> u16 -> u16 = (/)
  def (%) : u16 -> u16 -> u16 = (%)
  def (//) : u16 -> u16 -> u16 = (//)
  def (%%) : u16 -> u16 -> u16 = (%%)
  def (**) : u16 -> u16 -> u16 = (**)
  def (&) : u16 -> u16 -> u16 = (&)
  def (|) : u16 -> u16 -> u16 = (|)
  def (^) : u16 -> u16 -> u16 = (^)
  def (<<) : u16 -> u16 -> u16 = (<<)
  def (>>) : u16 -> u16 -> u16 = (>>)
  def (>>>) : u16 -> u16 -> u16 = (>>>)
  def (==) : u16 -> u16 -> bool = (==)
  def (<) : u16 -> u16 -> bool = (<)
  def (>) : u16 -> u16 -> bool = (>)
  def (<=) : u16 -> u16 -> bool = (<=)
  def (>=) : u16 -> u16 -> bool = (>=)
  def (!=) : u16 -> u16 -> bool = (!=)
  def not (x: u16): u16 = !x
  def neg (x: u16): u16 = -x
  def i8 (x: i8): u16 = __intrinsic "to_u16" x
  def i16 (x: i16): u16 = __intrinsic "to_u16" x
  def i32 (x: i32): u16 = __intrinsic "to_u16" x
  def i64 (x: i64): u16 = __intrinsic "to_u16" x
  def u8 (x: u8): u16 = __intrinsic "to_u16" x
  def u16 (x: u16): u16 = __intrinsic "to_u16" x
  def u32 (x: u32): u16 = __intrinsic "to_u16" x
  def u64 (x: u64): u16 = __intrinsic "to_u16" x
  def f16 (x: f16): u16 = __intrinsic "to_u16" x
  def f32 (x: f32): u16 = __intrinsic "to_u16" x
  def f64 (x: f64): u16 = __intrinsic "to_u16" x
  def bool (x: bool): u16 = __intrinsic "to_u16" x
  def to_i32 (x: u16): i32 = __intrinsic "to_i32" x
  def to_i64 (x: u16): i64 = __intrinsic "to_i64" x
  def abs (x: u16): u16 = __intrinsic "abs" x
  def sign (x: u16): i16 = __intrinsic "to_i16" x
  def unsign (x: i16): u16 = __intrinsic "to_u16" x
  def sgn (x: u16): u16 = __intrinsic "sgn" x
  def max (x: u16) (y: u16): u16 = __intrinsic "max" x y
  def min (x: u16) (y: u16): u16 = __intrinsic "min" x y
  def highest: u16 = 65535u16
  def lowest: u16 = 0
  def num_bits: i32 = 16
  def get_bit (bit: i32) (x: u16): i32 = __intrinsic "get_bit" bit x
  def set_bit (bit: i32) (x: u16) (b: i32): u16 = __intrinsic "set_bit" bit x b
  def popc (x: u16): i32 = __intrinsic "popc" x
  def clz (x: u16): i32 = __intrinsic "clz" x
  def ctz (x: u16): i32 = __intrinsic "ctz" x
  def mul_hi (x: u16) (y: u16): u16 = __intrinsic "mul_hi" x y
  def mad_hi (a: u16) (b: u16) (c: u16): u16 = __intrinsic "mad_hi" a b c
  def sum [n] (xs: [n]u16): u16 = reduce (+) 0 xs
  def product [n] (xs: [n]u16): u16 = reduce (*) 1 xs
  def maximum [n] (xs: [n]u16): u16 = reduce max lowest xs
  def minimum [n] (xs: [n]u16): u16 = reduce min highest xs
}

module u32 : (integral with t = u32) = {
  type t = u32
  def (+) : u32 -> u32 -> u32 = (+)
  def (-) : u32 -> u32 -> u32 = (-)
  def (*) : u32 -> u32 -> u32 = (*)
  def (/) : u32 -> u32 -> u32 = (/)
  def (%) : u32 -> u32 -> u32 = (%)
  def (//) : u32 -> u32 -> u32 = (//)
  def (%%) : u32 -> u32 -> u32 = (%%)
  def (**) : u32 -> u32 -> u32 = (**)
  def (&) : u32 -> u32 -> u32 = (&)
  def (|) : u32 -> u32 -> u32 = (|)
  def (^) : u32 -> u32 -> u32 = (^)
  def (<<) : u32 -> u32 -> u32 = (<<)
  def (>>) : u32 -> u32 -> u32 = (>>)
  def (>>>) : u32 -> u32 -> u32 = (>>>)
  def (==) : u32 -> u32 -> bool = (==)
  def (<) : u32 -> u32 -> bool = (<)
  def (>) : u32 -> u32 -> bool = (>)
  def (<=) : u32 -> u32 -> bool = (<=)
  def (>=) : u32 -> u32 -> bool = (>=)
  def (!=) : u32 -> u32 -> bool = (!=)
  def not (x: u32): u32 = !x
  def neg (x: u32): u32 = -x
  def i8 (x: i8): u32 = __intrinsic "to_u32" x
  def i16 (x: i16): u32 = __intrinsic "to_u32" x
  def i32 (x: i32): u32 = __intrinsic "to_u32" x
  def i64 (x: i64): u32 = __intrinsic "to_u32" x
  def u8 (x: u8): u32 = __intrinsic "to_u32" x
  def u16 (x: u16): u32 = __intrinsic "to_u32" x
  def u32 (x: u32): u32 = __intrinsic "to_u32" x
  def u64 (x: u64): u32 = __intrinsic "to_u32" x
  def f16 (x: f16): u32 = __intrinsic "to_u32" x
  def f32 (x: f32): u32 = __intrinsic "to_u32" x
  def f64 (x: f64): u32 = __intrinsic "to_u32" x
  def bool (x: bool): u32 = __intrinsic "to_u32" x
  def to_i32 (x: u32): i32 = __intrinsic "to_i32" x
  def to_i64 (x: u32): i64 = __intrinsic "to_i64" x
  def abs (x: u32): u32 = __intrinsic "abs" x
  def sign (x: u32): i32 = __intrinsic "to_i32" x
  def unsign (x: i32): u32 = __intrinsic "to_u32" x
  def sgn (x: u32): u32 = __intrinsic "sgn" x
  def max (x: u32) (y: u32): u32 = __intrinsic "max" x y
  def min (x: u32) (y: u32): u32 = __intrinsic "min" x y
  def highest: u32 = 4294967295u32
  def lowest: u32 = 0
  def num_bits: i32 = 32
  def get_bit (bit: i32) (x: u32): i32 = __intrinsic "get_bit" bit x
  def set_bit (bit: i32) (x: u32) (b: i32): u32 = __intrinsic "set_bit" bit x b
  def popc (x: u32): i32 = __intrinsic "popc" x
  def clz (x: u32): i32 = __intrinsic "clz" x
  def ctz (x: u32): i32 = __intrinsic "ctz" x
  def mul_hi (x: u32) (y: u32): u32 = __intrinsic "mul_hi" x y
  def mad_hi (a: u32) (b: u32) (c: u32): u32 = __intrinsic "mad_hi" a b c
  def sum [n] (xs: [n]u32): u32 = reduce (+) 0 xs
  def product [n] (xs: [n]u32): u32 = reduce (*) 1 xs
  def maximum [n] (xs: [n]u32): u32 = reduce max lowest xs
  def minimum [n] (xs: [n]u32): u32 = reduce min highest xs
}

module u64 : (integral with t = u64) = {
  type t = u64
  def (+) : u64 -> u64 -> u64 = (+)
  def (-) : u64 -> u64 -> u64 = (-)
  def (*) : u64 -> u64 -> u64 = (*)
  def (/) : u64 -> u64 -> u64 = (/)
  def (%) : u64 -> u64 -> u64 = (%)
  def (//) : u64 -> u64 -> u64 = (//)
  def (%%) : u64 -> u64 -> u64 = (%%)
  def (**) : u64 -> u64 -> u64 = (**)
  def (&) : u64 -> u64 -> u64 = (&)
  def (|) : u64 -> u64 -> u64 = (|)
  def (^) : u64 -> u64 -> u64 = (^)
  def (<<) : u64 -> u64 -> u64 = (<<)
  def (>>) : u64 -> u64 -> u64 = (>>)
  def (>>>) : u64 -> u64 -> u64 = (>>>)
  def (==) : u64 -> u64 -> bool = (==)
  def (<) : u64 -> u64 -> bool = (<)
  def (>) : u64 -> u64 -> bool = (>)
  def (<=) : u64 -> u64 -> bool = (<=)
  def (>=) : u64 -> u64 -> bool = (>=)
  def (!=) : u64 -> u64 -> bool = (!=)
  def not (x: u64): u64 = !x
  def neg (x: u64): u64 = -x
  def i8 (x: i8): u64 = __intrinsic "to_u64" x
  def i16 (x: i16): u64 = __intrinsic "to_u64" x
  def i32 (x: i32): u64 = __intrinsic "to_u64" x
  def i64 (x: i64): u64 = __intrinsic "to_u64" x
  def u8 (x: u8): u64 = __intrinsic "to_u64" x
  def u16 (x: u16): u64 = __intrinsic "to_u64" x
  def u32 (x: u32): u64 = __intrinsic "to_u64" x
  def u64 (x: u64): u64 = __intrinsic "to_u64" x
  def f16 (x: f16): u64 = __intrinsic "to_u64" x
  def f32 (x: f32): u64 = __intrinsic "to_u64" x
  def f64 (x: f64): u64 = __intrinsic "to_u64" x
  def bool (x: bool): u64 = __intrinsic "to_u64" x
  def to_i32 (x: u64): i32 = __intrinsic "to_i32" x
  def to_i64 (x: u64): i64 = __intrinsic "to_i64" x
  def abs (x: u64): u64 = __intrinsic "abs" x
  def sign (x: u64): i64 = __intrinsic "to_i64" x
  def unsign (x: i64): u64 = __intrinsic "to_u64" x
  def sgn (x: u64): u64 = __intrinsic "sgn" x
  def max (x: u64) (y: u64): u64 = __intrinsic "max" x y
  def min (x: u64) (y: u64): u64 = __intrinsic "min" x y
  def highest: u64 = 18446744073709551615u64
  def lowest: u64 = 0
  def num_bits: i32 = 64
  def get_bit (bit: i32) (x: u64): i32 = __intrinsic "get_bit" bit x
  def set_bit (bit: i32) (x: u64) (b: i32): u64 = __intrinsic "set_bit" bit x b
  def popc (x: u64): i32 = __intrinsic "popc" x
  def clz (x: u64): i32 = __intrinsic "clz" x
  def ctz (x: u64): i32 = __intrinsic "ctz" x
  def mul_hi (x: u64) (y: u64): u64 = __intrinsic "mul_hi" x y
  def mad_hi (a: u64) (b: u64) (c: u64): u64 = __intrinsic "mad_hi" a b c
  def sum [n] (xs: [n]u64): u64 = reduce (+) 0 xs
  def product [n] (xs: [n]u64): u64 = reduce (*) 1 xs
  def maximum [n] (xs: [n]u64): u64 = reduce max lowest xs
  def minimum [n] (xs: [n]u64): u64 = reduce min highest xs
}

module f64 : (float with t = f64 with int_t = u64) = {
  type t = f64
  type int_t = u64
  def (+) : f64 -> f64 -> f64 = (+)
  def (-) : f64 -> f64 -> f64 = (-)
  def (*) : f64 -> f64 -> f64 = (*)
  def (/) : f64 -> f64 -> f64 = (/)
  def (%) : f64 -> f64 -> f64 = (%)
  def (**) : f64 -> f64 -> f64 = (**)
  def (==) : f64 -> f64 -> bool = (==)
  def (<) : f64 -> f64 -> bool = (<)
  def (>) : f64 -> f64 -> bool = (>)
  def (<=) : f64 -> f64 -> bool = (<=)
  def (>=) : f64 -> f64 -> bool = (>=)
  def (!=) : f64 -> f64 -> bool = (!=)
  def neg (x: f64): f64 = -x
  def i8 (x: i8): f64 = __intrinsic "to_f64" x
  def i16 (x: i16): f64 = __intrinsic "to_f64" x
  def i32 (x: i32): f64 = __intrinsic "to_f64" x
  def i64 (x: i64): f64 = __intrinsic "to_f64" x
  def u8 (x: u8): f64 = __intrinsic "to_f64" x
  def u16 (x: u16): f64 = __intrinsic "to_f64" x
  def u32 (x: u32): f64 = __intrinsic "to_f64" x
  def u64 (x: u64): f64 = __intrinsic "to_f64" x
  def f16 (x: f16): f64 = __intrinsic "to_f64" x
  def f32 (x: f32): f64 = __intrinsic "to_f64" x
  def f64 (x: f64): f64 = __intrinsic "to_f64" x
  def bool (x: bool): f64 = __intrinsic "to_f64" x
  def from_fraction (x: i64) (y: i64): f64 = __intrinsic "to_f64" x / __intrinsic "to_f64" y
  def to_i64 (x: f64): i64 = __intrinsic "to_i64" x
  def to_f64 (x: f64): f64 = __intrinsic "to_f64" x
  def sqrt (x: f64): f64 = __intrinsic "sqrt" x
  -- | Computed as `1 / sqrt x`, as Futhark's reference backends do.
  def rsqrt (x: f64): f64 = 1 / sqrt x
  def cbrt (x: f64): f64 = __intrinsic "cbrt" x
  def exp (x: f64): f64 = __intrinsic "exp" x
  def log (x: f64): f64 = __intrinsic "log" x
  def log2 (x: f64): f64 = __intrinsic "log2" x
  def log10 (x: f64): f64 = __intrinsic "log10" x
  def log1p (x: f64): f64 = __intrinsic "log1p" x
  def sin (x: f64): f64 = __intrinsic "sin" x
  def cos (x: f64): f64 = __intrinsic "cos" x
  def tan (x: f64): f64 = __intrinsic "tan" x
  def asin (x: f64): f64 = __intrinsic "asin" x
  def acos (x: f64): f64 = __intrinsic "acos" x
  def atan (x: f64): f64 = __intrinsic "atan" x
  def sinh (x: f64): f64 = __intrinsic "sinh" x
  def cosh (x: f64): f64 = __intrinsic "cosh" x
  def tanh (x: f64): f64 = __intrinsic "tanh" x
  def asinh (x: f64): f64 = __intrinsic "asinh" x
  def acosh (x: f64): f64 = __intrinsic "acosh" x
  def atanh (x: f64): f64 = __intrinsic "atanh" x
  def gamma (x: f64): f64 = __intrinsic "gamma" x
  def lgamma (x: f64): f64 = __intrinsic "lgamma" x
  def erf (x: f64): f64 = __intrinsic "erf" x
  def erfc (x: f64): f64 = __intrinsic "erfc" x
  def floor (x: f64): f64 = __intrinsic "floor" x
  def ceil (x: f64): f64 = __intrinsic "ceil" x
  def round (x: f64): f64 = __intrinsic "round" x
  def trunc (x: f64): f64 = __intrinsic "trunc" x
  def abs (x: f64): f64 = __intrinsic "abs" x
  def sgn (x: f64): f64 = __intrinsic "sgn" x
  def recip (x: f64): f64 = __intrinsic "recip" x
  def max (x: f64) (y: f64): f64 = __intrinsic "max" x y
  def min (x: f64) (y: f64): f64 = __intrinsic "min" x y
  def atan2 (x: f64) (y: f64): f64 = __intrinsic "atan2" x y
  def hypot (x: f64) (y: f64): f64 = __intrinsic "hypot" x y
  def copysign (x: f64) (y: f64): f64 = __intrinsic "copysign" x y
  def nextafter (x: f64) (y: f64): f64 = __intrinsic "nextafter" x y
  def ldexp (x: f64) (y: i32): f64 = __intrinsic "ldexp" x y
  def fma (a: f64) (b: f64) (c: f64): f64 = __intrinsic "fma" a b c
  def mad (a: f64) (b: f64) (c: f64): f64 = __intrinsic "mad" a b c
  def lerp (a: f64) (b: f64) (c: f64): f64 = __intrinsic "lerp" a b c
  def isinf (x: f64): bool = __intrinsic "isinf" x
  def isnan (x: f64): bool = __intrinsic "isnan" x
  def to_bits (x: f64): u64 = __intrinsic "to_bits" x
  def from_bits (x: u64): f64 = __intrinsic "from_bits" x
  def num_bits: i32 = 64
  def get_bit (bit: i32) (x: f64): i32 = __intrinsic "get_bit" bit (to_bits x)
  def set_bit (bit: i32) (x: f64) (b: i32): f64 = from_bits (__intrinsic "set_bit" bit (to_bits x) b)
  def inf: f64 = 1f64 / 0f64
  def nan: f64 = 0f64 / 0f64
  def highest: f64 = inf
  def lowest: f64 = -inf
  def epsilon: f64 = 2.220446049250313e-16f64
  def pi: f64 = 3.1415926535897932384626433832795028841971693993751058209749445923078164062f64
  def e: f64 = 2.718281828459045235360287471352662497757247093699959574966967627724076630353f64
  -- | `sin (pi * x)`. The argument is reduced to [0, 1/2] exactly first, so
  -- integers give exactly zero and half-integers exactly one in magnitude.
  def sinpi (x: f64): f64 =
    let a = abs x
    let r = a - 2 * floor (a / 2)
    let (s, r) = if r >= 1 then (-1, r - 1) else (1, r)
    let r = if r > 0.5 then 1 - r else r
    let v = if r == 0.5 then 1 else sin (pi * r)
    in if isinf x || isnan x then nan
       else if v == 0 then copysign 0 x
       else copysign 1 x * s * v
  -- | `cos (pi * x)`, reduced like `sinpi`.
  def cospi (x: f64): f64 =
    let a = abs x
    let r = a - 2 * floor (a / 2)
    let r = if r > 1 then 2 - r else r
    let (s, r) = if r > 0.5 then (-1, 1 - r) else (1, r)
    in if isinf x || isnan x then nan
       else if r == 0.5 then 0
       else s * cos (pi * r)
  -- | `tan (pi * x)`.
  def tanpi (x: f64): f64 = sinpi x / cospi x
  -- | `asin x / pi`.
  def asinpi (x: f64): f64 = asin x / pi
  -- | `acos x / pi`.
  def acospi (x: f64): f64 = acos x / pi
  -- | `atan x / pi`.
  def atanpi (x: f64): f64 = atan x / pi
  -- | `atan2 y x / pi`.
  def atan2pi (y: f64) (x: f64): f64 = atan2 y x / pi
  def sum [n] (xs: [n]f64): f64 = reduce (+) 0 xs
  def product [n] (xs: [n]f64): f64 = reduce (*) 1 xs
  def maximum [n] (xs: [n]f64): f64 = reduce max lowest xs
  def minimum [n] (xs: [n]f64): f64 = reduce min highest xs
}

module f32 : (float with t = f32 with int_t = u32) = {
  type t = f32
  type int_t = u32
  def (+) : f32 -> f32 -> f32 = (+)
  def (-) : f32 -> f32 -> f32 = (-)
  def (*) : f32 -> f32 -> f32 = (*)
  def (/) : f32 -> f32 -> f32 = (/)
  def (%) : f32 -> f32 -> f32 = (%)
  def (**) : f32 -> f32 -> f32 = (**)
  def (==) : f32 -> f32 -> bool = (==)
  def (<) : f32 -> f32 -> bool = (<)
  def (>) : f32 -> f32 -> bool = (>)
  def (<=) : f32 -> f32 -> bool = (<=)
  def (>=) : f32 -> f32 -> bool = (>=)
  def (!=) : f32 -> f32 -> bool = (!=)
  def neg (x: f32): f32 = -x
  def i8 (x: i8): f32 = __intrinsic "to_f32" x
  def i16 (x: i16): f32 = __intrinsic "to_f32" x
  def i32 (x: i32): f32 = __intrinsic "to_f32" x
  def i64 (x: i64): f32 = __intrinsic "to_f32" x
  def u8 (x: u8): f32 = __intrinsic "to_f32" x
  def u16 (x: u16): f32 = __intrinsic "to_f32" x
  def u32 (x: u32): f32 = __intrinsic "to_f32" x
  def u64 (x: u64): f32 = __intrinsic "to_f32" x
  def f16 (x: f16): f32 = __intrinsic "to_f32" x
  def f32 (x: f32): f32 = __intrinsic "to_f32" x
  def f64 (x: f64): f32 = __intrinsic "to_f32" x
  def bool (x: bool): f32 = __intrinsic "to_f32" x
  def from_fraction (x: i64) (y: i64): f32 = __intrinsic "to_f32" x / __intrinsic "to_f32" y
  def to_i64 (x: f32): i64 = __intrinsic "to_i64" x
  def to_f64 (x: f32): f64 = __intrinsic "to_f64" x
  def sqrt (x: f32): f32 = __intrinsic "sqrt" x
  -- | Computed as `1 / sqrt x`, as Futhark's reference backends do.
  def rsqrt (x: f32): f32 = 1 / sqrt x
  def cbrt (x: f32): f32 = __intrinsic "cbrt" x
  def exp (x: f32): f32 = __intrinsic "exp" x
  def log (x: f32): f32 = __intrinsic "log" x
  def log2 (x: f32): f32 = __intrinsic "log2" x
  def log10 (x: f32): f32 = __intrinsic "log10" x
  def log1p (x: f32): f32 = __intrinsic "log1p" x
  def sin (x: f32): f32 = __intrinsic "sin" x
  def cos (x: f32): f32 = __intrinsic "cos" x
  def tan (x: f32): f32 = __intrinsic "tan" x
  def asin (x: f32): f32 = __intrinsic "asin" x
  def acos (x: f32): f32 = __intrinsic "acos" x
  def atan (x: f32): f32 = __intrinsic "atan" x
  def sinh (x: f32): f32 = __intrinsic "sinh" x
  def cosh (x: f32): f32 = __intrinsic "cosh" x
  def tanh (x: f32): f32 = __intrinsic "tanh" x
  def asinh (x: f32): f32 = __intrinsic "asinh" x
  def acosh (x: f32): f32 = __intrinsic "acosh" x
  def atanh (x: f32): f32 = __intrinsic "atanh" x
  def gamma (x: f32): f32 = __intrinsic "gamma" x
  def lgamma (x: f32): f32 = __intrinsic "lgamma" x
  def erf (x: f32): f32 = __intrinsic "erf" x
  def erfc (x: f32): f32 = __intrinsic "erfc" x
  def floor (x: f32): f32 = __intrinsic "floor" x
  def ceil (x: f32): f32 = __intrinsic "ceil" x
  def round (x: f32): f32 = __intrinsic "round" x
  def trunc (x: f32): f32 = __intrinsic "trunc" x
  def abs (x: f32): f32 = __intrinsic "abs" x
  def sgn (x: f32): f32 = __intrinsic "sgn" x
  def recip (x: f32): f32 = __intrinsic "recip" x
  def max (x: f32) (y: f32): f32 = __intrinsic "max" x y
  def min (x: f32) (y: f32): f32 = __intrinsic "min" x y
  def atan2 (x: f32) (y: f32): f32 = __intrinsic "atan2" x y
  def hypot (x: f32) (y: f32): f32 = __intrinsic "hypot" x y
  def copysign (x: f32) (y: f32): f32 = __intrinsic "copysign" x y
  def nextafter (x: f32) (y: f32): f32 = __intrinsic "nextafter" x y
  def ldexp (x: f32) (y: i32): f32 = __intrinsic "ldexp" x y
  def fma (a: f32) (b: f32) (c: f32): f32 = __intrinsic "fma" a b c
  def mad (a: f32) (b: f32) (c: f32): f32 = __intrinsic "mad" a b c
  def lerp (a: f32) (b: f32) (c: f32): f32 = __intrinsic "lerp" a b c
  def isinf (x: f32): bool = __intrinsic "isinf" x
  def isnan (x: f32): bool = __intrinsic "isnan" x
  def to_bits (x: f32): u32 = __intrinsic "to_bits" x
  def from_bits (x: u32): f32 = __intrinsic "from_bits" x
  def num_bits: i32 = 32
  def get_bit (bit: i32) (x: f32): i32 = __intrinsic "get_bit" bit (to_bits x)
  def set_bit (bit: i32) (x: f32) (b: i32): f32 = from_bits (__intrinsic "set_bit" bit (to_bits x) b)
  def inf: f32 = 1f32 / 0f32
  def nan: f32 = 0f32 / 0f32
  def highest: f32 = inf
  def lowest: f32 = -inf
  def epsilon: f32 = 1.1920929e-7f32
  def pi: f32 = 3.1415926535897932384626433832795028841971693993751058209749445923078164062f32
  def e: f32 = 2.718281828459045235360287471352662497757247093699959574966967627724076630353f32
  -- | `sin (pi * x)`. The argument is reduced to [0, 1/2] exactly first, so
  -- integers give exactly zero and half-integers exactly one in magnitude.
  def sinpi (x: f32): f32 =
    let a = abs x
    let r = a - 2 * floor (a / 2)
    let (s, r) = if r >= 1 then (-1, r - 1) else (1, r)
    let r = if r > 0.5 then 1 - r else r
    let v = if r == 0.5 then 1 else sin (pi * r)
    in if isinf x || isnan x then nan
       else if v == 0 then copysign 0 x
       else copysign 1 x * s * v
  -- | `cos (pi * x)`, reduced like `sinpi`.
  def cospi (x: f32): f32 =
    let a = abs x
    let r = a - 2 * floor (a / 2)
    let r = if r > 1 then 2 - r else r
    let (s, r) = if r > 0.5 then (-1, 1 - r) else (1, r)
    in if isinf x || isnan x then nan
       else if r == 0.5 then 0
       else s * cos (pi * r)
  -- | `tan (pi * x)`.
  def tanpi (x: f32): f32 = sinpi x / cospi x
  -- | `asin x / pi`.
  def asinpi (x: f32): f32 = asin x / pi
  -- | `acos x / pi`.
  def acospi (x: f32): f32 = acos x / pi
  -- | `atan x / pi`.
  def atanpi (x: f32): f32 = atan x / pi
  -- | `atan2 y x / pi`.
  def atan2pi (y: f32) (x: f32): f32 = atan2 y x / pi
  def sum [n] (xs: [n]f32): f32 = reduce (+) 0 xs
  def product [n] (xs: [n]f32): f32 = reduce (*) 1 xs
  def maximum [n] (xs: [n]f32): f32 = reduce max lowest xs
  def minimum [n] (xs: [n]f32): f32 = reduce min highest xs
}

module f16 : (float with t = f16 with int_t = u16) = {
  type t = f16
  type int_t = u16
  def (+) : f16 -> f16 -> f16 = (+)
  def (-) : f16 -> f16 -> f16 = (-)
  def (*) : f16 -> f16 -> f16 = (*)
  def (/) : f16 -> f16 -> f16 = (/)
  def (%) : f16 -> f16 -> f16 = (%)
  def (**) : f16 -> f16 -> f16 = (**)
  def (==) : f16 -> f16 -> bool = (==)
  def (<) : f16 -> f16 -> bool = (<)
  def (>) : f16 -> f16 -> bool = (>)
  def (<=) : f16 -> f16 -> bool = (<=)
  def (>=) : f16 -> f16 -> bool = (>=)
  def (!=) : f16 -> f16 -> bool = (!=)
  def neg (x: f16): f16 = -x
  def i8 (x: i8): f16 = __intrinsic "to_f16" x
  def i16 (x: i16): f16 = __intrinsic "to_f16" x
  def i32 (x: i32): f16 = __intrinsic "to_f16" x
  def i64 (x: i64): f16 = __intrinsic "to_f16" x
  def u8 (x: u8): f16 = __intrinsic "to_f16" x
  def u16 (x: u16): f16 = __intrinsic "to_f16" x
  def u32 (x: u32): f16 = __intrinsic "to_f16" x
  def u64 (x: u64): f16 = __intrinsic "to_f16" x
  def f16 (x: f16): f16 = __intrinsic "to_f16" x
  def f32 (x: f32): f16 = __intrinsic "to_f16" x
  def f64 (x: f64): f16 = __intrinsic "to_f16" x
  def bool (x: bool): f16 = __intrinsic "to_f16" x
  def from_fraction (x: i64) (y: i64): f16 = __intrinsic "to_f16" x / __intrinsic "to_f16" y
  def to_i64 (x: f16): i64 = __intrinsic "to_i64" x
  def to_f64 (x: f16): f64 = __intrinsic "to_f64" x
  def sqrt (x: f16): f16 = __intrinsic "sqrt" x
  -- | Computed as `1 / sqrt x`, as Futhark's reference backends do.
  def rsqrt (x: f16): f16 = 1 / sqrt x
  def cbrt (x: f16): f16 = __intrinsic "cbrt" x
  def exp (x: f16): f16 = __intrinsic "exp" x
  def log (x: f16): f16 = __intrinsic "log" x
  def log2 (x: f16): f16 = __intrinsic "log2" x
  def log10 (x: f16): f16 = __intrinsic "log10" x
  def log1p (x: f16): f16 = __intrinsic "log1p" x
  def sin (x: f16): f16 = __intrinsic "sin" x
  def cos (x: f16): f16 = __intrinsic "cos" x
  def tan (x: f16): f16 = __intrinsic "tan" x
  def asin (x: f16): f16 = __intrinsic "asin" x
  def acos (x: f16): f16 = __intrinsic "acos" x
  def atan (x: f16): f16 = __intrinsic "atan" x
  def sinh (x: f16): f16 = __intrinsic "sinh" x
  def cosh (x: f16): f16 = __intrinsic "cosh" x
  def tanh (x: f16): f16 = __intrinsic "tanh" x
  def asinh (x: f16): f16 = __intrinsic "asinh" x
  def acosh (x: f16): f16 = __intrinsic "acosh" x
  def atanh (x: f16): f16 = __intrinsic "atanh" x
  def gamma (x: f16): f16 = __intrinsic "gamma" x
  def lgamma (x: f16): f16 = __intrinsic "lgamma" x
  def erf (x: f16): f16 = __intrinsic "erf" x
  def erfc (x: f16): f16 = __intrinsic "erfc" x
  def floor (x: f16): f16 = __intrinsic "floor" x
  def ceil (x: f16): f16 = __intrinsic "ceil" x
  def round (x: f16): f16 = __intrinsic "round" x
  def trunc (x: f16): f16 = __intrinsic "trunc" x
  def abs (x: f16): f16 = __intrinsic "abs" x
  def sgn (x: f16): f16 = __intrinsic "sgn" x
  def recip (x: f16): f16 = __intrinsic "recip" x
  def max (x: f16) (y: f16): f16 = __intrinsic "max" x y
  def min (x: f16) (y: f16): f16 = __intrinsic "min" x y
  def atan2 (x: f16) (y: f16): f16 = __intrinsic "atan2" x y
  def hypot (x: f16) (y: f16): f16 = __intrinsic "hypot" x y
  def copysign (x: f16) (y: f16): f16 = __intrinsic "copysign" x y
  def nextafter (x: f16) (y: f16): f16 = __intrinsic "nextafter" x y
  def ldexp (x: f16) (y: i32): f16 = __intrinsic "ldexp" x y
  def fma (a: f16) (b: f16) (c: f16): f16 = __intrinsic "fma" a b c
  def mad (a: f16) (b: f16) (c: f16): f16 = __intrinsic "mad" a b c
  def lerp (a: f16) (b: f16) (c: f16): f16 = __intrinsic "lerp" a b c
  def isinf (x: f16): bool = __intrinsic "isinf" x
  def isnan (x: f16): bool = __intrinsic "isnan" x
  def to_bits (x: f16): u16 = __intrinsic "to_bits" x
  def from_bits (x: u16): f16 = __intrinsic "from_bits" x
  def num_bits: i32 = 16
  def get_bit (bit: i32) (x: f16): i32 = __intrinsic "get_bit" bit (to_bits x)
  def set_bit (bit: i32) (x: f16) (b: i32): f16 = from_bits (__intrinsic "set_bit" bit (to_bits x) b)
  def inf: f16 = 1f16 / 0f16
  def nan: f16 = 0f16 / 0f16
  def highest: f16 = inf
  def lowest: f16 = -inf
  def epsilon: f16 = 9.765625e-4f16
  def pi: f16 = 3.1415926535897932384626433832795028841971693993751058209749445923078164062f16
  def e: f16 = 2.718281828459045235360287471352662497757247093699959574966967627724076630353f16
  -- | `sin (pi * x)`. The argument is reduced to [0, 1/2] exactly first, so
  -- integers give exactly zero and half-integers exactly one in magnitude.
  def sinpi (x: f16): f16 =
    let a = abs x
    let r = a - 2 * floor (a / 2)
    let (s, r) = if r >= 1 then (-1, r - 1) else (1, r)
    let r = if r > 0.5 then 1 - r else r
    let v = if r == 0.5 then 1 else sin (pi * r)
    in if isinf x || isnan x then nan
       else if v == 0 then copysign 0 x
       else copysign 1 x * s * v
  -- | `cos (pi * x)`, reduced like `sinpi`.
  def cospi (x: f16): f16 =
    let a = abs x
    let r = a - 2 * floor (a / 2)
    let r = if r > 1 then 2 - r else r
    let (s, r) = if r > 0.5 then (-1, 1 - r) else (1, r)
    in if isinf x || isnan x then nan
       else if r == 0.5 then 0
       else s * cos (pi * r)
  -- | `tan (pi * x)`.
  def tanpi (x: f16): f16 = sinpi x / cospi x
  -- | `asin x / pi`.
  def asinpi (x: f16): f16 = asin x / pi
  -- | `acos x / pi`.
  def acospi (x: f16): f16 = acos x / pi
  -- | `atan x / pi`.
  def atanpi (x: f16): f16 = atan x / pi
  -- | `atan2 y x / pi`.
  def atan2pi (y: f16) (x: f16): f16 = atan2 y x / pi
  def sum [n] (xs: [n]f16): f16 = reduce (+) 0 xs
  def product [n] (xs: [n]f16): f16 = reduce (*) 1 xs
  def maximum [n] (xs: [n]f16): f16 = reduce max lowest xs
  def minimum [n] (xs: [n]f16): f16 = reduce min highest xs
}

-- | Create a single-precision float from an integer.
def r32 (x: i32): f32 = f32.i32 x

-- | Truncate a single-precision float to an integer.
def t32 (x: f32): i32 = i32.f32 x

-- | Create a double-precision float from an integer.
def r64 (x: i32): f64 = f64.i32 x

-- | Truncate a double-precision float to an integer.
def t64 (x: f64): i32 = i32.f64 x
