// SegScan: inclusive scan within regular segments in a single pass, after
// Clausen's regular segmented single-pass scan (seed 000, notes-scan.md §1),
// itself Merrill & Garland's decoupled look-back with the segments' flags
// inferred from the index. out[r][s*n + j] = ne ⊕ e(s,0) ⊕ ... ⊕ e(s,j), with the
// element function e fused into the load ("scanomap").
//
// One kernel, "thorn_segscan". Each block scans a tile of G = M*B elements
// (M elements per thread, B threads; both compiled in, chosen by
// gpu/launch: plan_segscan):
//
//  0. The tile is the block's *dynamic* id (an atomic counter), not
//     blockIdx: tiles are taken in the order blocks start, so a block only
//     waits on tiles of blocks already running (no deadlock whatever order
//     the hardware schedules blocks in).
//  1. Load: element tid + i*B of the tile (coalesced), through the element
//     function; past the end, the neutral element. A segment's first
//     element becomes ne ⊕ e(s, 0), so every result is ne ⊕ e(s,0) ⊕ ...,
//     as in a sequential scan (and the host's), also for operators whose
//     neutral element is one only up to an equivalence.
//  2. Striped -> blocked through shared memory, one tuple component at a time
//     (so the buffer is sized by the widest component, not the tuple): thread
//     t then holds elements t*M .. t*M+M-1. Indices are padded by one slot per
//     32 to spread the blocked reads over the banks.
//  3. Each thread reduces its M elements from its last segment start.
//  4. Block scan of the threads' (flag, value) pairs with the segmented
//     operator (f1,v1) ⊕' (f2,v2) = (f1||f2, f2 ? v2 : v1⊕v2) (the flag:
//     "a segment starts in here"): warp scans with shuffles, then warp 0
//     scans the warp totals. Every tree keeps operand order, so
//     non-commutative operators are fine.
//  5. Decoupled look-back. Per tile in global memory: a status flag (none /
//     aggregate / inclusive prefix), the aggregate and the inclusive prefix.
//     A tile containing a segment start knows its inclusive prefix at once
//     (the scan from its last start), so it publishes it before looking
//     back: a look-back never goes past a segment boundary. Otherwise it
//     publishes its aggregate. A tile whose first element continues a
//     segment then has warp 0 read the flags of the 32 preceding tiles at
//     once (each lane spins on its own tile until it is not "none"), reduce
//     the window with the same segmented operator (an inclusive prefix acts
//     as a segment start) in an ordered shuffle tree, and move the window
//     left until it holds an inclusive prefix. The tile's inclusive prefix
//     is then published.
//     Memory ordering, as CUB does it: volatile stores of the values,
//     __threadfence(), volatile store of the flag; volatile load of the flag,
//     __threadfence(), volatile loads of the values.
//  6. Each thread scans its elements again, seeded with everything before
//     them in their segment, and the tile goes back to striped order through
//     shared memory for coalesced stores.
//
// Index arithmetic (notes-scan.md §3): one 64-bit division by the segment
// size per block (and two per thread for the element function's (s, j),
// done in 32 bits when the operands fit); segment starts inside the tile are
// first, first+step, ... in 32-bit tile-relative positions.
//
// A failing Check sets the error flag; the block still runs the look-back
// protocol to the end (with whatever values it has), so that no later tile
// waits forever, and the host discards the results.
#include <fmt/format.h>

#include "gpu/codegen/common.hpp"
#include "gpu/codegen/ctypes.hpp"
#include "gpu/codegen/kir_to_cuda.hpp"
#include "gpu/codegen/reduce_support.hpp"
#include "gpu/codegen/skeleton.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::cg {

