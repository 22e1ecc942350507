#pragma once
// Futhark's operations on primitive scalars, as the reference semantics:
// integer arithmetic wraps at every width; `/` and `%` round toward negative
// infinity (signed), `//` and `%%` toward zero; shifts by at least the width
// give 0 (or the sign for `>>` on signed types); float arithmetic is IEEE in
// the type's own precision (f16 is computed in f32 and rounded, as Futhark's
// backends do); float `%` is C's fmod, as Futhark's compiled code uses.
//
// Errors (division by zero, negative integer exponent) are thrown as
// Error(ErrorKind::Runtime) without a location; callers add theirs.
#include <optional>
#include <string_view>

#include "interp/core/prim.hpp"

namespace thorn::eval {

enum class BuiltinOp : uint8_t {
  Add, Sub, Mul, Div, Mod, Quot, Rem, Pow,
  Eq, Ne, Lt, Gt, Le, Ge,
  LogAnd, LogOr,
  BitAnd, BitOr, BitXor, Shl, Shr, LShr,
};

std::optional<BuiltinOp> builtin_op_from_name(std::string_view name);
std::string_view builtin_op_name(BuiltinOp op);

// Both operands must have the same type (the checker guarantees it);
// comparisons return bool.
Scalar scalar_binop(BuiltinOp op, const Scalar& a, const Scalar& b);

Scalar scalar_neg(const Scalar& a);         // -x (wrapping for integers)
Scalar scalar_not(const Scalar& a);         // !x: logical on bool, complement on integers
bool scalar_equal(const Scalar& a, const Scalar& b);  // IEEE equality for floats
bool scalar_less(const Scalar& a, const Scalar& b);   // false < true for bool

// Named scalar functions used by the prelude's intrinsics: abs, sgn, popc,
// clz, ctz, sqrt, exp, sin, ..., isnan, to_bits, from_bits (one argument),
// min, max, mul_hi, atan2, hypot, nextafter, copysign, ldexp, pow (two),
// mad_hi, fma, mad, lerp (three). Returns nullopt for an unknown name.
std::optional<Scalar> scalar_function(std::string_view name, const Scalar* args, int nargs);

// Futhark's conversion of a scalar to another primitive type (`i32.f64`,
// `f32.u8`, `bool.i32`, ...): integers wrap or extend, floats truncate
// toward zero; NaN and the infinities converted to an integer are 0
// (Scalar::convert_to is the definition all backends share).
Scalar scalar_convert(const Scalar& s, Prim to);

}  // namespace thorn::eval
