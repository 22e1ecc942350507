// Binary-operator kernels of the host executor, one per (operator, type).
// The lane loops must be vectorised: -O2 (the build default) leaves them scalar.
#pragma GCC optimize("O3")
#include "interp/exec/host_lanes.hpp"

namespace thorn::host {

using kir::BinOp;

#define THORN_BIN(expr)                                                      \
  return +[](const CInstr& in, Frame& fr, Lanes L) {                         \
    map2<P>(in, fr, L, [](RegT<P> a, RegT<P> b) -> RegT<P> { return expr; }); \
  }

Kernel binary_kernel(BinOp op, Prim t) {
  return with_prim(t, [&](auto tag) -> Kernel {
    constexpr Prim P = decltype(tag)::value;
    constexpr bool F = sem::kFloat<P>;
    constexpr bool B = P == Prim::Bool;
    switch (op) {
      case BinOp::Add: if constexpr (!B) THORN_BIN(sem::add<P>(a, b)); break;
      case BinOp::Sub: if constexpr (!B) THORN_BIN(sem::sub<P>(a, b)); break;
      case BinOp::Mul: if constexpr (!B) THORN_BIN(sem::mul<P>(a, b)); break;
      case BinOp::Div: if constexpr (!B) THORN_BIN(sem::div<P>(a, b)); break;
      case BinOp::Mod: if constexpr (!B) THORN_BIN(sem::mod<P>(a, b)); break;
      case BinOp::Quot: if constexpr (!B) THORN_BIN(sem::quot<P>(a, b)); break;
      case BinOp::Rem: if constexpr (!B) THORN_BIN(sem::rem<P>(a, b)); break;
      case BinOp::Pow: if constexpr (!B) THORN_BIN(sem::pow<P>(a, b)); break;
      case BinOp::Min: THORN_BIN(sem::min<P>(a, b));
      case BinOp::Max: THORN_BIN(sem::max<P>(a, b));
      case BinOp::And: if constexpr (!F) THORN_BIN(RegT<P>(a & b)); break;
      case BinOp::Or: if constexpr (!F) THORN_BIN(RegT<P>(a | b)); break;
      case BinOp::Xor: if constexpr (!F) THORN_BIN(RegT<P>(a ^ b)); break;
      case BinOp::Shl: if constexpr (!F && !B) THORN_BIN(sem::shl<P>(a, b)); break;
      case BinOp::Shr: if constexpr (!F && !B) THORN_BIN(sem::ashr<P>(a, b)); break;
      case BinOp::LShr: if constexpr (!F && !B) THORN_BIN(sem::lshr<P>(a, b)); break;
      case BinOp::Atan2: if constexpr (F) THORN_BIN(sem::fix<P>(RegT<P>(std::atan2(a, b)))); break;
      case BinOp::Hypot: if constexpr (F) THORN_BIN(sem::fix<P>(RegT<P>(std::hypot(a, b)))); break;
      case BinOp::NextAfter: if constexpr (F) THORN_BIN(RegT<P>(std::nextafter(a, b))); break;
      // The exponent, an integer held as a float, clamped: past +-100000
      // every finite nonzero a overflows or underflows either way.
      case BinOp::LdExp:
        if constexpr (F) THORN_BIN(sem::fix<P>(RegT<P>(std::ldexp(a, int(std::fmax(std::fmin(b, RegT<P>(100000)), RegT<P>(-100000)))))));
        break;
      case BinOp::LogAnd: if constexpr (B) THORN_BIN(RegT<P>(a & b)); break;
      case BinOp::LogOr: if constexpr (B) THORN_BIN(RegT<P>(a | b)); break;
    }
    return nullptr;
  });
}

#undef THORN_BIN

}  // namespace thorn::host