namespace {

int reg_bytes_of(Prim p) { return p == Prim::F16 ? 4 : prim_bytes(p); }

// thorn_shfl_up for every register type (the prelude has only _down).
constexpr const char* kShflUp = R"CUDA(THORN_DEV i32 thorn_shfl_up(i32 v, int d) { return __shfl_up_sync(THORN_FULL_MASK, v, d); }
THORN_DEV u32 thorn_shfl_up(u32 v, int d) { return __shfl_up_sync(THORN_FULL_MASK, v, d); }
THORN_DEV i64 thorn_shfl_up(i64 v, int d) { return __shfl_up_sync(THORN_FULL_MASK, v, d); }
THORN_DEV u64 thorn_shfl_up(u64 v, int d) { return __shfl_up_sync(THORN_FULL_MASK, v, d); }
THORN_DEV f32 thorn_shfl_up(f32 v, int d) { return __shfl_up_sync(THORN_FULL_MASK, v, d); }
THORN_DEV f64 thorn_shfl_up(f64 v, int d) { return __shfl_up_sync(THORN_FULL_MASK, v, d); }
THORN_DEV i8 thorn_shfl_up(i8 v, int d) { return (i8)__shfl_up_sync(THORN_FULL_MASK, (i32)v, d); }
THORN_DEV i16 thorn_shfl_up(i16 v, int d) { return (i16)__shfl_up_sync(THORN_FULL_MASK, (i32)v, d); }
THORN_DEV u8 thorn_shfl_up(u8 v, int d) { return (u8)__shfl_up_sync(THORN_FULL_MASK, (u32)v, d); }
THORN_DEV u16 thorn_shfl_up(u16 v, int d) { return (u16)__shfl_up_sync(THORN_FULL_MASK, (u32)v, d); }
THORN_DEV bool thorn_shfl_up(bool v, int d) { return __shfl_up_sync(THORN_FULL_MASK, (i32)v, d) != 0; }
)CUDA";

// Pieces that do not depend on the operator's shape.
constexpr const char* kScanMacros = R"CUDA(// Shared-memory index with a slot of padding per 32 (bank spreading).
#define THORN_PAD(i) ((i) + ((i) >> 5))
#define THORN_FLAG_NONE {}
#define THORN_FLAG_AGGREGATE {}
#define THORN_FLAG_PREFIX {}
)CUDA";

constexpr const char* kScanCommon = R"CUDA(// q = a / b, r = a % b for a >= 0, b > 0; in 32 bits when both fit.
THORN_DEV void thorn_divmod(i64 a, i64 b, i64& q, i64& r) {
  if ((((u64)a | (u64)b) >> 31) == 0) {
    const u32 q32 = (u32)a / (u32)b;
    q = q32;
    r = (i64)((u32)a - q32 * (u32)b);
  } else {
    q = a / b;
    r = a - q * b;
  }
}

// Inclusive scan within the warp of (flag, value) pairs with the segmented
// operator; all 32 lanes must call it.
THORN_DEV void thorn_warp_scan(const thorn_env& env, bool& f, thorn_acc& v, bool& ok) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const bool of = thorn_shfl_up(f, d);
    const thorn_acc ov = thorn_acc_shfl_up(v, d);
    if (lane >= d) {
      if (!f && ok) ok = thorn_prepend(env, ov, v);
      f = f || of;
    }
  }
}

// Ordered reduction of the warp's (flag, value) pairs with the segmented
// operator: lane 0 ends with the result. All 32 lanes must call it.
THORN_DEV void thorn_warp_reduce_seg(const thorn_env& env, bool& f, thorn_acc& v, bool& ok) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const bool of = thorn_shfl_down(f, d);
    const thorn_acc ov = thorn_acc_shfl_down(v, d);
    if ((lane & (2 * d - 1)) == 0) {
      if (of) {
        v = ov;
        f = true;
      } else if (ok) {
        ok = thorn_combine(env, v, ov);
      }
    }
  }
}

// Publishes tile `id`'s aggregate or inclusive prefix, then its flag.
THORN_DEV void thorn_publish(const thorn_env& env, i64 id, const thorn_acc& a, int flag) {
  thorn_store_published(env, id, a, flag == THORN_FLAG_PREFIX);
  __threadfence();  // the value is visible before the flag
  ((volatile u8*)env.part1)[id] = (u8)flag;
}

// Warp 0 of tile `id`, whose first element continues a segment begun in an
// earlier tile: the scan of that segment's elements before the tile, in
// lane 0. Windows of 32 tiles, right to left; tile 0 always starts a
// segment, so the loop ends. All 32 lanes must call it.
THORN_DEV thorn_acc thorn_look_back(const thorn_env& env, i64 id, bool& ok) {
  const int lane = threadIdx.x & 31;
  thorn_acc prefix = thorn_neutral();
  bool have = false;
  for (i64 end = id - 1;; end -= 32) {
    const i64 b = end - 31 + lane;
    bool f = true;  // before tile 0: never used (tile 0 holds a prefix)
    thorn_acc v = thorn_neutral();
    if (b >= 0) {
      int flag;
      do {
        flag = ((volatile u8*)env.part1)[b];
      } while (flag == THORN_FLAG_NONE);
      __threadfence();  // read the value after the flag
      f = flag == THORN_FLAG_PREFIX;
      v = thorn_load_published(env, b, f);
    }
    int any = f;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) any |= __shfl_xor_sync(THORN_FULL_MASK, any, d);
    thorn_warp_reduce_seg(env, f, v, ok);
    if (lane == 0) {
      if (!have) prefix = v;
      else if (ok) ok = thorn_prepend(env, v, prefix);
      have = true;
    }
    if (any) return prefix;
  }
}
)CUDA";

