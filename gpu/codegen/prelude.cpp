#include "gpu/codegen/prelude.hpp"

#include <string>

namespace thorn::gpu::cg {

// The host dialect's native kernels (interp/exec/native) share the typedefs
// and the scalar helpers; only the CUDA-specific parts (PTX, atomics,
// shuffles) stay here.
std::string_view scalar_types() {
  return R"CUDA(typedef signed char i8;
typedef short i16;
typedef int i32;
typedef long long i64;
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef float f16;  // registers: a float holding a value exact in half precision
typedef float f32;
typedef double f64;
typedef unsigned short thorn_half;  // memory: IEEE half bits
)CUDA";
}

std::string_view scalar_helpers() {
  return R"CUDA(// -- Futhark's signed division (rounds toward negative infinity) and modulo
// (sign of the divisor). Division by zero yields 0 here: the kernel IR guards
// divisions with a Check that reports it. MIN / -1 wraps instead of trapping.
template <class T> THORN_DEV T thorn_sdiv(T x, T y) {
  if (y == 0) return 0;
  if (y == (T)-1) return (T)(0ull - (u64)x);
  T q = (T)(x / y), r = (T)(x % y);
  return (T)(q - ((r != 0 && ((r < 0) != (y < 0))) ? 1 : 0));
}
template <class T> THORN_DEV T thorn_smod(T x, T y) {
  if (y == 0 || y == (T)-1) return 0;
  T r = (T)(x % y);
  return (T)(r + ((r == 0 || (x > 0 && y > 0) || (x < 0 && y < 0)) ? 0 : y));
}
template <class T> THORN_DEV T thorn_squot(T x, T y) {
  if (y == 0) return 0;
  if (y == (T)-1) return (T)(0ull - (u64)x);
  return (T)(x / y);
}
template <class T> THORN_DEV T thorn_srem(T x, T y) {
  if (y == 0 || y == (T)-1) return 0;
  return (T)(x % y);
}
template <class T> THORN_DEV T thorn_udiv(T x, T y) { return y == 0 ? (T)0 : (T)(x / y); }
template <class T> THORN_DEV T thorn_umod(T x, T y) { return y == 0 ? (T)0 : (T)(x % y); }
// Integer power by squaring, wrapping; the exponent's bits are read unsigned
// (as Futhark's C backends do), so a negative exponent terminates.
template <class U> THORN_DEV U thorn_upow(U x, U y) {
  U res = 1;
  while (y != 0) {
    if (y & 1) res = (U)(res * x);
    y >>= 1;
    x = (U)(x * x);
  }
  return res;
}

// -- float modulo with the sign of the divisor (Futhark's %), remainder with
// the sign of the dividend (%%)
THORN_DEV f32 thorn_fmod32(f32 x, f32 y) { f32 r = fmodf(x, y); return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r; }
THORN_DEV f64 thorn_fmod64(f64 x, f64 y) { f64 r = fmod(x, y); return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r; }
THORN_DEV f32 thorn_fsignum32(f32 x) { return x != x ? x : (f32)((x > 0) - (x < 0)); }
THORN_DEV f64 thorn_fsignum64(f64 x) { return x != x ? x : (f64)((x > 0) - (x < 0)); }
THORN_DEV bool thorn_isinf32(f32 x) { return x == __int_as_float(0x7f800000) || x == __int_as_float(0xff800000); }
THORN_DEV bool thorn_isinf64(f64 x) { return x == __longlong_as_double(0x7ff0000000000000ll) || x == __longlong_as_double((i64)0xfff0000000000000ull); }

// -- float to integer as the host backends convert (interp/core/
// float_to_int.hpp): NaN and the infinities are 0 (as in Futhark); i8..i32,
// u8 and u16 go through i32, i64 and u32 through i64, saturating there, then
// the result wraps to the target width. Explicit bounds, not the conversion
// instruction's saturation, so the host emulator agrees.
THORN_DEV i64 thorn_f2i64(f64 d) {
  if (d != d || thorn_isinf64(d)) return 0;
  if (d >= 9.2233720368547758e18) return 0x7fffffffffffffffll;
  if (d <= -9.2233720368547758e18) return (i64)0x8000000000000000ull;
  return (i64)d;
}
THORN_DEV i32 thorn_f2i32(f64 d) {
  if (d != d || thorn_isinf64(d)) return 0;
  if (d >= 2147483647.0) return 0x7fffffff;
  if (d <= -2147483648.0) return (i32)0x80000000u;
  return (i32)d;
}
THORN_DEV u64 thorn_f2u64(f64 d) {
  if (d != d || thorn_isinf64(d)) return 0ull;
  if (d <= -1.0) return (u64)thorn_f2i64(d);
  if (d >= 1.8446744073709552e19) return 0xffffffffffffffffull;
  return (u64)d;
}

// -- bit counting (Futhark: clz/ctz of zero is the width)
THORN_DEV i32 thorn_ctz32(u32 x, i32 width) { int y = __ffs((int)x); return y == 0 ? width : y - 1; }
THORN_DEV i32 thorn_ctz64(u64 x) { int y = __ffsll((long long)x); return y == 0 ? 64 : y - 1; }

)CUDA";
}

