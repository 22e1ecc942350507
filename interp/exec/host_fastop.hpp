#pragma once
// The operators the host executor recognises as one commutative, associative
// instruction per component (internal header): (+), (*), min, max, &, |, ^,
// &&, ||, on the types where Futhark defines them. One table, used by the
// typed lane loops (host_step.cpp) and the direct paths (host_direct.cpp).
#include "interp/exec/host_semantics.hpp"
#include "interp/flatten/kernel_ir.hpp"

namespace thorn::host::fastop {

struct AddF { template <Prim P> static RegT<P> f(RegT<P> a, RegT<P> b) { return sem::add<P>(a, b); } };
struct MulF { template <Prim P> static RegT<P> f(RegT<P> a, RegT<P> b) { return sem::mul<P>(a, b); } };
struct MinF { template <Prim P> static RegT<P> f(RegT<P> a, RegT<P> b) { return sem::min<P>(a, b); } };
struct MaxF { template <Prim P> static RegT<P> f(RegT<P> a, RegT<P> b) { return sem::max<P>(a, b); } };
struct AndF { template <Prim P> static RegT<P> f(RegT<P> a, RegT<P> b) { return RegT<P>(a & b); } };
struct OrF { template <Prim P> static RegT<P> f(RegT<P> a, RegT<P> b) { return RegT<P>(a | b); } };
struct XorF { template <Prim P> static RegT<P> f(RegT<P> a, RegT<P> b) { return RegT<P>(a ^ b); } };

// Calls visit.template operator()<P, Op>() when `op` on `t` is recognised;
// returns whether it was.
template <class Visit>
bool with_fast_op(kir::BinOp op, Prim t, Visit&& visit) {
  return with_prim(t, [&](auto tag) -> bool {
    constexpr Prim P = decltype(tag)::value;
    constexpr bool F = sem::kFloat<P>, B = P == Prim::Bool;
    switch (op) {
      case kir::BinOp::Add: if constexpr (!B) { visit.template operator()<P, AddF>(); return true; } break;
      case kir::BinOp::Mul: if constexpr (!B) { visit.template operator()<P, MulF>(); return true; } break;
      case kir::BinOp::Min: visit.template operator()<P, MinF>(); return true;
      case kir::BinOp::Max: visit.template operator()<P, MaxF>(); return true;
      case kir::BinOp::And: if constexpr (!F) { visit.template operator()<P, AndF>(); return true; } break;
      case kir::BinOp::Or: if constexpr (!F) { visit.template operator()<P, OrF>(); return true; } break;
      case kir::BinOp::Xor: if constexpr (!F) { visit.template operator()<P, XorF>(); return true; } break;
      case kir::BinOp::LogAnd: if constexpr (B) { visit.template operator()<P, AndF>(); return true; } break;
      case kir::BinOp::LogOr: if constexpr (B) { visit.template operator()<P, OrF>(); return true; } break;
      default: break;
    }
    return false;
  });
}

}  // namespace thorn::host::fastop
