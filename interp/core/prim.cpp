#include "interp/core/prim.hpp"

#include "interp/core/float_to_int.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace thorn {

namespace {
constexpr std::string_view kNames[kNumPrims] = {"bool", "i8",  "i16", "i32", "i64", "u8",
                                               "u16",  "u32", "u64", "f16", "f32", "f64"};
constexpr int kBytes[kNumPrims] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8};

int int_bits(Prim p) { return kBytes[int(p)] * 8; }

int64_t wrap_signed(int64_t v, int bits) {
  if (bits == 64) return v;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = uint64_t(v) & mask;
  uint64_t sign = uint64_t(1) << (bits - 1);
  return int64_t((u ^ sign) - sign);  // sign-extend
}

uint64_t wrap_unsigned(uint64_t v, int bits) {
  if (bits == 64) return v;
  return v & ((uint64_t(1) << bits) - 1);
}

}  // namespace

std::string_view prim_name(Prim p) { return kNames[int(p)]; }

std::optional<Prim> prim_from_name(std::string_view name) {
  for (int i = 0; i < kNumPrims; ++i)
    if (kNames[i] == name) return Prim(i);
  return std::nullopt;
}

int prim_bytes(Prim p) { return kBytes[int(p)]; }

// ------------------------------------------------------------------ f16

uint16_t f16_bits(double value) {
  float f = float(value);
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0));  // inf / nan
  int e = int(exp) - 127 + 15;
  if (e >= 0x1f) return uint16_t(sign | 0x7c00u);  // overflow to infinity
  if (e <= 0) {
    if (e < -10) return uint16_t(sign);  // underflow to zero
    mant |= 0x800000u;
    int shift = 14 - e;
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: correct
  return uint16_t(half);
}

double f16_from_bits(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do { mant <<= 1; ++e; } while ((mant & 0x400u) == 0);
      x = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

double round_to_f16(double v) { return f16_from_bits(f16_bits(v)); }

// ------------------------------------------------------------------ Scalar

Scalar Scalar::signed_int(Prim t, int64_t v) {
  Scalar s;
  s.type = t;
  if (is_unsigned_int(t)) {
    s.u = wrap_unsigned(uint64_t(v), int_bits(t));
  } else if (is_float(t)) {
    return floating(t, double(v));
  } else if (t == Prim::Bool) {
    return boolean(v != 0);
  } else {
    s.i = wrap_signed(v, int_bits(t));
  }
  return s;
}

Scalar Scalar::unsigned_int(Prim t, uint64_t v) {
  if (is_signed_int(t)) return signed_int(t, int64_t(v));
  if (is_float(t)) return floating(t, double(v));
  if (t == Prim::Bool) return boolean(v != 0);
  Scalar s;
  s.type = t;
  s.u = wrap_unsigned(v, int_bits(t));
  return s;
}

Scalar Scalar::floating(Prim t, double v) {
  Scalar s;
  s.type = t;
  switch (t) {
    case Prim::F16: s.f = round_to_f16(v); break;
    case Prim::F32: s.f = double(float(v)); break;
    default: s.f = v; break;
  }
  return s;
}

Scalar Scalar::convert_to(Prim target) const {
  if (type == target) return *this;
  if (type == Prim::Bool) {
    if (is_float(target)) return floating(target, b ? 1.0 : 0.0);
    return signed_int(target, b ? 1 : 0);
  }
  if (target == Prim::Bool) {
    if (is_float(type)) return boolean(f != 0.0);
    return boolean(u != 0);
  }
  if (is_float(type)) {
    if (is_float(target)) return floating(target, f);
    uint64_t bits = float_to_int_bits(f, prim_bytes(target), is_unsigned_int(target));
    if (is_unsigned_int(target)) return unsigned_int(target, bits);
    return signed_int(target, int64_t(bits));
  }
  // Futhark sign-extends only into signed types: `u32.i16 (-32768)` is
  // 32768, the i16's bits zero-extended.
  if (is_signed_int(type) && is_unsigned_int(target))
    return unsigned_int(target, wrap_unsigned(uint64_t(i), int_bits(type)));
  if (is_signed_int(type)) return signed_int(target, i);
  return unsigned_int(target, u);
}

int64_t Scalar::as_i64() const {
  if (type == Prim::Bool) return b ? 1 : 0;
  if (is_float(type)) return float_to_i64_sat(f);
  return i;  // unsigned values reinterpret; u64 above 2^63 wraps like Futhark's i64.u64
}

double Scalar::as_f64() const {
  if (type == Prim::Bool) return b ? 1.0 : 0.0;
  if (is_float(type)) return f;
  if (is_unsigned_int(type)) return double(u);
  return double(i);
}

bool Scalar::operator==(const Scalar& o) const {
  if (type != o.type) return false;
  if (type == Prim::Bool) return b == o.b;
  if (is_float(type)) return f == o.f;
  return u == o.u;
}

// ------------------------------------------------------------------ printing

namespace {
// Futhark prints floats the way Haskell's `show` does: the shortest digits
// that read back to the same value, in positional notation when
// 0.1 <= |x| < 10^7 and in scientific notation ("1.0e-2") otherwise.
template <class F>
std::string show_float(F x) {
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string sci(buf, r.ptr);  // like "-1.2345e+07"
  bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  size_t epos = sci.find('e');
  int exponent = std::stoi(sci.substr(epos + 1));
  std::string digits;
  for (size_t k = 0; k < epos; ++k)
    if (sci[k] != '.') digits += sci[k];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  double ax = std::fabs(double(x));
  if (ax >= 0.1 && ax < 1e7) {
    int point = exponent + 1;  // digits before the decimal point
    if (point <= 0) {
      out = "0." + std::string(size_t(-point), '0') + digits;
    } else if (size_t(point) >= digits.size()) {
      out = digits + std::string(size_t(point) - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, size_t(point)) + "." + digits.substr(size_t(point));
    }
  } else {
    out = digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "e" +
          std::to_string(exponent);
  }
  return negative ? "-" + out : out;
}
}  // namespace

std::string format_scalar(const Scalar& s) {
  std::string_view name = prim_name(s.type);
  if (s.type == Prim::Bool) return s.b ? "true" : "false";
  if (is_signed_int(s.type)) return fmt::format("{}{}", s.i, name);
  if (is_unsigned_int(s.type)) return fmt::format("{}{}", s.u, name);
  if (std::isnan(s.f)) return fmt::format("{}.nan", name);
  if (std::isinf(s.f)) return fmt::format("{}{}.inf", s.f < 0 ? "-" : "", name);
  std::string digits = s.type == Prim::F64 ? show_float(s.f) : show_float(float(s.f));
  return digits + std::string(name);
}

}  // namespace thorn
