#pragma once
// Float to integer conversion, one definition for the reference evaluator
// (Scalar::convert_to), the host kernels (host_semantics.hpp) and, spelled in
// CUDA, the GPU and native prelude (gpu/codegen/prelude.cpp).
//
// Futhark (rts/c/scalar.h) truncates toward zero and maps NaN and the
// infinities to 0; a finite value outside the target's range is whatever C's
// cast gives. On x86 that cast goes through a 32-bit conversion for i8..i32,
// u8 and u16 (so 300.0 -> u8 is 44, -1.0 -> u8 is 255) and a 64-bit one for
// i64 and u32, and an overflowing conversion gives the "integer indefinite"
// INT_MIN, where a GPU saturates. thorn follows the same path through i32 or
// i64 but saturates there, as the GPU does: defined everywhere, and
// `i32.f32 1e20` is a large number (2147483647), not 0 or -1. Futhark's
// map_tridag_par test depends on that.
#include <cmath>
#include <cstdint>
#include <limits>

namespace thorn {

// Truncated, saturated to i64; NaN and the infinities give 0.
inline int64_t float_to_i64_sat(double v) {
  if (std::isnan(v) || std::isinf(v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return int64_t(v);
}

// Truncated, saturated to i32; NaN and the infinities give 0.
inline int32_t float_to_i32_sat(double v) {
  if (std::isnan(v) || std::isinf(v)) return 0;
  if (v >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  if (v <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  return int32_t(v);
}

// u64: values from -1 down wrap through i64 (-1.0 is 2^64-1, as in C on
// x86); values beyond u64 saturate.
inline uint64_t float_to_u64_sat(double v) {
  if (std::isnan(v) || std::isinf(v)) return 0;
  if (v <= -1.0) return uint64_t(float_to_i64_sat(v));
  if (v >= 1.8446744073709552e19) return std::numeric_limits<uint64_t>::max();
  return uint64_t(v);
}

// The conversion's bits before wrapping to a target of `bytes` bytes:
// through i32 for the targets C converts through a 32-bit register.
inline uint64_t float_to_int_bits(double v, int bytes, bool is_unsigned) {
  if (is_unsigned && bytes == 8) return float_to_u64_sat(v);
  if (bytes <= 2 || (bytes == 4 && !is_unsigned)) return uint64_t(int64_t(float_to_i32_sat(v)));
  return uint64_t(float_to_i64_sat(v));
}

}  // namespace thorn
