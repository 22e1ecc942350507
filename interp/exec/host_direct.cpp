// Direct paths of SegRed and SegScan: typed loops over contiguous inputs
// (see host_direct.hpp for when they apply and their order of evaluation).
// The loops must be vectorised: -O2 (the build default) leaves them scalar.
#pragma GCC optimize("O3")
#include "interp/exec/host_direct.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "interp/exec/host_fastop.hpp"
#include "interp/exec/host_partition.hpp"

namespace thorn::host {

namespace {

// Where each operator input comes from: component r of element (s, j) is
// element s * size + j of src[r]. Empty when the element function does
// anything but read its results from contiguous, in-bounds positions.
std::optional<std::vector<const std::byte*>> direct_sources(const StepEnv& env) {
  const Program& p = *env.elem;
  size_t k = env.fast.ops.size();
  if (!env.fast.ok || k == 0 || p.blocks.size() != 1 || p.results().size() != k) return std::nullopt;
  int64_t total = env.total();
  if (total <= 0) return std::nullopt;
  const std::vector<CInstr>& instrs = p.blocks[0].instrs;
  std::vector<const std::byte*> src;
  for (size_t r = 0; r < k; ++r) {
    int32_t res = p.results()[r];
    Prim t = p.reg_types[size_t(res)];
    if (t != env.fast.ops[r].second || t == Prim::F16) return std::nullopt;  // f16 is stored as it is not computed
    const CInstr* def = nullptr;
    for (const CInstr& in : instrs)
      if (in.dst == res) def = &in;
    if (!def || def->fn != read_kernel(t) || def->aux2 < 0) return std::nullopt;
    const Affine& af = p.affine[size_t(def->aux2)];
    if (!af.flat || af.cj != 1) return std::nullopt;
    const ArrayBinding& arr = env.arrays[size_t(def->aux)];
    // Out-of-bounds reads are left to the general path, which reports them.
    if (af.c0 < 0 || af.c0 > arr.count - total) return std::nullopt;
    src.push_back(arr.data + af.c0 * prim_bytes(t));
  }
  // Nothing but these reads may run (no checks, no dead code with effects).
  for (const CInstr& in : instrs) {
    bool result = false;
    for (size_t r = 0; r < k; ++r) result |= in.dst == p.results()[r];
    if (!result || in.fn != read_kernel(p.reg_types[size_t(in.dst)])) return std::nullopt;
  }
  return src;
}

bool have_avx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}

template <Prim P, class Op>
struct Kern {
  using T = RegT<P>;
  // Accumulators of a block fold: 256 bytes, eight AVX2 registers.
  static constexpr int kAcc = int(256 / sizeof(T));
  // Reassociation cannot change the result: scans may run sequentially.
  static constexpr bool kExact = !sem::kFloat<P>;
  // Rows shorter than this are scanned many at a time, position by position.
  static constexpr int64_t kShortRow = 32;

  static T op(T a, T b) { return Op::template f<P>(a, b); }

  // Fold of x[0..n), 0 < n <= kDirectBlock: left to right when n < kAcc,
  // else kAcc accumulators combined as a balanced tree.
  [[gnu::always_inline]] static inline T block_body(const T* x, int64_t n) {
    if (n < kAcc) {
      T a = x[0];
      for (int64_t i = 1; i < n; ++i) a = op(a, x[i]);
      return a;
    }
    T acc[kAcc];
    for (int a = 0; a < kAcc; ++a) acc[a] = x[a];
    int64_t i = kAcc;
    for (; i + kAcc <= n; i += kAcc)
      for (int a = 0; a < kAcc; ++a) acc[a] = op(acc[a], x[i + a]);
    for (int a = 0; a < kAcc && i + a < n; ++a) acc[a] = op(acc[a], x[i + a]);
    for (int w = kAcc / 2; w > 0; w /= 2)
      for (int a = 0; a < w; ++a) acc[a] = op(acc[a], acc[a + w]);
    return acc[0];
  }
  [[gnu::target("avx2")]] static T block_avx2(const T* x, int64_t n) { return block_body(x, n); }
  static T block_base(const T* x, int64_t n) { return block_body(x, n); }
  static T block(const T* x, int64_t n) { return have_avx2() ? block_avx2(x, n) : block_base(x, n); }