constexpr const char* kScanKernel = R"CUDA(  __shared__ thorn_acc thorn_warp_vals[THORN_SCAN_B / 32];
  __shared__ bool thorn_warp_flags[THORN_SCAN_B / 32];
  __shared__ thorn_acc thorn_block_prefix;
  __shared__ u32 thorn_tile;
  constexpr int M = THORN_SCAN_M, B = THORN_SCAN_B, G = M * B, NW = B / 32;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const i64 total = segments * n;
  bool ok = true;

  // 0. The tile: the order blocks start in.
  if (tid == 0) thorn_tile = atomicAdd(env.part0, 1u);
  __syncthreads();
  const i64 id = thorn_tile;
  const i64 tile0 = id * G;
  // The tile's place in its segment: segment starts inside it are at
  // first, first + step, ... (< G).
  i64 seg0, sgm_idx;
  thorn_divmod(tile0, n, seg0, sgm_idx);
  const int first = sgm_idx == 0 ? 0 : (int)(n - sgm_idx < G ? n - sgm_idx : G);
  const int step = (int)(n < G ? n : G);

  // 1. Load, striped, with the element function.
  thorn_acc x[M];
  {
    i64 s, j, ds, dj;
    thorn_divmod(sgm_idx + tid, n, s, j);
    s += seg0;
    thorn_divmod(B, n, ds, dj);
#pragma unroll
    for (int i = 0; i < M; ++i) {
      x[i] = thorn_neutral();
      if (tile0 + tid + i * B < total && ok) {
        ok = thorn_elem_acc(env, s, j, x[i]);
        // A segment's first element is ne ⊕ e(s, 0), as in a sequential
        // scan: it differs from e(s, 0) for operators with a neutral element
        // only up to some equivalence (0.0 + -0.0; matrix products scaled
        // to stay near 1, tests/programs/tridiagonal.fut).
        if (j == 0 && ok) ok = thorn_prepend(env, thorn_neutral(), x[i]);
      }
      s += ds;
      j += dj;
      if (j >= n) { j -= n; ++s; }
    }
  }
  // 2. Striped to blocked.
  thorn_to_blocked(x);

  // 3. The thread's elements from its last segment start; f: one starts here.
  const int p0 = tid * M;
  const int next0 = p0 <= first ? first : first + (p0 - first + step - 1) / step * step;
  bool f = next0 < p0 + M;
  thorn_acc v = x[0];
  {
    int next = next0 == p0 ? next0 + step : next0;
#pragma unroll
    for (int i = 1; i < M; ++i) {
      if (p0 + i == next) {
        v = x[i];
        next += step;
      } else if (ok) {
        ok = thorn_combine(env, v, x[i]);
      }
    }
  }

  // 4. Block scan. (ef, ev): the threads before this one (thread 0: none).
  thorn_warp_scan(env, f, v, ok);
  if (lane == 31) { thorn_warp_flags[warp] = f; thorn_warp_vals[warp] = v; }
  __syncthreads();
  if (warp == 0) {
    bool wf = lane < NW ? thorn_warp_flags[lane] : true;
    thorn_acc wv = lane < NW ? thorn_warp_vals[lane] : thorn_neutral();
    thorn_warp_scan(env, wf, wv, ok);
    if (lane < NW) { thorn_warp_flags[lane] = wf; thorn_warp_vals[lane] = wv; }
  }
  __syncthreads();
  bool ef = thorn_shfl_up(f, 1);
  thorn_acc ev = thorn_acc_shfl_up(v, 1);
  if (warp > 0) {
    const bool pf = thorn_warp_flags[warp - 1];
    if (lane == 0) {
      ef = pf;
      ev = thorn_warp_vals[warp - 1];
    } else if (!ef) {
      if (ok) ok = thorn_prepend(env, thorn_warp_vals[warp - 1], ev);
      ef = pf;
    }
  }
  const bool agg_f = thorn_warp_flags[NW - 1];

  // 5. Look-back: publish early, look back if the tile continues a segment.
  if (tid == 0) thorn_publish(env, id, thorn_warp_vals[NW - 1], agg_f ? THORN_FLAG_PREFIX : THORN_FLAG_AGGREGATE);
  if (sgm_idx != 0 && warp == 0) {
    const thorn_acc prefix = thorn_look_back(env, id, ok);
    if (lane == 0) {
      thorn_block_prefix = prefix;
      if (!agg_f && THORN_SCAN_LATE_PREFIX) {
        thorn_acc inc = thorn_warp_vals[NW - 1];
        if (ok) ok = thorn_prepend(env, prefix, inc);
        thorn_publish(env, id, inc, THORN_FLAG_PREFIX);
      }
    }
  }
  __syncthreads();

  // 6. Scan the thread's elements seeded with what precedes them in their
  // segment (unused when the thread's first element starts a segment).
  thorn_acc carry = tid == 0 ? thorn_block_prefix : ev;
  if (tid > 0 && !ef && sgm_idx != 0 && ok) ok = thorn_prepend(env, thorn_block_prefix, carry);
  {
    int next = next0;
#pragma unroll
    for (int i = 0; i < M; ++i) {
      if (p0 + i == next) next += step;  // a segment starts: x[i] as it is
      else if (ok) ok = thorn_prepend(env, carry, x[i]);
      carry = x[i];
    }
  }
  thorn_store_tile(env, x, tile0, total);
}
)CUDA";

