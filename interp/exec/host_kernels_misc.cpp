// Comparison, conversion, select, read and check kernels of the host executor.
// The lane loops must be vectorised: -O2 (the build default) leaves them scalar.
#pragma GCC optimize("O3")
#include <fmt/format.h>

#include "interp/exec/host_lanes.hpp"
#include "interp/util/error.hpp"

namespace thorn::host {

using kir::CmpOp;

#define THORN_CMP(expr)                                                                   \
  return +[](const CInstr& in, Frame& fr, Lanes L) {                                      \
    map2<P, Prim::Bool>(in, fr, L, [](RegT<P> a, RegT<P> b) -> uint8_t { return expr; }); \
  }

Kernel compare_kernel(CmpOp op, Prim t) {
  return with_prim(t, [&](auto tag) -> Kernel {
    constexpr Prim P = decltype(tag)::value;
    switch (op) {
      case CmpOp::Eq: THORN_CMP(a == b);
      case CmpOp::Ne: THORN_CMP(a != b);
      case CmpOp::Lt: THORN_CMP(a < b);
      case CmpOp::Le: THORN_CMP(a <= b);
      case CmpOp::Gt: THORN_CMP(a > b);
      case CmpOp::Ge: THORN_CMP(a >= b);
    }
    return nullptr;
  });
}
#undef THORN_CMP

Kernel convert_kernel(Prim from, Prim to) {
  return with_prim(from, [&](auto ftag) -> Kernel {
    return with_prim(to, [&](auto ttag) -> Kernel {
      constexpr Prim A = decltype(ftag)::value;
      constexpr Prim R = decltype(ttag)::value;
      return +[](const CInstr& in, Frame& fr, Lanes L) {
        map1<A, R>(in, fr, L, [](RegT<A> a) { return sem::convert<A, R>(a); });
      };
    });
  });
}

namespace {

template <class U>
void select_lanes(const CInstr& in, Frame& fr, Lanes L) {
  const uint8_t* __restrict c = fr.in<uint8_t>(in.a);
  const U* __restrict a = fr.in<U>(in.b);
  const U* __restrict b = fr.in<U>(in.c);
  U* __restrict d = fr.out<U>(in.dst);
  for_lanes(L, [&](int l) { d[l] = c[l] ? a[l] : b[l]; });
}

[[noreturn]] void out_of_bounds(const Frame& fr, int array, int64_t index, int64_t count) {
  throw Error(ErrorKind::Runtime,
              fmt::format("index {} out of bounds for an array of {} elements (free array a{} of {})",
                          index, count, array, fr.prog->name));
}

template <Prim P>
void read_lanes(const CInstr& in, Frame& fr, Lanes L) {
  using T = RegT<P>;
  const ArrayBinding& arr = fr.arrays[size_t(in.aux)];
  if (in.aux2 >= 0 && !L.sel && L.n > 0) {
    const Affine& af = fr.prog->affine[size_t(in.aux2)];
    const Tile& t = fr.tile;
    if (t.consecutive && (af.flat || t.single_segment)) {
      int64_t start = t.single_segment ? af.cs * t.s0 + af.cj * t.j0 + af.c0 : af.cj * t.flat0 + af.c0;
      int64_t stride = af.cj;
      int64_t last = start + stride * (L.n - 1);
      if (start < 0 || start >= arr.count) out_of_bounds(fr, in.aux, start, arr.count);
      if (last < 0 || last >= arr.count) out_of_bounds(fr, in.aux, last, arr.count);
      if constexpr (P != Prim::F16) {
        if (stride == 1) {  // the register is the input itself
          fr.regs[size_t(in.dst)] = const_cast<std::byte*>(arr.data) + start * int64_t(sizeof(T));
          return;
        }
      }
      T* __restrict d = fr.out<T>(in.dst);
      for (int l = 0; l < L.n; ++l) d[l] = load_elem<P>(arr.data, start + stride * l);
      return;
    }
  }
  const int64_t* idx = fr.in<int64_t>(in.a);
  T* __restrict d = fr.out<T>(in.dst);
  for_lanes(L, [&](int l) {
    int64_t i = idx[l];
    if (i < 0 || i >= arr.count) out_of_bounds(fr, in.aux, i, arr.count);
    d[l] = load_elem<P>(arr.data, i);
  });
}

void check_lanes(const CInstr& in, Frame& fr, Lanes L) {
  const uint8_t* c = fr.in<uint8_t>(in.a);
  bool ok = true;
  for_lanes(L, [&](int l) { ok &= c[l] != 0; });
  if (!ok) {
    const Program& p = *fr.prog;
    throw Error(ErrorKind::Runtime, p.message_locs[size_t(in.aux)], p.messages[size_t(in.aux)]);
  }
}

}  // namespace

Kernel select_kernel(Prim t) {
  switch (reg_bytes(t)) {
    case 1: return &select_lanes<uint8_t>;
    case 2: return &select_lanes<uint16_t>;
    case 4: return &select_lanes<uint32_t>;
    default: return &select_lanes<uint64_t>;
  }
}

Kernel read_kernel(Prim t) {
  return with_prim(t, [](auto tag) -> Kernel { return &read_lanes<decltype(tag)::value>; });
}

Kernel check_kernel() { return &check_lanes; }

}  // namespace thorn::host