  static int64_t block_len(int64_t b, int64_t n) { return std::min(kDirectBlock, n - b * kDirectBlock); }
  static int64_t blocks(int64_t n) { return (n + kDirectBlock - 1) / kDirectBlock; }

  // Balanced tree over p[0..n), n >= 1.
  static T pairwise(const T* p, int64_t n) {
    if (n == 1) return p[0];
    int64_t h = n / 2;
    return op(pairwise(p, h), pairwise(p + h, n - h));
  }

  // Fold of a segment x[0..n), n >= 1.
  static T fold(const T* x, int64_t n) {
    int64_t nb = blocks(n);
    if (nb == 1) return block(x, n);
    std::vector<T> part(static_cast<size_t>(nb));
    for (int64_t b = 0; b < nb; ++b) part[size_t(b)] = block(x + b * kDirectBlock, block_len(b, n));
    return pairwise(part.data(), nb);
  }

  // out[s] = ne op fold(row s) for rows of m < kAcc elements, each row left
  // to right. Rows of 8 or more: four rows at a time, each read
  // contiguously (the core overlaps their chains). Shorter rows: a batch of
  // rows advances one position at a time (independent chains; the loads are
  // strided, which costs less than a loop per row of a few elements). A
  // batch at every width measured 1.6x slower for [10^6][10] (the strided
  // loads assembled two at a time, on one core; 10 to 31 elements a row).
  [[gnu::always_inline]] static inline void short_rows_body(const T* x, int64_t rows, int64_t m, T ne, T* out) {
    if (m >= 8) {
      int64_t s = 0;
      for (; s + 4 <= rows; s += 4) {
        const T* b = x + s * m;
        T a0 = b[0], a1 = b[m], a2 = b[2 * m], a3 = b[3 * m];
        for (int64_t j = 1; j < m; ++j) {
          a0 = op(a0, b[j]);
          a1 = op(a1, b[m + j]);
          a2 = op(a2, b[2 * m + j]);
          a3 = op(a3, b[3 * m + j]);
        }
        out[s] = op(ne, a0);
        out[s + 1] = op(ne, a1);
        out[s + 2] = op(ne, a2);
        out[s + 3] = op(ne, a3);
      }
      for (; s < rows; ++s) {
        const T* b = x + s * m;
        T a = b[0];
        for (int64_t j = 1; j < m; ++j) a = op(a, b[j]);
        out[s] = op(ne, a);
      }
      return;
    }
    constexpr int R = 64;
    T a[R];
    for (int64_t s0 = 0; s0 < rows; s0 += R) {
      int nr = int(std::min<int64_t>(R, rows - s0));
      const T* base = x + s0 * m;
      for (int r = 0; r < nr; ++r) a[r] = base[r * m];
      for (int64_t j = 1; j < m; ++j)
        for (int r = 0; r < nr; ++r) a[r] = op(a[r], base[r * m + j]);
      for (int r = 0; r < nr; ++r) out[s0 + r] = op(ne, a[r]);
    }
  }
  [[gnu::target("avx2")]] static void short_rows_avx2(const T* x, int64_t rows, int64_t m, T ne, T* out) {
    short_rows_body(x, rows, m, ne, out);
  }
  static void short_rows_base(const T* x, int64_t rows, int64_t m, T ne, T* out) {
    short_rows_body(x, rows, m, ne, out);
  }

  // out[s] = ne op fold(row s) for `rows` rows of m >= 1 elements.
  static void fold_rows(const T* x, int64_t rows, int64_t m, T ne, T* out) {
    if (m < kAcc) {
      if (have_avx2()) short_rows_avx2(x, rows, m, ne, out);
      else short_rows_base(x, rows, m, ne, out);
      return;
    }
    for (int64_t s = 0; s < rows; ++s) out[s] = op(ne, fold(x + s * m, m));
  }