// x = a ⊕ x (the operator's left operand comes first in the sequence).
std::string prepend_fn(size_t k) {
  std::string args;
  for (size_t i = 0; i < k; ++i) args += fmt::format(", a.c{}", i);
  for (size_t i = 0; i < k; ++i) args += fmt::format(", x.c{}", i);
  for (size_t i = 0; i < k; ++i) args += fmt::format(", r.c{}", i);
  return fmt::format(
      "THORN_DEV bool thorn_prepend(const thorn_env& env, const thorn_acc& a, thorn_acc& x) {{\n"
      "  thorn_acc r;\n  if (!thorn_op(env{})) return false;\n  x = r;\n  return true;\n}}\n",
      args);
}

std::string shfl_up_fn(size_t k) {
  std::string s = "THORN_DEV thorn_acc thorn_acc_shfl_up(const thorn_acc& a, int d) {\n  thorn_acc r;\n";
  for (size_t i = 0; i < k; ++i) s += fmt::format("  r.c{0} = thorn_shfl_up(a.c{0}, d);\n", i);
  return s + "  return r;\n}\n";
}

std::string elem_acc_fn(size_t k) {
  std::string args;
  for (size_t i = 0; i < k; ++i) args += fmt::format(", x.c{}", i);
  return fmt::format("THORN_DEV bool thorn_elem_acc(const thorn_env& env, i64 s, i64 j, thorn_acc& x) {{\n"
                     "  return thorn_elem(env, s, j{});\n}}\n",
                     args);
}

// Shared memory transpositions, one component at a time (the buffer holds
// G values of the widest component).
std::string tile_fns(const std::vector<Prim>& types, const detail::StepLayout& l) {
  const char* smem = "  extern __shared__ __align__(16) unsigned char thorn_dyn_smem[];\n";
  std::string blocked =
      "THORN_DEV void thorn_to_blocked(thorn_acc (&x)[THORN_SCAN_M]) {\n" + std::string(smem) +
      "  const int tid = threadIdx.x;\n";
  std::string store =
      "THORN_DEV void thorn_store_tile(const thorn_env& env, thorn_acc (&x)[THORN_SCAN_M], i64 tile0, i64 total) {\n" +
      std::string(smem) +
      "  const int tid = threadIdx.x;\n"
      "  const int valid = total - tile0 < THORN_SCAN_M * THORN_SCAN_B ? (int)(total - tile0) : THORN_SCAN_M * THORN_SCAN_B;\n";
  for (size_t c = 0; c < types.size(); ++c) {
    std::string_view t = reg_type(types[c]);
    blocked += fmt::format(
        "  {{\n    {0}* buf = ({0}*)thorn_dyn_smem;\n"
        "#pragma unroll\n    for (int i = 0; i < THORN_SCAN_M; ++i) buf[THORN_PAD(tid + i * THORN_SCAN_B)] = x[i].c{1};\n"
        "    __syncthreads();\n"
        "#pragma unroll\n    for (int i = 0; i < THORN_SCAN_M; ++i) x[i].c{1} = buf[THORN_PAD(tid * THORN_SCAN_M + i)];\n"
        "    __syncthreads();\n  }}\n",
        t, c);
    store += fmt::format(
        "  {{\n    {0}* buf = ({0}*)thorn_dyn_smem;\n"
        "#pragma unroll\n    for (int i = 0; i < THORN_SCAN_M; ++i) buf[THORN_PAD(tid * THORN_SCAN_M + i)] = x[i].c{1};\n"
        "    __syncthreads();\n"
        "#pragma unroll\n    for (int i = 0; i < THORN_SCAN_M; ++i) {{\n"
        "      const int r = tid + i * THORN_SCAN_B;\n"
        "      if (r < valid) env.out{1}[tile0 + r] = {2};\n"
        "    }}\n"
        "    __syncthreads();\n  }}\n",
        t, c, store_expr(l.outs[c], "buf[THORN_PAD(r)]"));
  }
  return blocked + "}\n" + store + "}\n";
}

