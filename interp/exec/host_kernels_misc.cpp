// Comparison, conversion, select, read and check kernels of the host executor.
// The lane loops must be vectorised: -O2 (the build default) leaves them scalar.
#pragma GCC optimize("O3")
#include <optional>

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

// Private arrays: lane l's element i is at i * fr.lanes + l. Indices were
// checked by the lowering's Check instructions (the program's own errors);
// this test only keeps a planner bug from writing outside the storage.
[[noreturn]] void local_out_of_bounds(const Frame& fr, int local, int64_t index) {
  throw Error(ErrorKind::Internal, fmt::format("index {} out of bounds for private array l{} of {} ({} elements)",
                                               index, local, fr.prog->name,
                                               fr.prog->locals[size_t(local)].count));
}

template <Prim P>
void local_read_lanes(const CInstr& in, Frame& fr, Lanes L) {
  using T = RegT<P>;
  const T* loc = reinterpret_cast<const T*>(fr.locals[size_t(in.aux)]);
  uint64_t count = uint64_t(fr.prog->locals[size_t(in.aux)].count);
  const int64_t* idx = fr.in<int64_t>(in.a);
  T* __restrict d = fr.out<T>(in.dst);
  for_lanes(L, [&](int l) {
    if (uint64_t(idx[l]) >= count) local_out_of_bounds(fr, in.aux, idx[l]);
    d[l] = loc[size_t(idx[l]) * size_t(fr.lanes) + size_t(l)];
  });
}

template <Prim P>
void local_write_lanes(const CInstr& in, Frame& fr, Lanes L) {
  using T = RegT<P>;
  T* loc = reinterpret_cast<T*>(fr.locals[size_t(in.aux)]);
  uint64_t count = uint64_t(fr.prog->locals[size_t(in.aux)].count);
  const int64_t* idx = fr.in<int64_t>(in.a);
  const T* v = fr.in<T>(in.b);
  for_lanes(L, [&](int l) {
    if (uint64_t(idx[l]) >= count) local_out_of_bounds(fr, in.aux, idx[l]);
    loc[size_t(idx[l]) * size_t(fr.lanes) + size_t(l)] = v[l];
  });
}

// A row of a step's output, written by the element that computes it.
template <Prim P>
void write_lanes(const CInstr& in, Frame& fr, Lanes L) {
  const ArrayBinding& arr = fr.arrays[size_t(in.aux)];
  std::byte* data = const_cast<std::byte*>(arr.data);  // a `written` free array: the step's own output
  const int64_t* idx = fr.in<int64_t>(in.a);
  const RegT<P>* v = fr.in<RegT<P>>(in.b);
  for_lanes(L, [&](int l) {
    if (idx[l] < 0 || idx[l] >= arr.count) out_of_bounds(fr, in.aux, idx[l], arr.count);
    store_elem<P>(data, idx[l], v[l]);
  });
}

void check_lanes(const CInstr& in, Frame& fr, Lanes L) {
  const uint8_t* c = fr.in<uint8_t>(in.a);
  bool ok = true;
  for_lanes(L, [&](int l) { ok &= c[l] != 0; });
  if (!ok) {
    const Program& p = *fr.prog;
    // The values of the first failing lane.
    int failing = -1;
    for_lanes(L, [&](int l) {
      if (!c[l] && failing < 0) failing = l;
    });
    std::optional<int64_t> index, value2, value3;
    if (in.b >= 0) index = fr.in<int64_t>(in.b)[failing];
    if (in.c >= 0) value2 = fr.in<int64_t>(in.c)[failing];
    if (in.aux2 >= 0) value3 = fr.in<int64_t>(in.aux2)[failing];
    throw Error(ErrorKind::Runtime, p.message_locs[size_t(in.aux)],
                kir::check_message(p.messages[size_t(in.aux)], index ? &*index : nullptr, value2 ? &*value2 : nullptr,
                                   value3 ? &*value3 : nullptr));
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

Kernel local_read_kernel(Prim t) {
  return with_prim(t, [](auto tag) -> Kernel { return &local_read_lanes<decltype(tag)::value>; });
}

Kernel local_write_kernel(Prim t) {
  return with_prim(t, [](auto tag) -> Kernel { return &local_write_lanes<decltype(tag)::value>; });
}

Kernel write_kernel(Prim t) {
  return with_prim(t, [](auto tag) -> Kernel { return &write_lanes<decltype(tag)::value>; });
}

}  // namespace thorn::host
