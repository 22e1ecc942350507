#pragma once
// Futhark's primitive types and their scalar values.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace thorn {

enum class Prim : uint8_t { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64 };

constexpr int kNumPrims = 12;

std::string_view prim_name(Prim p);                       // "i32", "f64", "bool"
std::optional<Prim> prim_from_name(std::string_view name);  // inverse of prim_name
int prim_bytes(Prim p);                                   // storage size: bool is 1, f16 is 2
inline bool is_float(Prim p) { return p == Prim::F16 || p == Prim::F32 || p == Prim::F64; }
inline bool is_signed_int(Prim p) { return p >= Prim::I8 && p <= Prim::I64; }
inline bool is_unsigned_int(Prim p) { return p >= Prim::U8 && p <= Prim::U64; }
inline bool is_integral(Prim p) { return is_signed_int(p) || is_unsigned_int(p); }
inline bool is_numeric(Prim p) { return p != Prim::Bool; }

// One scalar. Integers are kept normalised to their type's width: signed in
// `i` (sign-extended), unsigned in `u` (zero-extended). f16 and f32 are kept
// in `f` as a double that is exactly representable in the type (every f16/f32
// operation rounds its result), so arithmetic code can treat floats alike.
struct Scalar {
  Prim type = Prim::I32;
  union {
    int64_t i;
    uint64_t u;
    double f;
    bool b;
  };
  Scalar() : i(0) {}

  static Scalar boolean(bool v) { Scalar s; s.type = Prim::Bool; s.i = 0; s.b = v; return s; }
  static Scalar signed_int(Prim t, int64_t v);    // wraps to t's width
  static Scalar unsigned_int(Prim t, uint64_t v); // wraps to t's width
  static Scalar floating(Prim t, double v);       // rounds to t's precision
  static Scalar i64(int64_t v) { return signed_int(Prim::I64, v); }
  static Scalar i32(int32_t v) { return signed_int(Prim::I32, v); }

  // Conversions as Futhark's `t.from` functions do them (wrap, truncate toward zero, ...).
  Scalar convert_to(Prim target) const;
  int64_t as_i64() const;   // the value as an i64 (for indices and sizes)
  double as_f64() const;
  bool operator==(const Scalar& o) const;  // bitwise-ish equality: same type and value (NaN != NaN)
};

// Futhark's textual form: 1i32, 2.5f64, true, f32.nan, -f64.inf.
std::string format_scalar(const Scalar& s);

// f16 rounding (round to nearest even), used wherever an f16 is produced.
double round_to_f16(double v);
uint16_t f16_bits(double v);
double f16_from_bits(uint16_t bits);

}  // namespace thorn
