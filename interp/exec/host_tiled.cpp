// The tiled schedule of product-like steps (interp/flatten/plan_tiled.hpp):
// blocks of RI rows x JW columns, the columns across vector lanes, each
// A[i, k] broadcast, k in blocks of KB in order. For each block of k and
// of columns, B's panel (KB x JW) is first packed contiguously: B's rows
// may be 4 KiB apart (matmul 512^3), where they share L1 sets and evict
// each other, or B[k, j] may be strided in j (k-means's centres, b's rows).
// Every output element keeps its own accumulator (in registers within a
// block of k, in the output or a scratch row between blocks) and sees the
// element code's operations in the element code's order:
// acc = init, then acc = acc + A[i, k] * B[k, j] (or
// acc + (A[i, k] - B[k, j]) * (A[i, k] - B[k, j])) for k = 0, 1, ...; with
// no fused multiply-adds (this file is compiled with -ffp-contract=off,
// CMakeLists.txt) the results are bit-identical to the interpreter's.
// Integers wrap as the interpreter's do (unsigned arithmetic). An argmin
// runs over each finished row in column order with the element code's
// comparison (its truth table).
#pragma GCC optimize("O3")
// step() returns vectors by value; it is always inlined, so no call ever
// passes them (GCC warns about the ABI of such calls all the same).
#pragma GCC diagnostic ignored "-Wpsabi"
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "interp/exec/host_executor.hpp"
#include "interp/exec/host_partition.hpp"
#include "interp/exec/host_pool.hpp"
#include "interp/exec/host_tiled.hpp"
#include "interp/util/cancel.hpp"

