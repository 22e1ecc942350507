// The tiled schedule of matmul-like steps (interp/flatten/plan_tiled.hpp):
// blocks of RI rows x JW columns, the columns across vector lanes, each
// A[i, k] broadcast, B's row k read contiguously, k in blocks of KB in
// order. Every output element keeps its own accumulator (in registers
// within a block of k, in the output buffer between blocks) and sees the
// element code's operations in the element code's order:
// acc = init, then acc = acc + A[i, k] * B[k, j] for k = 0, 1, ...; with
// no fused multiply-adds (this file is compiled with -ffp-contract=off,
// CMakeLists.txt) the results are bit-identical to the interpreter's.
// Integers wrap as the interpreter's do (unsigned arithmetic).
// The product is written x * b: A[i, k] * B[k, j], the element code's order.
#pragma GCC optimize("O3")
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "interp/exec/host_executor.hpp"
#include "interp/exec/host_partition.hpp"
#include "interp/exec/host_pool.hpp"
#include "interp/exec/host_tiled.hpp"
#include "interp/util/cancel.hpp"

namespace thorn::host {

namespace {

template <class T>
struct Geometry {
  const T* a;  // A[i, k] = a[i * ai + k * ak]
  const T* b;  // B[k, j] = b[k * bk + j]
  T* c;        // out[i, j] = c[i * oi + j]
  int64_t ai, ak, bk, oi, rows, cols, depth;
  T init;
};

// One block: rows i0.. (ri of them), columns j0.. (jw), k in [k0, k1).
// The full block's columns are two vectors of VB/2 bytes (GCC's vector
// extensions: the vectoriser alone interleaves the rows with permutes).
template <class T, int RI, int JW, bool Full>
[[gnu::always_inline]] inline void block(const Geometry<T>& g, int64_t i0, int64_t j0, int64_t k0, int64_t k1,
                                         int ri_, int jw_) {
  if constexpr (Full) {
    typedef T V __attribute__((vector_size(JW * sizeof(T) / 2)));
    constexpr int L = JW / 2;
    V acc[RI][2];
    for (int r = 0; r < RI; ++r)
      for (int v = 0; v < 2; ++v) __builtin_memcpy(&acc[r][v], g.c + (i0 + r) * g.oi + j0 + v * L, sizeof(V));
    const T* arow = g.a + i0 * g.ai;
    for (int64_t k = k0; k < k1; ++k) {
      const T* brow = g.b + k * g.bk + j0;
      V b0, b1;
      __builtin_memcpy(&b0, brow, sizeof(V));
      __builtin_memcpy(&b1, brow + L, sizeof(V));
      for (int r = 0; r < RI; ++r) {
        const T x = arow[r * g.ai + k * g.ak];
        acc[r][0] = acc[r][0] + x * b0;
        acc[r][1] = acc[r][1] + x * b1;
      }
    }
    for (int r = 0; r < RI; ++r)
      for (int v = 0; v < 2; ++v) __builtin_memcpy(g.c + (i0 + r) * g.oi + j0 + v * L, &acc[r][v], sizeof(V));
  } else {
    for (int r = 0; r < ri_; ++r) {
      T* crow = g.c + (i0 + r) * g.oi + j0;
      for (int64_t k = k0; k < k1; ++k) {
        const T x = g.a[(i0 + r) * g.ai + k * g.ak];
        const T* brow = g.b + k * g.bk + j0;
        for (int j = 0; j < jw_; ++j) crow[j] = crow[j] + x * brow[j];
      }
    }
  }
}

// Rows [r0, r1): the whole product of those rows.
template <class T, int RI, int VB>
[[gnu::always_inline]] inline void rows_body(const Geometry<T>& g, int64_t r0, int64_t r1) {
  constexpr int JW = VB / int(sizeof(T));
  constexpr int64_t KB = 128;
  for (int64_t i = r0; i < r1; ++i)
    for (int64_t j = 0; j < g.cols; ++j) g.c[i * g.oi + j] = g.init;
  for (int64_t k0 = 0; k0 < g.depth; k0 += KB) {
    check_cancel();
    int64_t k1 = std::min(g.depth, k0 + KB);
    for (int64_t j0 = 0; j0 < g.cols; j0 += JW) {
      int jw = int(std::min<int64_t>(JW, g.cols - j0));
      for (int64_t i0 = r0; i0 < r1; i0 += RI) {
        int ri = int(std::min<int64_t>(RI, r1 - i0));
        if (ri == RI && jw == JW)
          block<T, RI, JW, true>(g, i0, j0, k0, k1, ri, jw);
        else
          block<T, RI, JW, false>(g, i0, j0, k0, k1, ri, jw);
      }
    }
  }
}

// Two vectors of columns per row of a block, as many rows as leave
// registers for B's vectors: SSE2 4 x 2, AVX2 6 x 2, AVX-512 8 x 2.
template <class T>
void rows_sse(const Geometry<T>& g, int64_t r0, int64_t r1) {
  rows_body<T, 4, 32>(g, r0, r1);
}
template <class T>
[[gnu::target("avx2")]] void rows_avx2(const Geometry<T>& g, int64_t r0, int64_t r1) {
  rows_body<T, 6, 64>(g, r0, r1);
}
template <class T>
[[gnu::target("avx512f")]] void rows_avx512(const Geometry<T>& g, int64_t r0, int64_t r1) {
  rows_body<T, 8, 128>(g, r0, r1);
}

template <class T>
void run_typed(const plan::TiledProduct& t, const std::byte* a, const std::byte* b, std::byte* out, int threads) {
  Geometry<T> g{reinterpret_cast<const T*>(a) + t.a0, reinterpret_cast<const T*>(b) + t.b0,
                reinterpret_cast<T*>(out) + t.o0, t.ai, t.ak, t.bk, t.oi, t.rows, t.cols, t.depth, T{}};
  if constexpr (std::is_integral_v<T>)
    g.init = T(t.init.i);
  else
    g.init = T(t.init.f);
  static const int isa = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
  auto rows = [&](int64_t r0, int64_t r1) {
    if (isa == 2)
      rows_avx512<T>(g, r0, r1);
    else if (isa == 1)
      rows_avx2<T>(g, r0, r1);
    else
      rows_sse<T>(g, r0, r1);
  };
  double work = double(t.rows) * double(t.cols) * double(std::max<int64_t>(t.depth, 1));
  if (threads <= 1 || work < double(1 << 16) || t.rows < 16) {
    rows(0, t.rows);
    return;
  }
  // Blocks of rows handed out dynamically, a few per thread.
  for_chunks_of(t.rows, int64_t(threads) * 4, 8, [&](int64_t r0, int64_t r1, int) { rows(r0, r1); });
}

// Every index the schedule computes lies in its array (the affine indices
// take their extremes at the corners), and the output overlaps no input.
bool in_range(int64_t c0, int64_t c1, int64_t n1, int64_t c2, int64_t n2, int64_t count) {
  int64_t lo = c0, hi = c0;
  for (auto [c, n] : {std::pair{c1, n1}, std::pair{c2, n2}}) {
    int64_t e = c * (n - 1);
    (e < 0 ? lo : hi) += e;
  }
  return lo >= 0 && hi < count;
}

}  // namespace

bool tiled_enabled() {
  const char* e = std::getenv("THORN_TILED");
  return !(e && std::strcmp(e, "0") == 0);
}

bool run_tiled(const plan::TiledProduct& t, const plan::Step& step, std::vector<BufferPtr>& buffers,
               const ExecOptions& options) {
  if (t.rows <= 0 || t.cols <= 0) return false;
  const Buffer& ab = *buffers.at(size_t(step.reads.at(size_t(t.a))));
  const Buffer& bb = *buffers.at(size_t(step.reads.at(size_t(t.b))));
  Buffer& ob = *buffers.at(size_t(step.reads.at(size_t(t.out))));
  if (&ob == &ab || &ob == &bb) return false;
  if (!in_range(t.o0, t.oi, t.rows, 1, t.cols, ob.count())) return false;
  if (t.depth > 0 && (!in_range(t.a0, t.ai, t.rows, t.ak, t.depth, ab.count()) ||
                      !in_range(t.b0, t.bk, t.depth, 1, t.cols, bb.count())))
    return false;
  const std::byte* a = ab.host();
  const std::byte* b = bb.host();
  std::byte* out = ob.host_mut();
  ThreadPool& pool = ThreadPool::instance();
  int threads = options.max_threads > 0 ? std::min(options.max_threads, pool.size()) : pool.size();
  switch (t.type) {
    case Prim::F64: run_typed<double>(t, a, b, out, threads); return true;
    case Prim::F32: run_typed<float>(t, a, b, out, threads); return true;
    case Prim::I64: run_typed<uint64_t>(t, a, b, out, threads); return true;  // wrapping
    case Prim::I32: run_typed<uint32_t>(t, a, b, out, threads); return true;
    default: return false;
  }
}

}  // namespace thorn::host
