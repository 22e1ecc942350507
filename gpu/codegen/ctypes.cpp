#include "gpu/codegen/ctypes.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace thorn::gpu::cg {

std::string_view reg_type(Prim p) {
  switch (p) {
    case Prim::Bool: return "bool";
    case Prim::I8: return "i8";
    case Prim::I16: return "i16";
    case Prim::I32: return "i32";
    case Prim::I64: return "i64";
    case Prim::U8: return "u8";
    case Prim::U16: return "u16";
    case Prim::U32: return "u32";
    case Prim::U64: return "u64";
    case Prim::F16: return "f16";
    case Prim::F32: return "f32";
    case Prim::F64: return "f64";
  }
  return "?";
}

std::string_view mem_type(Prim p) {
  if (p == Prim::F16) return "thorn_half";
  if (p == Prim::Bool) return "u8";
  return reg_type(p);
}

std::string_view unsigned_type(Prim p) {
  switch (bit_width(p)) {
    case 8: return "u8";
    case 16: return "u16";
    case 32: return "u32";
    default: return "u64";
  }
}

int bit_width(Prim p) { return prim_bytes(p) * 8; }

std::string load_expr(Prim p, const std::string& mem) {
  if (p == Prim::F16) return fmt::format("thorn_h2f({})", mem);
  if (p == Prim::Bool) return fmt::format("({} != 0)", mem);
  return mem;
}

std::string store_expr(Prim p, const std::string& reg) {
  if (p == Prim::F16) return fmt::format("thorn_f2h({})", reg);
  if (p == Prim::Bool) return fmt::format("(u8)({} ? 1 : 0)", reg);
  return reg;
}

namespace {

std::string float_literal(double v, bool single) {
  if (std::isnan(v) || std::isinf(v)) {
    // No literal spells these; the bit pattern is exact and folds to a constant.
    if (single) {
      float f = float(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return fmt::format("__uint_as_float(0x{:08x}u)", bits);
    }
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return fmt::format("__longlong_as_double(0x{:016x}ll)", bits);
  }
  // fmt prints the shortest text that reads back as the same value.
  std::string s = single ? fmt::format("{}", float(v)) : fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return single ? s + "f" : s;
}

}  // namespace

std::string literal(const Scalar& s) {
  Prim p = s.type;
  if (p == Prim::Bool) return s.b ? "true" : "false";
  if (is_float(p)) return float_literal(s.f, p != Prim::F64);
  if (is_unsigned_int(p)) return fmt::format("(({}){}ull)", reg_type(p), s.u);
  if (s.i == std::numeric_limits<int64_t>::min())
    return fmt::format("(({})(-9223372036854775807ll - 1))", reg_type(p));
  return fmt::format("(({}){}ll)", reg_type(p), s.i);
}

}  // namespace thorn::gpu::cg