namespace thorn::host {

namespace {

// The term, with the operands in the element code's order: A's element x
// (broadcast) and B's y (across lanes), or swapped (Rev: B broadcast, A
// across lanes; the argmin's schedule, which puts the rows across lanes).
enum class Term { Mul, SqDiff, MulRev, SqDiffRev };
constexpr int64_t KB = 128;

template <class T>
struct Geometry {
  const T* a;  // A[i, k] = a[i * ai + k * ak]
  const T* b;  // B[k, j] = b[k * bk + j * bj]
  int64_t ai, ak, bk, bj, cols, depth;
  T init;
};

// acc + term(x, y), in the element code's order.
template <Term TM, class A, class X, class Y>
[[gnu::always_inline]] inline A step(A acc, X x, Y y) {
  if constexpr (TM == Term::Mul) {
    return acc + x * y;
  } else if constexpr (TM == Term::MulRev) {
    return acc + y * x;
  } else if constexpr (TM == Term::SqDiff) {
    auto d = x - y;
    return acc + d * d;
  } else {
    auto d = y - x;
    return acc + d * d;
  }
}

// B[k0..k1)[j0..j0+jw) into p, row-major with rows of JW (the rest zero).
template <class T, int JW>
[[gnu::always_inline]] inline void pack(const Geometry<T>& g, T* p, int64_t k0, int64_t k1, int64_t j0, int jw) {
  for (int64_t k = k0; k < k1; ++k) {
    const T* src = g.b + k * g.bk + j0 * g.bj;
    T* dst = p + (k - k0) * JW;
    if (g.bj == 1) {
      std::memcpy(dst, src, size_t(jw) * sizeof(T));
    } else {
      for (int j = 0; j < jw; ++j) dst[j] = src[j * g.bj];
    }
    for (int j = jw; j < JW; ++j) dst[j] = T{};
  }
}

// One block: rows i0.. (ri of them) of C (row stride ldc, C's row 0 is
// row c0), columns j0.. (jw), k in [k0, k1) from the packed panel p. The
// full block's columns are two vectors of JW/2 (GCC's vector extensions:
// the vectoriser alone interleaves the rows with permutes).
template <class T, Term TM, int RI, int JW, bool Full>
[[gnu::always_inline]] inline void block(const Geometry<T>& g, const T* p, T* c, int64_t ldc, int64_t i0,
                                         int64_t j0, int64_t k0, int64_t k1, int ri_, int jw_) {
  if constexpr (Full) {
    typedef T V __attribute__((vector_size(JW * sizeof(T) / 2)));
    constexpr int L = JW / 2;
    V acc[RI][2];
    for (int r = 0; r < RI; ++r)
      for (int v = 0; v < 2; ++v) __builtin_memcpy(&acc[r][v], c + r * ldc + j0 + v * L, sizeof(V));
    const T* arow = g.a + i0 * g.ai;
    for (int64_t k = k0; k < k1; ++k) {
      const T* prow = p + (k - k0) * JW;
      V b0, b1;
      __builtin_memcpy(&b0, prow, sizeof(V));
      __builtin_memcpy(&b1, prow + L, sizeof(V));
      for (int r = 0; r < RI; ++r) {
        const T x = arow[r * g.ai + k * g.ak];
        acc[r][0] = step<TM>(acc[r][0], x, b0);
        acc[r][1] = step<TM>(acc[r][1], x, b1);
      }
    }
    for (int r = 0; r < RI; ++r)
      for (int v = 0; v < 2; ++v) __builtin_memcpy(c + r * ldc + j0 + v * L, &acc[r][v], sizeof(V));
  } else {
    for (int r = 0; r < ri_; ++r) {
      T* crow = c + r * ldc + j0;
      for (int64_t k = k0; k < k1; ++k) {
        const T x = g.a[(i0 + r) * g.ai + k * g.ak];
        const T* prow = p + (k - k0) * JW;
        for (int j = 0; j < jw_; ++j) crow[j] = step<TM>(crow[j], x, prow[j]);
      }
    }
  }
}

// Rows [r0, r1) of the sums into C (row r0 at c, row stride ldc).
template <class T, Term TM, int RI, int VB>
[[gnu::always_inline]] inline void rows_body(const Geometry<T>& g, T* c, int64_t ldc, int64_t r0, int64_t r1) {
  constexpr int JW = VB / int(sizeof(T));
  alignas(64) T panel[KB * JW];
  for (int64_t i = r0; i < r1; ++i)
    for (int64_t j = 0; j < g.cols; ++j) c[(i - r0) * ldc + j] = g.init;
  for (int64_t k0 = 0; k0 < g.depth; k0 += KB) {
    check_cancel();
    int64_t k1 = std::min(g.depth, k0 + KB);
    for (int64_t j0 = 0; j0 < g.cols; j0 += JW) {
      int jw = int(std::min<int64_t>(JW, g.cols - j0));
      pack<T, JW>(g, panel, k0, k1, j0, jw);
      for (int64_t i0 = r0; i0 < r1; i0 += RI) {
        int ri = int(std::min<int64_t>(RI, r1 - i0));
        T* cb = c + (i0 - r0) * ldc;
        if (ri == RI && jw == JW)
          block<T, TM, RI, JW, true>(g, panel, cb, ldc, i0, j0, k0, k1, ri, jw);
        else
          block<T, TM, RI, JW, false>(g, panel, cb, ldc, i0, j0, k0, k1, ri, jw);
      }
    }
  }
}

// Two vectors of columns per row of a block, as many rows as leave
// registers for B's vectors: SSE2 4 x 2, AVX2 6 x 2, AVX-512 8 x 2.
template <class T, Term TM>
void rows_sse(const Geometry<T>& g, T* c, int64_t ldc, int64_t r0, int64_t r1) {
  rows_body<T, TM, 4, 32>(g, c, ldc, r0, r1);
}
template <class T, Term TM>
[[gnu::target("avx2")]] void rows_avx2(const Geometry<T>& g, T* c, int64_t ldc, int64_t r0, int64_t r1) {
  rows_body<T, TM, 6, 64>(g, c, ldc, r0, r1);
}
template <class T, Term TM>
[[gnu::target("avx512f")]] void rows_avx512(const Geometry<T>& g, T* c, int64_t ldc, int64_t r0, int64_t r1) {
  rows_body<T, TM, 8, 128>(g, c, ldc, r0, r1);
}

template <class T>
using RowsFn = void (*)(const Geometry<T>&, T*, int64_t, int64_t, int64_t);

template <class T, Term TM>
RowsFn<T> pick_isa() {
  static const int isa = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
  return isa == 2 ? rows_avx512<T, TM> : isa == 1 ? rows_avx2<T, TM> : rows_sse<T, TM>;
}

// The argmin of columns [0, w) of `rows` rows of S (row stride lds) down
// the rows, in row order: the element code's running pair per column,
// kept or replaced by its truth table (plan_tiled.hpp). Columns across
// lanes; f64 with explicit vectors (lanes of int64 masks), else scalar.
template <class T, int VB>
[[gnu::always_inline]] inline void argmin_body(const plan::TiledProduct& t, const T* S, int64_t lds, int64_t rows,
                                               int64_t w, T* best, int64_t* idx) {
  const T best0 = T(t.best0.f);
  int64_t c = 0;
  if constexpr (sizeof(T) == 8 && VB >= 32) {
    constexpr int L = VB / 8;
    typedef T V __attribute__((vector_size(VB)));
    typedef int64_t VI __attribute__((vector_size(VB)));
    const VI keep = VI{} + int64_t(t.keep);
    for (; c + L <= w; c += L) {
      V b = V{} + best0;
      VI ix = VI{} + t.idx0;
      for (int64_t j = 0; j < rows; ++j) {
        V x;
        __builtin_memcpy(&x, S + j * lds + c, sizeof(V));
        VI key = ((b < x) & 1) | ((b == x) & 2) | ((ix < j) & 4);
        VI stay = ((keep >> key) & 1) != 0;
        b = stay ? b : x;
        ix = stay ? ix : VI{} + j;
      }
      __builtin_memcpy(best + c, &b, sizeof(V));
      __builtin_memcpy(idx + c, &ix, sizeof(VI));
    }
  }
  for (; c < w; ++c) {
    T b = best0;
    int64_t ix = t.idx0;
    for (int64_t j = 0; j < rows; ++j) {
      T x = S[j * lds + c];
      unsigned key = unsigned(b < x) | unsigned(b == x) << 1 | unsigned(ix < j) << 2;
      bool stay = (t.keep >> key) & 1;
      b = stay ? b : x;
      ix = stay ? ix : j;
    }
    best[c] = b;
    idx[c] = ix;
  }
}

template <class T>
void argmin_sse(const plan::TiledProduct& t, const T* S, int64_t lds, int64_t rows, int64_t w, T* best,
                int64_t* idx) {
  argmin_body<T, 16>(t, S, lds, rows, w, best, idx);
}
template <class T>
[[gnu::target("avx2")]] void argmin_avx2(const plan::TiledProduct& t, const T* S, int64_t lds, int64_t rows,
                                         int64_t w, T* best, int64_t* idx) {
  argmin_body<T, 32>(t, S, lds, rows, w, best, idx);
}
template <class T>
[[gnu::target("avx512f")]] void argmin_avx512(const plan::TiledProduct& t, const T* S, int64_t lds, int64_t rows,
                                              int64_t w, T* best, int64_t* idx) {
  argmin_body<T, 64>(t, S, lds, rows, w, best, idx);
}

// Rows [r0, r1) of the step reduced by the argmin, W rows at a time: the
// transposed sums first (S[j][i], the step's rows across lanes, from the
// swapped geometry g: its rows are the step's columns), then the argmin
// down S's rows, which is the element code's loop over j for each i.
template <class T>
void argmin_rows(const plan::TiledProduct& t, RowsFn<T> rows, const Geometry<T>& g, int64_t a_row, std::byte* out,
                 int64_t r0, int64_t r1) {
  static const int isa = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
  const int64_t W = std::clamp<int64_t>(((int64_t(1) << 13) / std::max<int64_t>(t.cols, 1)) / 16 * 16, 16, 512);
  std::vector<T> S(size_t(W * t.cols)), best(static_cast<size_t>(W));
  std::vector<int64_t> idx(static_cast<size_t>(W));
  for (int64_t p0 = r0; p0 < r1; p0 += W) {
    int64_t w = std::min(r1 - p0, W);
    Geometry<T> gp = g;
    gp.b += p0 * a_row;
    gp.cols = w;
    rows(gp, S.data(), W, 0, t.cols);
    if (isa == 2)
      argmin_avx512<T>(t, S.data(), W, t.cols, w, best.data(), idx.data());
    else if (isa == 1)
      argmin_avx2<T>(t, S.data(), W, t.cols, w, best.data(), idx.data());
    else
      argmin_sse<T>(t, S.data(), W, t.cols, w, best.data(), idx.data());
    if (t.want_index)
      std::memcpy(reinterpret_cast<int64_t*>(out) + p0, idx.data(), size_t(w) * sizeof(int64_t));
    else
      std::memcpy(reinterpret_cast<T*>(out) + p0, best.data(), size_t(w) * sizeof(T));
  }
}

template <class T>
T initial(const plan::TiledProduct& t) {
  if constexpr (std::is_integral_v<T>)
    return T(t.init.i);
  else
    return T(t.init.f);
}

// Rows across threads: blocks of rows handed out dynamically, a few per
// thread.
template <class Fn>
void split_rows(const plan::TiledProduct& t, int threads, Fn&& part) {
  double work = double(t.rows) * double(t.cols) * double(std::max<int64_t>(t.depth, 1));
  if (threads <= 1 || work < double(1 << 16) || t.rows < 16) {
    part(0, t.rows);
    return;
  }
  for_chunks_of(t.rows, int64_t(threads) * 4, 16, [&](int64_t r0, int64_t r1, int) { part(r0, r1); });
}

template <class T, Term TM>
void run_store(const plan::TiledProduct& t, const std::byte* a, const std::byte* b, std::byte* out, int threads) {
  Geometry<T> g{reinterpret_cast<const T*>(a) + t.a0, reinterpret_cast<const T*>(b) + t.b0, t.ai, t.ak, t.bk,
                t.bj, t.cols, t.depth, initial<T>(t)};
  RowsFn<T> rows = pick_isa<T, TM>();
  T* c = reinterpret_cast<T*>(out) + t.o0;
  split_rows(t, threads, [&](int64_t r0, int64_t r1) { rows(g, c + r0 * t.oi, t.oi, r0, r1); });
}

// The argmin's sums with A and B swapped: rows are B's columns j, columns
// A's rows i (so B'[k, i] = A[i, k]), the term's operands reversed.
template <class T, Term TM>
void run_argmin(const plan::TiledProduct& t, const std::byte* a, const std::byte* b, std::byte* out, int threads) {
  Geometry<T> g{reinterpret_cast<const T*>(b) + t.b0, reinterpret_cast<const T*>(a) + t.a0, t.bj, t.bk, t.ak,
                t.ai, t.rows, t.depth, initial<T>(t)};
  RowsFn<T> rows = pick_isa<T, TM>();
  split_rows(t, threads, [&](int64_t r0, int64_t r1) { argmin_rows<T>(t, rows, g, t.ai, out, r0, r1); });
}

template <class T>
void run_typed(const plan::TiledProduct& t, const std::byte* a, const std::byte* b, std::byte* out, int threads) {
  using PT = plan::TiledProduct::Term;
  if (t.use == plan::TiledProduct::Use::ArgMin) {
    if constexpr (std::is_floating_point_v<T>) {
      if (t.term == PT::Mul)
        run_argmin<T, Term::MulRev>(t, a, b, out, threads);
      else
        run_argmin<T, Term::SqDiffRev>(t, a, b, out, threads);
    }
    return;
  }
  if (t.term == PT::Mul)
    run_store<T, Term::Mul>(t, a, b, out, threads);
  else
    run_store<T, Term::SqDiff>(t, a, b, out, threads);
}

// Every index the schedule computes lies in its array (the affine indices
// take their extremes at the corners).
bool in_range(int64_t c0, int64_t c1, int64_t n1, int64_t c2, int64_t n2, int64_t count) {
  int64_t lo = c0, hi = c0;
  for (auto [c, n] : {std::pair{c1, n1}, std::pair{c2, n2}}) {
    int64_t e = c * (n - 1);
    (e < 0 ? lo : hi) += e;
  }
  return lo >= 0 && hi < count;
}

// The element's invariant checks hold (else the planned step reports them).
bool checks_hold(const plan::TiledProduct& t, const plan::Step& step, const std::vector<BufferPtr>& buffers) {
  auto value = [&](int arr, int64_t x, int64_t& v) {
    if (arr < 0) {
      v = x;
      return true;
    }
    const Buffer& b = *buffers.at(size_t(step.reads.at(size_t(arr))));
    if (b.elem() != Prim::I64 || x < 0 || x >= b.count()) return false;
    v = reinterpret_cast<const int64_t*>(b.host())[x];
    return true;
  };
  for (const plan::TiledProduct::Check& c : t.checks) {
    int64_t x, y;
    if (!value(c.xa, c.x, x) || !value(c.ya, c.y, y)) return false;
    bool ok = false;
    switch (c.op) {
      case kir::CmpOp::Eq: ok = x == y; break;
      case kir::CmpOp::Ne: ok = x != y; break;
      case kir::CmpOp::Lt: ok = x < y; break;
      case kir::CmpOp::Le: ok = x <= y; break;
      case kir::CmpOp::Gt: ok = x > y; break;
      case kir::CmpOp::Ge: ok = x >= y; break;
    }
    if (!ok) return false;
  }
  return true;
}

std::atomic<uint64_t> runs{0};

}  // namespace

uint64_t tiled_runs() { return runs.load(); }

bool tiled_enabled() {
  const char* e = std::getenv("THORN_TILED");
  return !(e && std::strcmp(e, "0") == 0);
}

bool run_tiled(const plan::TiledProduct& t, const plan::Step& step, std::vector<BufferPtr>& buffers,
               const ExecOptions& options) {
  using Use = plan::TiledProduct::Use;
  if (t.rows <= 0 || t.cols <= 0) return false;
  if (!checks_hold(t, step, buffers)) return false;
  const Buffer& ab = *buffers.at(size_t(step.reads.at(size_t(t.a))));
  const Buffer& bb = *buffers.at(size_t(step.reads.at(size_t(t.b))));
  Buffer& ob = *buffers.at(size_t(t.use == Use::Store ? step.reads.at(size_t(t.out)) : step.writes.at(0)));
  if (&ob == &ab || &ob == &bb) return false;
  if (t.use == Use::Store) {
    if (!in_range(t.o0, t.oi, t.rows, 1, t.cols, ob.count())) return false;
  } else {
    if (ob.count() < t.rows || ob.elem() != (t.want_index ? Prim::I64 : t.type)) return false;
    if (t.cols > (int64_t(1) << 20)) return false;  // the scratch rows would not fit the caches anyway
  }
  if (t.depth > 0 && (!in_range(t.a0, t.ai, t.rows, t.ak, t.depth, ab.count()) ||
                      !in_range(t.b0, t.bk, t.depth, t.bj, t.cols, bb.count())))
    return false;
  const std::byte* a = ab.host();
  const std::byte* b = bb.host();
  std::byte* out = ob.host_mut();
  ThreadPool& pool = ThreadPool::instance();
  int threads = options.max_threads > 0 ? std::min(options.max_threads, pool.size()) : pool.size();
  runs.fetch_add(1);
  switch (t.type) {
    case Prim::F64: run_typed<double>(t, a, b, out, threads); return true;
    case Prim::F32: run_typed<float>(t, a, b, out, threads); return true;
    case Prim::I64: run_typed<uint64_t>(t, a, b, out, threads); return true;  // wrapping
    case Prim::I32: run_typed<uint32_t>(t, a, b, out, threads); return true;
    default: return false;
  }
}

}  // namespace thorn::host