  // d[i] = c = c op x[i] for i < n (d may be x).
  static void scan_seq(const T* x, int64_t n, T* d, T c) {
    for (int64_t i = 0; i < n; ++i) d[i] = c = op(c, x[i]);
  }

  // Inclusive scan of a segment x[0..n) from ne (d may be x).
  static void scan_segment(const T* x, int64_t n, T* d, T ne) {
    if constexpr (kExact) {
      scan_seq(x, n, d, ne);
    } else {
      T c = ne;
      for (int64_t b = 0; b * kDirectBlock < n; ++b) {
        const T* xb = x + b * kDirectBlock;
        int64_t len = block_len(b, n);
        T next = (b + 1) * kDirectBlock < n ? op(c, block(xb, len)) : c;  // before d overwrites x
        scan_seq(xb, len, d + b * kDirectBlock, c);
        c = next;
      }
    }
  }

  // Scans of `rows` rows of m >= 1 elements (d may be x). Rows of one block
  // are plain left-to-right scans, run several at a time so that their
  // dependency chains overlap.
  static void scan_rows(const T* x, int64_t rows, int64_t m, T ne, T* d) {
    if (m > kDirectBlock) {
      for (int64_t s = 0; s < rows; ++s) scan_segment(x + s * m, m, d + s * m, ne);
      return;
    }
    if (m < kShortRow) {
      constexpr int R = 64;
      T a[R];
      for (int64_t s0 = 0; s0 < rows; s0 += R) {
        int nr = int(std::min<int64_t>(R, rows - s0));
        const T* xb = x + s0 * m;
        T* db = d + s0 * m;
        for (int r = 0; r < nr; ++r) a[r] = ne;
        for (int64_t j = 0; j < m; ++j)
          for (int r = 0; r < nr; ++r) db[r * m + j] = a[r] = op(a[r], xb[r * m + j]);
      }
      return;
    }
    int64_t s = 0;
    for (; s + 4 <= rows; s += 4) {
      const T *x0 = x + s * m, *x1 = x0 + m, *x2 = x1 + m, *x3 = x2 + m;
      T *d0 = d + s * m, *d1 = d0 + m, *d2 = d1 + m, *d3 = d2 + m;
      T a0 = ne, a1 = ne, a2 = ne, a3 = ne;
      for (int64_t j = 0; j < m; ++j) {
        a0 = op(a0, x0[j]);
        a1 = op(a1, x1[j]);
        a2 = op(a2, x2[j]);
        a3 = op(a3, x3[j]);
        d0[j] = a0;
        d1[j] = a1;
        d2[j] = a2;
        d3[j] = a3;
      }
    }
    for (; s < rows; ++s) scan_seq(x + s * m, m, d + s * m, ne);
  }
};

// One operator component of a direct step: its input, output and neutral
// element, and how the step's work splits.
template <Prim P>
struct Component {
  using T = RegT<P>;
  const T* x;
  T* out;
  T ne;
  int64_t segments, size, threads;
  bool par;

