#pragma once
// Lane loops shared by the host executor's kernels (internal header).
#include "interp/exec/host_program.hpp"
#include "interp/exec/host_semantics.hpp"

namespace thorn::host {

// d[l] = f(l) for every active lane; the dense branch is a plain counted
// loop the compiler can vectorise.
template <class F>
inline void for_lanes(Lanes L, F&& f) {
  if (!L.sel) {
    for (int l = 0; l < L.n; ++l) f(l);
  } else {
    for (int k = 0; k < L.n; ++k) f(L.sel[k]);
  }
}

template <Prim P, Prim R = P, class F>
inline void map1(const CInstr& in, Frame& fr, Lanes L, F f) {
  using T = RegT<P>;
  using D = RegT<R>;
  const T* __restrict a = fr.in<T>(in.a);
  D* __restrict d = fr.out<D>(in.dst);
  if (!L.sel) {
    for (int l = 0; l < L.n; ++l) d[l] = f(a[l]);
  } else {
    for (int k = 0; k < L.n; ++k) {
      int l = L.sel[k];
      d[l] = f(a[l]);
    }
  }
}

template <Prim P, Prim R = P, class F>
inline void map2(const CInstr& in, Frame& fr, Lanes L, F f) {
  using T = RegT<P>;
  using D = RegT<R>;
  const T* __restrict a = fr.in<T>(in.a);
  const T* __restrict b = fr.in<T>(in.b);
  D* __restrict d = fr.out<D>(in.dst);
  if (!L.sel) {
    for (int l = 0; l < L.n; ++l) d[l] = f(a[l], b[l]);
  } else {
    for (int k = 0; k < L.n; ++k) {
      int l = L.sel[k];
      d[l] = f(a[l], b[l]);
    }
  }
}

// Loads element i of a buffer of Prim P into register representation.
template <Prim P>
inline RegT<P> load_elem(const std::byte* base, int64_t i) {
  if constexpr (P == Prim::F16) {
    uint16_t bits;
    std::memcpy(&bits, base + i * 2, 2);
    return float(f16_from_bits(bits));
  } else if constexpr (P == Prim::Bool) {
    return RegT<P>(reinterpret_cast<const uint8_t*>(base)[i] != 0);
  } else {
    return reinterpret_cast<const RegT<P>*>(base)[i];
  }
}

template <Prim P>
inline void store_elem(std::byte* base, int64_t i, RegT<P> v) {
  if constexpr (P == Prim::F16) {
    uint16_t bits = f16_bits(double(v));
    std::memcpy(base + i * 2, &bits, 2);
  } else {
    reinterpret_cast<RegT<P>*>(base)[i] = v;
  }
}

}  // namespace thorn::host