std::string_view cuda_prelude() {
  static const std::string text = [] {
    std::string s = "// ---- thorn prelude\n";
    s += scalar_types();
    s += "#define THORN_DEV __device__ __forceinline__\n";
    // Large kernel-IR subroutines (kir_to_cuda.hpp) stay functions of their own.
    s += "#ifdef THORN_EMULATE\n#define THORN_NOINLINE static\n#else\n#define THORN_NOINLINE __device__ __noinline__\n#endif\n";
    s += R"CUDA(
// -- f16 (PTX cvt, round to nearest even). THORN_EMULATE: the host-side
// kernel emulator of the tests (tests/gpu/emulator) supplies these.
#ifndef THORN_EMULATE
THORN_DEV f32 thorn_h2f(thorn_half h) { f32 f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
THORN_DEV thorn_half thorn_f2h(f32 f) { thorn_half h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
THORN_DEV thorn_half thorn_d2h(f64 d) { thorn_half h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); return h; }
#endif
// Rounds a float result to half precision. Exact for + - * / sqrt: a float
// carries more than twice the half's precision, so double rounding is harmless.
THORN_DEV f16 thorn_rh(f32 f) { return thorn_h2f(thorn_f2h(f)); }
THORN_DEV f16 thorn_rhd(f64 d) { return thorn_h2f(thorn_d2h(d)); }

)CUDA";
    s += scalar_helpers();
    s += R"CUDA(// -- error flag: the first failing Check stores its message number + 1
THORN_DEV void thorn_fail(i32* err, i32 msg) { atomicCAS(err, 0, msg + 1); }

// -- warp shuffles for every register type
#define THORN_FULL_MASK 0xffffffffu
THORN_DEV i32 thorn_shfl_down(i32 v, int d) { return __shfl_down_sync(THORN_FULL_MASK, v, d); }
THORN_DEV u32 thorn_shfl_down(u32 v, int d) { return __shfl_down_sync(THORN_FULL_MASK, v, d); }
THORN_DEV i64 thorn_shfl_down(i64 v, int d) { return __shfl_down_sync(THORN_FULL_MASK, v, d); }
THORN_DEV u64 thorn_shfl_down(u64 v, int d) { return __shfl_down_sync(THORN_FULL_MASK, v, d); }
THORN_DEV f32 thorn_shfl_down(f32 v, int d) { return __shfl_down_sync(THORN_FULL_MASK, v, d); }
THORN_DEV f64 thorn_shfl_down(f64 v, int d) { return __shfl_down_sync(THORN_FULL_MASK, v, d); }
THORN_DEV i8 thorn_shfl_down(i8 v, int d) { return (i8)__shfl_down_sync(THORN_FULL_MASK, (i32)v, d); }
THORN_DEV i16 thorn_shfl_down(i16 v, int d) { return (i16)__shfl_down_sync(THORN_FULL_MASK, (i32)v, d); }
THORN_DEV u8 thorn_shfl_down(u8 v, int d) { return (u8)__shfl_down_sync(THORN_FULL_MASK, (u32)v, d); }
THORN_DEV u16 thorn_shfl_down(u16 v, int d) { return (u16)__shfl_down_sync(THORN_FULL_MASK, (u32)v, d); }
THORN_DEV bool thorn_shfl_down(bool v, int d) { return __shfl_down_sync(THORN_FULL_MASK, (i32)v, d) != 0; }
THORN_DEV i64 thorn_warp_max(i64 v) {
  for (int d = 16; d > 0; d >>= 1) { i64 o = __shfl_xor_sync(THORN_FULL_MASK, v, d); v = o > v ? o : v; }
  return v;
}
// ---- end of prelude
)CUDA";
    return s;
  }();
  return text;
}

}  // namespace thorn::gpu::cg