  Component(StepEnv& env, size_t r, const std::byte* src)
      : x(reinterpret_cast<const T*>(src)), out(reinterpret_cast<T*>(env.write_buffer(r).host_mut())),
        segments(env.step.segments), size(env.step.segment_size), threads(env.threads),
        par(env.parallel(env.total())) {
    uint64_t bits = const_bits(env.step.neutral.at(r).convert_to(P));
    std::memcpy(&ne, &bits, sizeof ne);
  }
  // Whole segments per task (many segments, or one thread); otherwise each
  // segment's blocks are split. Many tasks per thread: they are handed out
  // dynamically, so a thread the OS delays (a shared machine) holds up the
  // end of the step by one short task at most.
  bool by_segments() const { return !par || segments >= 2 * threads; }
  int64_t segment_tasks() const { return par ? threads * 16 : 1; }
  int64_t block_tasks() const { return threads * 16; }
};

template <Prim P, class Op>
void reduce_component(StepEnv& env, size_t r, const std::byte* src) {
  using K = Kern<P, Op>;
  Component<P> c(env, r, src);
  if (c.by_segments()) {
    for_chunks_of(c.segments, c.segment_tasks(), 1, [&](int64_t s0, int64_t s1, int) {
      K::fold_rows(c.x + s0 * c.size, s1 - s0, c.size, c.ne, c.out + s0);
    });
    return;
  }
  // Few long segments: the block totals of each in parallel, then their tree.
  int64_t nb = K::blocks(c.size);
  std::vector<RegT<P>> part(static_cast<size_t>(nb));
  for (int64_t s = 0; s < c.segments; ++s) {
    const RegT<P>* xs = c.x + s * c.size;
    for_chunks_of(nb, c.block_tasks(), 1, [&](int64_t b0, int64_t b1, int) {
      for (int64_t b = b0; b < b1; ++b) part[size_t(b)] = K::block(xs + b * kDirectBlock, K::block_len(b, c.size));
    });
    c.out[s] = K::op(c.ne, K::pairwise(part.data(), nb));
  }
}

template <Prim P, class Op>
void scan_component(StepEnv& env, size_t r, const std::byte* src) {
  using K = Kern<P, Op>;
  Component<P> c(env, r, src);
  if (c.by_segments()) {
    for_chunks_of(c.segments, c.segment_tasks(), 1, [&](int64_t s0, int64_t s1, int) {
      K::scan_rows(c.x + s0 * c.size, s1 - s0, c.size, c.ne, c.out + s0 * c.size);
    });
    return;
  }
  // Few long segments: block totals in parallel (reads only), the carry
  // into each block in order, then the blocks scanned in parallel. The same
  // order as Kern::scan_segment.
  int64_t nb = K::blocks(c.size);
  std::vector<RegT<P>> carry(static_cast<size_t>(nb));
  for (int64_t s = 0; s < c.segments; ++s) {
    const RegT<P>* xs = c.x + s * c.size;
    RegT<P>* ds = c.out + s * c.size;
    for_chunks_of(nb - 1, c.block_tasks(), 1, [&](int64_t b0, int64_t b1, int) {
      for (int64_t b = b0; b < b1; ++b) carry[size_t(b + 1)] = K::block(xs + b * kDirectBlock, kDirectBlock);
    });
    carry[0] = c.ne;
    for (int64_t b = 1; b < nb; ++b) carry[size_t(b)] = K::op(carry[size_t(b - 1)], carry[size_t(b)]);
    for_chunks_of(nb, c.block_tasks(), 1, [&](int64_t b0, int64_t b1, int) {
      for (int64_t b = b0; b < b1; ++b)
        K::scan_seq(xs + b * kDirectBlock, K::block_len(b, c.size), ds + b * kDirectBlock, carry[size_t(b)]);
    });
  }
}

}  // namespace

bool run_segred_direct(StepEnv& env) {
  if (env.step.num_map_outputs != 0) return false;
  auto src = direct_sources(env);
  if (!src) return false;
  for (size_t r = 0; r < src->size(); ++r)
    fastop::with_fast_op(env.fast.ops[r].first, env.fast.ops[r].second,
                         [&]<Prim P, class Op>() { reduce_component<P, Op>(env, r, (*src)[r]); });
  return true;
}

bool run_segscan_direct(StepEnv& env) {
  auto src = direct_sources(env);
  if (!src) return false;
  for (size_t r = 0; r < src->size(); ++r)
    fastop::with_fast_op(env.fast.ops[r].first, env.fast.ops[r].second,
                         [&]<Prim P, class Op>() { scan_component<P, Op>(env, r, (*src)[r]); });
  return true;
}

}  // namespace thorn::host
