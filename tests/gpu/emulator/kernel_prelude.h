// Included before a generated kernel source when the emulator compiles it for
// the host (-include): the CUDA built-ins the kernels use, in terms of the
// fiber runtime of emu_runtime.cpp (whose symbols the test executable exports).
#pragma once
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernel_prelude_api.h"

#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __restrict__ __restrict
#define __shared__ static  // blocks run one after another, so a static is per block
#define threadIdx (*thorn_emu_thread_idx())
#define blockIdx (*thorn_emu_block_idx())
#define blockDim (*thorn_emu_block_dim())
#define gridDim (*thorn_emu_grid_dim())

inline void __syncthreads() { thorn_emu_syncthreads(); }
inline void __syncwarp(unsigned = 0xffffffffu) { thorn_emu_syncwarp(); }

template <class T>
inline T thorn_emu_shfl_t(T v, int mode, int d) {
  unsigned long long bits = 0;
  memcpy(&bits, &v, sizeof(T));
  bits = thorn_emu_shfl(bits, mode, d);
  T r;
  memcpy(&r, &bits, sizeof(T));
  return r;
}
template <class T>
inline T __shfl_down_sync(unsigned, T v, int d) { return thorn_emu_shfl_t(v, 0, d); }
template <class T>
inline T __shfl_xor_sync(unsigned, T v, int d) { return thorn_emu_shfl_t(v, 1, d); }
template <class T>
inline T __shfl_up_sync(unsigned, T v, int d) { return thorn_emu_shfl_t(v, 2, d); }

// Fibers never preempt each other: a plain read-modify-write is atomic.
inline int atomicCAS(int* p, int compare, int val) {
  int old = *p;
  if (old == compare) *p = val;
  return old;
}
// The scan's dynamic block counter. Blocks run one after another, so a
// memory fence has nothing to order.
inline unsigned atomicAdd(unsigned* p, unsigned v) {
  unsigned old = *p;
  *p = old + v;
  return old;
}
// The histogram's updates (gpu/codegen/hist_atomic.cpp): every overload of
// the CUDA atomics it uses, plain read-modify-writes for the same reason.
inline unsigned atomicCAS(unsigned* p, unsigned compare, unsigned val) {
  unsigned old = *p;
  if (old == compare) *p = val;
  return old;
}
inline unsigned long long atomicCAS(unsigned long long* p, unsigned long long compare, unsigned long long val) {
  unsigned long long old = *p;
  if (old == compare) *p = val;
  return old;
}
inline unsigned atomicExch(unsigned* p, unsigned v) {
  unsigned old = *p;
  *p = v;
  return old;
}
#define THORN_EMU_RMW(name, T, expr)   \
  inline T name(T* p, T v) {           \
    T old = *p;                        \
    *p = (expr);                       \
    return old;                        \
  }
THORN_EMU_RMW(atomicAdd, int, (int)((unsigned)old + (unsigned)v))
THORN_EMU_RMW(atomicAdd, unsigned long long, old + v)
THORN_EMU_RMW(atomicAdd, float, old + v)
THORN_EMU_RMW(atomicAdd, double, old + v)
THORN_EMU_RMW(atomicMin, int, v < old ? v : old)
THORN_EMU_RMW(atomicMin, unsigned, v < old ? v : old)
THORN_EMU_RMW(atomicMin, long long, v < old ? v : old)
THORN_EMU_RMW(atomicMin, unsigned long long, v < old ? v : old)
THORN_EMU_RMW(atomicMax, int, v > old ? v : old)
THORN_EMU_RMW(atomicMax, unsigned, v > old ? v : old)
THORN_EMU_RMW(atomicMax, long long, v > old ? v : old)
THORN_EMU_RMW(atomicMax, unsigned long long, v > old ? v : old)
THORN_EMU_RMW(atomicAnd, unsigned, old & v)
THORN_EMU_RMW(atomicAnd, unsigned long long, old & v)
THORN_EMU_RMW(atomicOr, unsigned, old | v)
THORN_EMU_RMW(atomicOr, unsigned long long, old | v)
THORN_EMU_RMW(atomicXor, unsigned, old ^ v)
THORN_EMU_RMW(atomicXor, unsigned long long, old ^ v)
#undef THORN_EMU_RMW
inline void __threadfence() {}
template <class T>
inline T __ldg(const T* p) { return *p; }

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
inline double __longlong_as_double(long long i) { double d; memcpy(&d, &i, 8); return d; }
inline long long __double_as_longlong(double d) { long long i; memcpy(&i, &d, 8); return i; }

// f16 conversions (the device does these with PTX cvt), round to nearest even.
inline float thorn_h2f(unsigned short h) { _Float16 x; memcpy(&x, &h, 2); return (float)x; }
inline unsigned short thorn_f2h(float f) { _Float16 x = (_Float16)f; unsigned short h; memcpy(&h, &x, 2); return h; }
inline unsigned short thorn_d2h(double d) { _Float16 x = (_Float16)d; unsigned short h; memcpy(&h, &x, 2); return h; }
