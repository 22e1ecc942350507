// Unary-operator kernels of the host executor.
// The lane loops must be vectorised: -O2 (the build default) leaves them scalar.
#pragma GCC optimize("O3")
#include "interp/exec/host_lanes.hpp"
#include <bit>


namespace thorn::host {

using kir::UnOp;

#define THORN_UN(R, expr)                                                         \
  return +[](const CInstr& in, Frame& fr, Lanes L) {                              \
    map1<P, R>(in, fr, L, [](RegT<P> a) -> RegT<R> { return RegT<R>(expr); });     \
  }
// A floating-point function of one argument, rounded to the type.
#define THORN_FUN(fn) \
  if constexpr (F) THORN_UN(P, sem::fix<P>(RegT<P>(fn(a))));  \
  break

namespace {

template <Prim P>
Kernel float_kernel(UnOp op) {
  constexpr bool F = sem::kFloat<P>;
  switch (op) {
    case UnOp::Sqrt: THORN_FUN(std::sqrt);
    case UnOp::Cbrt: THORN_FUN(std::cbrt);
    case UnOp::Exp: THORN_FUN(std::exp);
    case UnOp::Log: THORN_FUN(std::log);
    case UnOp::Log2: THORN_FUN(std::log2);
    case UnOp::Log10: THORN_FUN(std::log10);
    case UnOp::Log1p: THORN_FUN(std::log1p);
    case UnOp::Sin: THORN_FUN(std::sin);
    case UnOp::Cos: THORN_FUN(std::cos);
    case UnOp::Tan: THORN_FUN(std::tan);
    case UnOp::Asin: THORN_FUN(std::asin);
    case UnOp::Acos: THORN_FUN(std::acos);
    case UnOp::Atan: THORN_FUN(std::atan);
    case UnOp::Sinh: THORN_FUN(std::sinh);
    case UnOp::Cosh: THORN_FUN(std::cosh);
    case UnOp::Tanh: THORN_FUN(std::tanh);
    case UnOp::Asinh: THORN_FUN(std::asinh);
    case UnOp::Acosh: THORN_FUN(std::acosh);
    case UnOp::Atanh: THORN_FUN(std::atanh);
    case UnOp::Floor: THORN_FUN(std::floor);
    case UnOp::Ceil: THORN_FUN(std::ceil);
    case UnOp::Round: THORN_FUN(std::nearbyint);  // halfway cases to even
    case UnOp::Trunc: THORN_FUN(std::trunc);
    case UnOp::Erf: THORN_FUN(std::erf);
    case UnOp::Erfc: THORN_FUN(std::erfc);
    case UnOp::Gamma: THORN_FUN(std::tgamma);
    case UnOp::Lgamma: THORN_FUN(std::lgamma);
    default: break;
  }
  return nullptr;
}

}  // namespace

Kernel unary_kernel(UnOp op, Prim operand, Prim result) {
  return with_prim(operand, [&](auto tag) -> Kernel {
    constexpr Prim P = decltype(tag)::value;
    constexpr bool F = sem::kFloat<P>;
    constexpr bool B = P == Prim::Bool;
    constexpr bool I = !F && !B;
    switch (op) {
      case UnOp::Neg: THORN_UN(P, sem::neg<P>(a));
      case UnOp::Not: if constexpr (B) THORN_UN(P, !a); break;
      case UnOp::Complement: if constexpr (I) THORN_UN(P, ~a); break;
      case UnOp::Abs: if constexpr (!B) THORN_UN(P, sem::abs<P>(a)); break;
      case UnOp::Signum: if constexpr (!B) THORN_UN(P, sem::signum<P>(a)); break;
      case UnOp::IsNan: if constexpr (F) THORN_UN(Prim::Bool, std::isnan(a)); break;
      case UnOp::IsInf: if constexpr (F) THORN_UN(Prim::Bool, std::isinf(a)); break;
      case UnOp::Popc: if constexpr (I) THORN_UN(Prim::I32, sem::popc(a)); break;
      case UnOp::Clz: if constexpr (I) THORN_UN(Prim::I32, sem::clz(a)); break;
      case UnOp::Ctz: if constexpr (I) THORN_UN(Prim::I32, sem::ctz(a)); break;
      case UnOp::ToBits:
        if constexpr (P == Prim::F16) THORN_UN(Prim::U16, f16_bits(double(a)));
        if constexpr (P == Prim::F32) THORN_UN(Prim::U32, std::bit_cast<uint32_t>(a));
        if constexpr (P == Prim::F64) THORN_UN(Prim::U64, std::bit_cast<uint64_t>(a));
        break;
      case UnOp::FromBits:
        if constexpr (P == Prim::U16) THORN_UN(Prim::F16, float(f16_from_bits(a)));
        if constexpr (P == Prim::U32) THORN_UN(Prim::F32, std::bit_cast<float>(a));
        if constexpr (P == Prim::U64) THORN_UN(Prim::F64, std::bit_cast<double>(a));
        break;
      default: return float_kernel<P>(op);
    }
    (void)result;
    return nullptr;
  });
}

#undef THORN_UN
#undef THORN_FUN

}  // namespace thorn::host
