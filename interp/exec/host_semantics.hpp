#pragma once
// Futhark's scalar semantics on native C++ types, for the host executor's
// kernels. Every function here is total: cases Futhark defines as errors
// (division by zero, negative integer exponents) return 0, because the
// flattener guards them with Check instructions that run first.
//
// Register representation of each Prim (RegT<P>): bool as uint8_t (0/1),
// integers natively, f16 as float (rounded to f16 after every operation),
// f32 as float, f64 as double.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "interp/core/float_to_int.hpp"
#include "interp/core/prim.hpp"

namespace thorn::host {

template <Prim P> struct RegTraits;
template <> struct RegTraits<Prim::Bool> { using T = uint8_t; };
template <> struct RegTraits<Prim::I8> { using T = int8_t; };
template <> struct RegTraits<Prim::I16> { using T = int16_t; };
template <> struct RegTraits<Prim::I32> { using T = int32_t; };
template <> struct RegTraits<Prim::I64> { using T = int64_t; };
template <> struct RegTraits<Prim::U8> { using T = uint8_t; };
template <> struct RegTraits<Prim::U16> { using T = uint16_t; };
template <> struct RegTraits<Prim::U32> { using T = uint32_t; };
template <> struct RegTraits<Prim::U64> { using T = uint64_t; };
template <> struct RegTraits<Prim::F16> { using T = float; };
template <> struct RegTraits<Prim::F32> { using T = float; };
template <> struct RegTraits<Prim::F64> { using T = double; };
template <Prim P> using RegT = typename RegTraits<P>::T;

// Bytes one lane of a register of type p occupies.
inline int reg_bytes(Prim p) { return p == Prim::F16 ? 4 : prim_bytes(p); }

// Calls f(std::integral_constant<Prim, P>{}) for the runtime Prim p.
template <class F>
decltype(auto) with_prim(Prim p, F&& f) {
  switch (p) {
    case Prim::Bool: return f(std::integral_constant<Prim, Prim::Bool>{});
    case Prim::I8: return f(std::integral_constant<Prim, Prim::I8>{});
    case Prim::I16: return f(std::integral_constant<Prim, Prim::I16>{});
    case Prim::I32: return f(std::integral_constant<Prim, Prim::I32>{});
    case Prim::I64: return f(std::integral_constant<Prim, Prim::I64>{});
    case Prim::U8: return f(std::integral_constant<Prim, Prim::U8>{});
    case Prim::U16: return f(std::integral_constant<Prim, Prim::U16>{});
    case Prim::U32: return f(std::integral_constant<Prim, Prim::U32>{});
    case Prim::U64: return f(std::integral_constant<Prim, Prim::U64>{});
    case Prim::F16: return f(std::integral_constant<Prim, Prim::F16>{});
    case Prim::F32: return f(std::integral_constant<Prim, Prim::F32>{});
    case Prim::F64: break;
  }
  return f(std::integral_constant<Prim, Prim::F64>{});
}

namespace sem {

template <Prim P> constexpr bool kFloat = P == Prim::F16 || P == Prim::F32 || P == Prim::F64;
template <Prim P> constexpr bool kSigned = P >= Prim::I8 && P <= Prim::I64;
template <Prim P> constexpr bool kUnsigned = P >= Prim::U8 && P <= Prim::U64;

// Rounds a computed float to the register's precision (only f16 needs it:
// f32 arithmetic on floats is already correctly rounded).
template <Prim P>
inline RegT<P> fix(RegT<P> v) {
  if constexpr (P == Prim::F16) return float(round_to_f16(double(v)));
  else return v;
}

// Integer arithmetic wraps: compute in an unsigned type at least as wide as int.
template <class T>
using Wide = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <Prim P> inline RegT<P> add(RegT<P> a, RegT<P> b) {
  using T = RegT<P>;
  if constexpr (kFloat<P>) return fix<P>(a + b);
  else if constexpr (P == Prim::Bool) return T(a | b);
  else return T(Wide<T>(a) + Wide<T>(b));
}
template <Prim P> inline RegT<P> sub(RegT<P> a, RegT<P> b) {
  using T = RegT<P>;
  if constexpr (kFloat<P>) return fix<P>(a - b);
  else return T(Wide<T>(a) - Wide<T>(b));
}
template <Prim P> inline RegT<P> mul(RegT<P> a, RegT<P> b) {
  using T = RegT<P>;
  if constexpr (kFloat<P>) return fix<P>(a * b);
  else if constexpr (P == Prim::Bool) return T(a & b);
  else return T(Wide<T>(a) * Wide<T>(b));
}
template <Prim P> inline RegT<P> neg(RegT<P> a) {
  using T = RegT<P>;
  if constexpr (kFloat<P>) return -a;
  else if constexpr (P == Prim::Bool) return T(!a);
  else return T(Wide<T>(0) - Wide<T>(a));
}

// `/`: floor division for signed integers, ordinary for unsigned and floats.
template <Prim P> inline RegT<P> div(RegT<P> a, RegT<P> b) {
  using T = RegT<P>;
  if constexpr (kFloat<P>) return fix<P>(a / b);
  else {
    if (b == 0) return 0;
    if constexpr (kSigned<P>) {
      if (b == T(-1)) return neg<P>(a);
      T q = T(a / b);
      if ((a % b != 0) && ((a < 0) != (b < 0))) q = T(q - 1);
      return q;
    } else {
      return T(a / b);
    }
  }
}
// `%`: the remainder of `/`, with the sign of the divisor for integers;
// C's fmod for floats, as Futhark's compiled code (and our reference) do.
template <Prim P> inline RegT<P> mod(RegT<P> a, RegT<P> b) {
  using T = RegT<P>;
  if constexpr (kFloat<P>) {
    return fix<P>(T(std::fmod(a, b)));
  } else {
    if (b == 0) return 0;
    if constexpr (kSigned<P>) {
      if (b == T(-1)) return 0;
      T r = T(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) r = T(r + b);
      return r;
    } else {
      return T(a % b);
    }
  }
}
// `//` and `%%`: truncating.
template <Prim P> inline RegT<P> quot(RegT<P> a, RegT<P> b) {
  using T = RegT<P>;
  if constexpr (kFloat<P>) return fix<P>(std::trunc(a / b));
  else {
    if (b == 0) return 0;
    if constexpr (kSigned<P>)
      if (b == T(-1)) return neg<P>(a);
    return T(a / b);
  }
}
template <Prim P> inline RegT<P> rem(RegT<P> a, RegT<P> b) {
  using T = RegT<P>;
  if constexpr (kFloat<P>) return fix<P>(std::fmod(a, b));
  else {
    if (b == 0) return 0;
    if constexpr (kSigned<P>)
      if (b == T(-1)) return 0;
    return T(a % b);
  }
}

template <Prim P> inline RegT<P> pow(RegT<P> a, RegT<P> b) {
  using T = RegT<P>;
  if constexpr (kFloat<P>) return fix<P>(T(std::pow(a, b)));
  else {
    if constexpr (kSigned<P>)
      if (b < 0) return 0;  // an error in Futhark; guarded by a Check
    Wide<T> base = Wide<T>(a), res = 1;
    std::make_unsigned_t<T> e = std::make_unsigned_t<T>(b);
    while (e) {
      if (e & 1) res = Wide<T>(res * base);
      base = Wide<T>(base * base);
      e >>= 1;
    }
    return T(res);
  }
}

// Shifts compute on 64 bits and then wrap to the type, as Futhark's
// reference semantics does: amounts >= 64 shift everything out, negative
// amounts shift the other way.
template <Prim P> inline RegT<P> shl(RegT<P> a, RegT<P> b) {
  using T = RegT<P>;
  int64_t amt = int64_t(b);
  if constexpr (kUnsigned<P>) amt = int64_t(uint64_t(b) > 64 ? 64 : uint64_t(b));
  if (amt >= 64) return 0;
  if (amt < 0) {
    int64_t r = -amt >= 64 ? (int64_t(a) < 0 ? -1 : 0) : (int64_t(a) >> -amt);
    return T(r);
  }
  return T(uint64_t(int64_t(a)) << amt);
}
template <Prim P> inline RegT<P> ashr(RegT<P> a, RegT<P> b) {
  using T = RegT<P>;
  int64_t amt = int64_t(b);
  if constexpr (kUnsigned<P>) amt = int64_t(uint64_t(b) > 64 ? 64 : uint64_t(b));
  if (amt < 0) return amt <= -64 ? T(0) : T(uint64_t(int64_t(a)) << -amt);
  if (amt >= 64) return T(int64_t(a) < 0 ? -1 : 0);
  return T(int64_t(a) >> amt);
}
template <Prim P> inline RegT<P> lshr(RegT<P> a, RegT<P> b) {
  using T = RegT<P>;
  using U = std::make_unsigned_t<T>;
  uint64_t x = uint64_t(U(a));  // zero-extended from the type's width
  int64_t amt = int64_t(b);
  if constexpr (kUnsigned<P>) amt = int64_t(uint64_t(b) > 64 ? 64 : uint64_t(b));
  if (amt < 0) return amt <= -64 ? T(0) : T(x << -amt);
  if (amt >= 64) return 0;
  return T(x >> amt);
}

template <Prim P> inline RegT<P> min(RegT<P> a, RegT<P> b) {
  if constexpr (kFloat<P>) return std::fmin(a, b);
  else return a < b ? a : b;
}
template <Prim P> inline RegT<P> max(RegT<P> a, RegT<P> b) {
  if constexpr (kFloat<P>) return std::fmax(a, b);
  else return a < b ? b : a;
}

template <Prim P> inline RegT<P> abs(RegT<P> a) {
  using T = RegT<P>;
  if constexpr (kFloat<P>) return std::fabs(a);
  else if constexpr (kSigned<P>) return a < 0 ? neg<P>(a) : a;
  else return T(a);
}
template <Prim P> inline RegT<P> signum(RegT<P> a) {
  using T = RegT<P>;
  if constexpr (kFloat<P>) return a > 0 ? T(1) : a < 0 ? T(-1) : a == 0 ? T(0) : a;  // NaN stays
  else if constexpr (kSigned<P>) return T(a > 0 ? 1 : a < 0 ? -1 : 0);
  else return T(a != 0);
}

template <class T> inline int32_t popc(T a) {
  return int32_t(__builtin_popcountll(uint64_t(std::make_unsigned_t<T>(a))));
}
template <class T> inline int32_t clz(T a) {
  uint64_t x = uint64_t(std::make_unsigned_t<T>(a));
  int bits = int(sizeof(T) * 8);
  if (x == 0) return bits;
  return int32_t(__builtin_clzll(x) - (64 - bits));
}
template <class T> inline int32_t ctz(T a) {
  uint64_t x = uint64_t(std::make_unsigned_t<T>(a));
  if (x == 0) return int32_t(sizeof(T) * 8);
  return int32_t(__builtin_ctzll(x));
}

// Futhark's conversions, exactly as the reference does them
// (Scalar::convert_to): float -> integer as interp/core/float_to_int.hpp
// defines it; integers sign-extend or zero-extend, then wrap.
template <Prim From, Prim To>
inline RegT<To> convert(RegT<From> v) {
  using T = RegT<To>;
  if constexpr (From == To) return v;
  else if constexpr (From == Prim::Bool) {
    return T(v ? 1 : 0);
  } else if constexpr (To == Prim::Bool) {
    return T(v != 0);
  } else if constexpr (kFloat<From>) {
    if constexpr (kFloat<To>) return fix<To>(T(double(v)));
    else return T(float_to_int_bits(double(v), int(sizeof(T)), kUnsigned<To>));
  } else if constexpr (kFloat<To>) {
    // Through double, as the reference does (Scalar::floating(double(i))).
    if constexpr (kSigned<From>) return fix<To>(T(double(int64_t(v))));
    else return fix<To>(T(double(uint64_t(v))));
  } else if constexpr (kSigned<From> && kUnsigned<To>) {
    return T(std::make_unsigned_t<RegT<From>>(v));  // zero-extend the source bits, as Futhark does
  } else if constexpr (kSigned<From>) {
    return T(int64_t(v));  // sign-extend, then wrap (modular in C++20)
  } else {
    return T(uint64_t(v));
  }
}

}  // namespace sem
}  // namespace thorn::host
