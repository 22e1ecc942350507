#include "interp/eval/scalar_ops.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "interp/util/error.hpp"

namespace thorn::eval {

namespace {

int bits_of(Prim p) { return prim_bytes(p) * 8; }

[[noreturn]] void fail(const std::string& msg) { throw Error(ErrorKind::Runtime, msg); }

// The unsigned bit pattern of an integer scalar within its width.
uint64_t raw_bits(const Scalar& s) {
  int w = bits_of(s.type);
  return w == 64 ? s.u : s.u & ((uint64_t(1) << w) - 1);
}

Scalar make_int(Prim t, uint64_t bits) {
  return is_signed_int(t) ? Scalar::signed_int(t, int64_t(bits)) : Scalar::unsigned_int(t, bits);
}

Scalar make_float(Prim t, double v) { return Scalar::floating(t, v); }

// Float arithmetic in the type's own precision.
template <class F>
Scalar float_op(Prim t, double a, double b, F f) {
  if (t == Prim::F64) return make_float(t, f(a, b));
  return make_float(t, double(f(float(a), float(b))));
}

Scalar int_arith(BuiltinOp op, const Scalar& a, const Scalar& b) {
  Prim t = a.type;
  bool sgn = is_signed_int(t);
  int w = bits_of(t);
  switch (op) {
    case BuiltinOp::Add: return make_int(t, a.u + b.u);
    case BuiltinOp::Sub: return make_int(t, a.u - b.u);
    case BuiltinOp::Mul: return make_int(t, a.u * b.u);
    case BuiltinOp::Div:
    case BuiltinOp::Quot:
    case BuiltinOp::Mod:
    case BuiltinOp::Rem: {
      if (raw_bits(b) == 0) fail("division by zero");
      if (!sgn) {
        uint64_t x = raw_bits(a), y = raw_bits(b);
        return make_int(t, (op == BuiltinOp::Div || op == BuiltinOp::Quot) ? x / y : x % y);
      }
      int64_t x = a.i, y = b.i;
      if (y == -1) {  // avoids INT64_MIN / -1; the quotient wraps
        if (op == BuiltinOp::Div || op == BuiltinOp::Quot) return make_int(t, 0 - uint64_t(x));
        return make_int(t, 0);
      }
      int64_t q = x / y, r = x % y;
      if (op == BuiltinOp::Quot) return make_int(t, uint64_t(q));
      if (op == BuiltinOp::Rem) return make_int(t, uint64_t(r));
      bool adjust = r != 0 && ((r < 0) != (y < 0));
      if (op == BuiltinOp::Div) return make_int(t, uint64_t(adjust ? q - 1 : q));
      return make_int(t, uint64_t(adjust ? r + y : r));
    }
    case BuiltinOp::Pow: {
      if (sgn && b.i < 0) fail("negative exponent in integer power");
      uint64_t base = a.u, e = raw_bits(b), result = 1;
      while (e != 0) {
        if (e & 1) result *= base;
        base *= base;
        e >>= 1;
      }
      return make_int(t, result);
    }
    case BuiltinOp::BitAnd: return make_int(t, a.u & b.u);
    case BuiltinOp::BitOr: return make_int(t, a.u | b.u);
    case BuiltinOp::BitXor: return make_int(t, a.u ^ b.u);
    case BuiltinOp::Shl:
    case BuiltinOp::Shr:
    case BuiltinOp::LShr: {
      // The amount is the right operand's value; a negative amount shifts
      // the other way (as Futhark's reference interpreter does).
      int64_t amount = sgn ? b.i : int64_t(std::min<uint64_t>(raw_bits(b), 1u << 16));
      BuiltinOp dir = op;
      if (amount < 0) {
        amount = -amount;
        dir = op == BuiltinOp::Shl ? (sgn ? BuiltinOp::Shr : BuiltinOp::LShr) : BuiltinOp::Shl;
      }
      if (dir == BuiltinOp::Shl) return amount >= w ? make_int(t, 0) : make_int(t, a.u << amount);
      if (dir == BuiltinOp::LShr || !sgn) return amount >= w ? make_int(t, 0) : make_int(t, raw_bits(a) >> amount);
      if (amount >= w) return make_int(t, a.i < 0 ? ~uint64_t(0) : 0);
      return make_int(t, uint64_t(a.i >> amount));
    }
    default: break;
  }
  fail("invalid integer operator");
}

Scalar float_arith(BuiltinOp op, const Scalar& a, const Scalar& b) {
  Prim t = a.type;
  switch (op) {
    case BuiltinOp::Add: return float_op(t, a.f, b.f, [](auto x, auto y) { return x + y; });
    case BuiltinOp::Sub: return float_op(t, a.f, b.f, [](auto x, auto y) { return x - y; });
    case BuiltinOp::Mul: return float_op(t, a.f, b.f, [](auto x, auto y) { return x * y; });
    case BuiltinOp::Div: return float_op(t, a.f, b.f, [](auto x, auto y) { return x / y; });
    case BuiltinOp::Mod: return float_op(t, a.f, b.f, [](auto x, auto y) { return std::fmod(x, y); });
    case BuiltinOp::Pow: return float_op(t, a.f, b.f, [](auto x, auto y) { return std::pow(x, y); });
    default: break;
  }
  fail(std::string("operator ") + std::string(builtin_op_name(op)) + " is not defined on floats");
}

}  // namespace

std::optional<BuiltinOp> builtin_op_from_name(std::string_view n) {
  static constexpr std::pair<std::string_view, BuiltinOp> table[] = {
      {"+", BuiltinOp::Add},     {"-", BuiltinOp::Sub},     {"*", BuiltinOp::Mul},    {"/", BuiltinOp::Div},
      {"%", BuiltinOp::Mod},     {"//", BuiltinOp::Quot},   {"%%", BuiltinOp::Rem},   {"**", BuiltinOp::Pow},
      {"==", BuiltinOp::Eq},     {"!=", BuiltinOp::Ne},     {"<", BuiltinOp::Lt},     {">", BuiltinOp::Gt},
      {"<=", BuiltinOp::Le},     {">=", BuiltinOp::Ge},     {"&&", BuiltinOp::LogAnd}, {"||", BuiltinOp::LogOr},
      {"&", BuiltinOp::BitAnd},  {"|", BuiltinOp::BitOr},   {"^", BuiltinOp::BitXor}, {"<<", BuiltinOp::Shl},
      {">>", BuiltinOp::Shr},    {">>>", BuiltinOp::LShr},
  };
  for (const auto& [name, op] : table)
    if (name == n) return op;
  return std::nullopt;
}

std::string_view builtin_op_name(BuiltinOp op) {
  static constexpr std::string_view names[] = {"+",  "-",  "*", "/", "%",  "//", "%%", "**", "==", "!=", "<",
                                               ">",  "<=", ">=", "&&", "||", "&", "|", "^", "<<", ">>", ">>>"};
  return names[int(op)];
}

bool scalar_equal(const Scalar& a, const Scalar& b) {
  if (a.type != b.type) return false;
  if (a.type == Prim::Bool) return a.b == b.b;
  if (is_float(a.type)) return a.f == b.f;
  return raw_bits(a) == raw_bits(b);
}

bool scalar_less(const Scalar& a, const Scalar& b) {
  if (a.type == Prim::Bool) return !a.b && b.b;
  if (is_float(a.type)) return a.f < b.f;
  if (is_signed_int(a.type)) return a.i < b.i;
  return raw_bits(a) < raw_bits(b);
}

Scalar scalar_binop(BuiltinOp op, const Scalar& a, const Scalar& b) {
  switch (op) {
    case BuiltinOp::Eq: return Scalar::boolean(scalar_equal(a, b));
    case BuiltinOp::Ne: return Scalar::boolean(!scalar_equal(a, b));
    case BuiltinOp::Lt: return Scalar::boolean(scalar_less(a, b));
    case BuiltinOp::Gt: return Scalar::boolean(scalar_less(b, a));
    case BuiltinOp::Le:
      if (is_float(a.type)) return Scalar::boolean(a.f <= b.f);
      return Scalar::boolean(!scalar_less(b, a));
    case BuiltinOp::Ge:
      if (is_float(a.type)) return Scalar::boolean(a.f >= b.f);
      return Scalar::boolean(!scalar_less(a, b));
    case BuiltinOp::LogAnd: return Scalar::boolean(a.b && b.b);
    case BuiltinOp::LogOr: return Scalar::boolean(a.b || b.b);
    default: break;
  }
  if (a.type != b.type)
    fail("operands of different types: " + std::string(prim_name(a.type)) + " and " + std::string(prim_name(b.type)));
  if (a.type == Prim::Bool) {
    switch (op) {  // bitwise operators on bool are logical
      case BuiltinOp::BitAnd: return Scalar::boolean(a.b && b.b);
      case BuiltinOp::BitOr: return Scalar::boolean(a.b || b.b);
      case BuiltinOp::BitXor: return Scalar::boolean(a.b != b.b);
      default: fail(std::string("operator ") + std::string(builtin_op_name(op)) + " is not defined on bool");
    }
  }
  if (is_float(a.type)) return float_arith(op, a, b);
  return int_arith(op, a, b);
}

Scalar scalar_neg(const Scalar& a) {
  if (a.type == Prim::Bool) return Scalar::boolean(!a.b);
  if (is_float(a.type)) return make_float(a.type, -a.f);
  return make_int(a.type, 0 - a.u);
}

Scalar scalar_not(const Scalar& a) {
  if (a.type == Prim::Bool) return Scalar::boolean(!a.b);
  if (is_float(a.type)) fail("! is not defined on floats");
  return make_int(a.type, ~a.u);
}

Scalar scalar_convert(const Scalar& s, Prim to) {
  // Float -> integer: Scalar::convert_to (prim.cpp) is the definition, NaN
  // and the infinities give 0; the host and GPU backends agree
  // (tests/programs/float_to_int_nonfinite.fut). [thorn wiring, 6b]
  return s.convert_to(to);
}

namespace {

template <class F>
Scalar float_unary(const Scalar& a, F f) {
  if (a.type == Prim::F64) return make_float(a.type, f(a.f));
  return make_float(a.type, double(f(float(a.f))));
}

int popcount(const Scalar& a) { return std::popcount(raw_bits(a)); }
int count_leading_zeros(const Scalar& a) {
  int w = bits_of(a.type);
  uint64_t x = raw_bits(a);
  return x == 0 ? w : std::countl_zero(x) - (64 - w);
}
int count_trailing_zeros(const Scalar& a) {
  int w = bits_of(a.type);
  uint64_t x = raw_bits(a);
  return x == 0 ? w : std::countr_zero(x);
}

Scalar mul_hi(const Scalar& a, const Scalar& b) {
  Prim t = a.type;
  int w = bits_of(t);
  if (is_signed_int(t)) {
    __int128 p = __int128(a.i) * __int128(b.i);
    return make_int(t, uint64_t(int64_t(p >> w)));
  }
  unsigned __int128 p = (unsigned __int128)(raw_bits(a)) * (unsigned __int128)(raw_bits(b));
  return make_int(t, uint64_t(p >> w));
}

Scalar float_bits(const Scalar& a) {
  switch (a.type) {
    case Prim::F16: return Scalar::unsigned_int(Prim::U16, f16_bits(a.f));
    case Prim::F32: {
      float f = float(a.f);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      return Scalar::unsigned_int(Prim::U32, u);
    }
    default: {
      uint64_t u;
      std::memcpy(&u, &a.f, 8);
      return Scalar::unsigned_int(Prim::U64, u);
    }
  }
}

Scalar float_from_bits(const Scalar& a) {
  uint64_t bits = raw_bits(a);
  switch (prim_bytes(a.type)) {
    case 2: {
      Scalar s;
      s.type = Prim::F16;
      s.f = f16_from_bits(uint16_t(bits));
      return s;
    }
    case 4: {
      uint32_t u = uint32_t(bits);
      float f;
      std::memcpy(&f, &u, 4);
      Scalar s;
      s.type = Prim::F32;
      s.f = f;
      return s;
    }
    case 8: {
      double d;
      std::memcpy(&d, &bits, 8);
      Scalar s;
      s.type = Prim::F64;
      s.f = d;
      return s;
    }
  }
  fail("from_bits: no float type of this width");
}

double f16_nextafter(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::nan("");
  if (x == y) return y;
  uint16_t bits = f16_bits(x);
  if (x == 0) return y > 0 ? f16_from_bits(1) : f16_from_bits(0x8001);
  bool up = (y > x) == (x > 0);
  bits = uint16_t(up ? bits + 1 : bits - 1);
  return f16_from_bits(bits);
}

std::optional<Scalar> unary(std::string_view n, const Scalar& a) {
  Prim t = a.type;
  bool flt = is_float(t);
  if (n == "abs") {
    if (flt) return make_float(t, std::fabs(a.f));
    if (is_unsigned_int(t) || t == Prim::Bool) return a;
    return make_int(t, a.i < 0 ? 0 - a.u : a.u);
  }
  if (n == "sgn") {
    if (flt) {
      if (std::isnan(a.f)) return a;
      return make_float(t, a.f > 0 ? 1.0 : a.f < 0 ? -1.0 : 0.0);
    }
    if (is_unsigned_int(t)) return make_int(t, raw_bits(a) != 0 ? 1 : 0);
    return make_int(t, uint64_t(a.i > 0 ? 1 : a.i < 0 ? -1 : 0));
  }
  if (n == "neg") return scalar_neg(a);
  if (n == "popc") return Scalar::i32(popcount(flt ? float_bits(a) : a));
  if (n == "clz") return Scalar::i32(count_leading_zeros(a));
  if (n == "ctz") return Scalar::i32(count_trailing_zeros(a));
  if (n == "to_bits") return float_bits(a);
  if (n == "from_bits") return float_from_bits(a);
  if (!flt) return std::nullopt;
  // Float functions, computed in the type's precision.
  if (n == "sqrt") return float_unary(a, [](auto x) { return std::sqrt(x); });
  if (n == "cbrt") return float_unary(a, [](auto x) { return std::cbrt(x); });
  if (n == "exp") return float_unary(a, [](auto x) { return std::exp(x); });
  if (n == "log") return float_unary(a, [](auto x) { return std::log(x); });
  if (n == "log2") return float_unary(a, [](auto x) { return std::log2(x); });
  if (n == "log10") return float_unary(a, [](auto x) { return std::log10(x); });
  if (n == "log1p") return float_unary(a, [](auto x) { return std::log1p(x); });
  if (n == "sin") return float_unary(a, [](auto x) { return std::sin(x); });
  if (n == "cos") return float_unary(a, [](auto x) { return std::cos(x); });
  if (n == "tan") return float_unary(a, [](auto x) { return std::tan(x); });
  if (n == "asin") return float_unary(a, [](auto x) { return std::asin(x); });
  if (n == "acos") return float_unary(a, [](auto x) { return std::acos(x); });
  if (n == "atan") return float_unary(a, [](auto x) { return std::atan(x); });
  if (n == "sinh") return float_unary(a, [](auto x) { return std::sinh(x); });
  if (n == "cosh") return float_unary(a, [](auto x) { return std::cosh(x); });
  if (n == "tanh") return float_unary(a, [](auto x) { return std::tanh(x); });
  if (n == "asinh") return float_unary(a, [](auto x) { return std::asinh(x); });
  if (n == "acosh") return float_unary(a, [](auto x) { return std::acosh(x); });
  if (n == "atanh") return float_unary(a, [](auto x) { return std::atanh(x); });
  if (n == "gamma") return float_unary(a, [](auto x) { return std::tgamma(x); });
  if (n == "lgamma") return float_unary(a, [](auto x) { return std::lgamma(x); });
  if (n == "erf") return float_unary(a, [](auto x) { return std::erf(x); });
  if (n == "erfc") return float_unary(a, [](auto x) { return std::erfc(x); });
  if (n == "floor") return float_unary(a, [](auto x) { return std::floor(x); });
  if (n == "ceil") return float_unary(a, [](auto x) { return std::ceil(x); });
  if (n == "trunc") return float_unary(a, [](auto x) { return std::trunc(x); });
  if (n == "round") return float_unary(a, [](auto x) { return std::nearbyint(x); });  // half to even
  if (n == "recip") return float_unary(a, [](auto x) { return decltype(x)(1) / x; });
  if (n == "isnan") return Scalar::boolean(std::isnan(a.f));
  if (n == "isinf") return Scalar::boolean(std::isinf(a.f));
  return std::nullopt;
}

std::optional<Scalar> binary(std::string_view n, const Scalar& a, const Scalar& b) {
  if (n == "get_bit" && is_integral(b.type)) {  // get_bit bit x
    int64_t bit = a.as_i64();
    if (bit < 0 || bit >= bits_of(b.type)) return Scalar::i32(0);
    return Scalar::i32(int32_t((raw_bits(b) >> bit) & 1));
  }
  Prim t = a.type;
  bool flt = is_float(t);
  if (n == "min" || n == "max") {
    bool want_max = n == "max";
    if (flt) {  // NaN-ignoring, like C's fmin/fmax
      if (std::isnan(a.f)) return b;
      if (std::isnan(b.f)) return a;
      return want_max ? (a.f < b.f ? b : a) : (b.f < a.f ? b : a);
    }
    bool a_less = scalar_less(a, b);
    return want_max ? (a_less ? b : a) : (a_less ? a : b);
  }
  if (n == "pow") return scalar_binop(BuiltinOp::Pow, a, b);
  if (n == "mul_hi" && !flt) return mul_hi(a, b);
  if (!flt) return std::nullopt;
  if (n == "atan2") return float_op(t, a.f, b.f, [](auto x, auto y) { return std::atan2(x, y); });
  if (n == "hypot") return float_op(t, a.f, b.f, [](auto x, auto y) { return std::hypot(x, y); });
  if (n == "copysign") return float_op(t, a.f, b.f, [](auto x, auto y) { return std::copysign(x, y); });
  if (n == "nextafter") {
    if (t == Prim::F16) return make_float(t, f16_nextafter(a.f, b.f));
    return float_op(t, a.f, b.f, [](auto x, auto y) { return std::nextafter(x, y); });
  }
  if (n == "ldexp") {
    int e = int(b.as_i64());
    if (t == Prim::F64) return make_float(t, std::ldexp(a.f, e));
    return make_float(t, double(std::ldexp(float(a.f), e)));
  }
  return std::nullopt;
}

std::optional<Scalar> ternary(std::string_view n, const Scalar& a, const Scalar& b, const Scalar& c) {
  if (n == "set_bit" && is_integral(b.type)) {  // set_bit bit x value
    int64_t bit = a.as_i64();
    if (bit < 0 || bit >= bits_of(b.type)) return b;
    uint64_t mask = uint64_t(1) << bit;
    uint64_t x = raw_bits(b);
    x = (c.as_i64() & 1) ? (x | mask) : (x & ~mask);
    return make_int(b.type, x);
  }
  Prim t = a.type;
  if (n == "mad_hi" && is_integral(t)) return scalar_binop(BuiltinOp::Add, mul_hi(a, b), c);
  if (!is_float(t)) return std::nullopt;
  if (n == "fma") {
    if (t == Prim::F64) return make_float(t, std::fma(a.f, b.f, c.f));
    return make_float(t, double(std::fma(float(a.f), float(b.f), float(c.f))));
  }
  if (n == "mad") return scalar_binop(BuiltinOp::Add, scalar_binop(BuiltinOp::Mul, a, b), c);
  if (n == "lerp") {  // v0 + (v1 - v0) * t
    Scalar diff = scalar_binop(BuiltinOp::Sub, b, a);
    return scalar_binop(BuiltinOp::Add, a, scalar_binop(BuiltinOp::Mul, diff, c));
  }
  return std::nullopt;
}

}  // namespace

std::optional<Scalar> scalar_function(std::string_view name, const Scalar* args, int nargs) {
  switch (nargs) {
    case 1: return unary(name, args[0]);
    case 2: return binary(name, args[0], args[1]);
    case 3: return ternary(name, args[0], args[1], args[2]);
    default: return std::nullopt;
  }
}

}  // namespace thorn::eval