// Per-tile aggregates are PART pointers 2 .. 2+k-1, inclusive prefixes
// 2+k .. 2+2k-1, in memory types, read and written volatile.
std::string published_fns(const std::vector<Prim>& types) {
  const size_t k = types.size();
  std::string st =
      "THORN_DEV void thorn_store_published(const thorn_env& env, i64 id, const thorn_acc& a, bool prefix) {\n";
  std::string ld = "THORN_DEV thorn_acc thorn_load_published(const thorn_env& env, i64 b, bool prefix) {\n  thorn_acc a;\n";
  for (size_t c = 0; c < k; ++c) {
    std::string_view mt = mem_type(types[c]);
    st += fmt::format("  ((volatile {0}*)(prefix ? env.part{1} : env.part{2}))[id] = {3};\n", mt, 2 + k + c, 2 + c,
                      store_expr(types[c], fmt::format("a.c{}", c)));
    ld += fmt::format(
        "  a.c{0} = {1};\n", c,
        load_expr(types[c], fmt::format("((volatile {0}*)(prefix ? env.part{1} : env.part{2}))[b]", mt, 2 + k + c, 2 + c)));
  }
  return st + "}\n" + ld + "  return a;\n}\n";
}

void check_scan_step(const plan::Step& step) {
  if (step.kind != plan::StepKind::SegScan) throw Error(ErrorKind::Internal, "gen_segscan: not a SegScan step");
  std::vector<Prim> types = function_results(step.op), elem = function_results(step.element);
  if (elem != types)
    throw Error(ErrorKind::Internal,
                fmt::format("SegScan: element yields {} values, not the operator's {}", elem.size(), types.size()));
}

}  // namespace

ScanTuple scan_tuple(const plan::Step& step) {
  ScanTuple t;
  for (Prim p : function_results(step.op)) {
    int b = reg_bytes_of(p);
    t.max_bytes = std::max(t.max_bytes, b);
    t.sum_bytes += b;
    t.words += std::max(b, 4) / 4;
  }
  return t;
}

size_t segscan_shared_bytes(const plan::Step& step, int m, int block) {
  const size_t g = size_t(m) * size_t(block);
  return (g + g / 32 + 1) * size_t(scan_tuple(step).max_bytes);
}

KernelSource gen_segscan(const plan::Step& step, int m, const CodegenOptions& opts, bool late_prefix) {
  check_scan_step(step);
  if (m < 1 || opts.block_size < 32 || opts.block_size % 32 != 0 || opts.block_size > 1024)
    throw Error(ErrorKind::Internal,
                fmt::format("gen_segscan: {} elements per thread with blocks of {} threads", m, opts.block_size));
  detail::StepLayout l = detail::layout_of(step);
  std::vector<Prim> types = function_results(step.op);
  const size_t k = types.size();
  KernelSource ks;
  ks.name = detail::kernel_name(step, fmt::format("segscan.m{}.b{}{}", m, opts.block_size, late_prefix ? "" : ".aggregates"));
  ks.entries = {"thorn_segscan"};
  std::string s = detail::source_header(step, "segscan");
  s += fmt::format("#define THORN_SCAN_M {}\n#define THORN_SCAN_B {}\n", m, opts.block_size);
  s += fmt::format(kScanMacros, kScanFlagNone, kScanFlagAggregate, kScanFlagPrefix);
  s += fmt::format("#define THORN_SCAN_LATE_PREFIX {}\n", late_prefix ? 1 : 0);
  s += detail::env_struct(l);
  s += detail::operator_support(step, l, "SegScan");
  s += detail::element_function(step, l, opts.noalias);
  s += kShflUp;
  s += shfl_up_fn(k);
  s += prepend_fn(k);
  s += elem_acc_fn(k);
  s += tile_fns(types, l);
  s += published_fns(types);
  s += kScanCommon;
  s += detail::kernel_begin("thorn_segscan", l, opts.block_size, opts.noalias);
  s += kScanKernel;
  ks.source = std::move(s);
  return ks;
}

}  // namespace thorn::gpu::cg
