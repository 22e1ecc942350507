// SegHist: generalised (batched) histograms after Henriksen, Hellfritzsch,
// Sadayappan and Oancea, "Compiling Generalized Histograms for GPU" (SC20;
// seed 001, notes-hist.md §2):
//
//   for each element (s, j): (b, v) = element(s, j);
//     if 0 <= b < bins: hist[s*bins + b] = hist[s*bins + b] ⊕ v
//
// with the element function (the fused producer: `map` into `hist`)
// evaluated in the load. The histograms of a batch are one flat histogram
// of segments*bins bins; every launch works on one chunk [off, off + len)
// of it (the passes of the paper's multi-pass technique) and reads only
// the elements of the segments the chunk overlaps, so a batch of small
// histograms costs one pass over the input, and a histogram too large for
// its subhistograms costs S passes. Out-of-range bins (negative or >= bins)
// are skipped in every pass, as bins outside the chunk are.
//
// Kernels (one module; the runner in gpu/exec/run_hist.cpp sequences them
// per pass, the cost model in gpu/launch/hist_cost.cpp picks M and S):
//  - thorn_hist_shared: the paper's Fig. 4. M copies of the chunk in
//    shared memory, initialised to the neutral element; thread t updates
//    copy t % M (consecutive threads hit different copies: fewer conflicts
//    between the warps running together); after a barrier the block folds
//    its M copies bin by bin into its row of the subhistograms in global
//    memory.
//  - thorn_hist_global: the same in global memory with M copies sized to
//    the L2 (thread g updates copy g % M), or with M = 0 straight into the
//    destinations (one subhistogram: no copy to initialise or combine).
//  - thorn_hist_init: subhistogram rows := ne (and their locks := 0).
//  - thorn_hist_combine: dest[off + i] = dest[off + i] ⊕ row_0[i] ⊕ ... ⊕
//    row_{R-1}[i] (the paper's second kernel, with the destination's
//    initial values folded in first).
//  - thorn_hist_sample: the race-factor inspector; counts the distinct bins
//    a group of consecutive elements hits (the cost model's RF).
// The atomic update itself (hardware, CAS, lock) is hist_atomic.cpp's.
//
// A failing Check in the element function or the operator sets the error
// flag; the thread stops updating (in the shared kernel it still reaches
// the barriers), and the host discards the results.
#include <fmt/format.h>

#include "gpu/codegen/common.hpp"
#include "gpu/codegen/ctypes.hpp"
#include "gpu/codegen/hist_support.hpp"
#include "gpu/codegen/kir_to_cuda.hpp"
#include "gpu/codegen/reduce_support.hpp"
#include "gpu/codegen/skeleton.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::cg {

namespace {

size_t align8(size_t v) { return (v + 7) / 8 * 8; }

// Decoding of the skeleton parameters, and the element range of a chunk.
constexpr const char* kHistCommon = R"CUDA(#define THORN_HIST_LEN_MASK ((((i64)1) << THORN_HIST_LEN_BITS) - 1)

// Elements [e0, e1) of the segments that bins [off, off + len) of the flat
// histogram belong to (bins > 0, len > 0).
THORN_DEV void thorn_hist_range(const thorn_env& env, i64 bins, i64 off, i64 len, i64& e0, i64& e1) {
  const i64 total = env.segments * env.n;
  e0 = off / bins * env.n;
  const i64 e = ((off + len - 1) / bins + 1) * env.n;
  e1 = e < total ? e : total;
}

// The flat bin of element (s, j) relative to `off`, or -1 when the element
// is out of range or outside the chunk; false when a Check failed.
THORN_DEV bool thorn_hist_elem(const thorn_env& env, i64 s, i64 j, i64 bins, i64 off, i64 len, i64& at,
                               thorn_acc& x) {
  i64 b;
  if (!thorn_elem_bin(env, s, j, b, x)) return false;
  at = -1;
  if (b >= 0 && b < bins) {
    const i64 f = s * bins + b - off;
    if (f >= 0 && f < len) at = f;
  }
  return true;
}
)CUDA";

constexpr const char* kInitKernel = R"CUDA(  const i64 len = p3 & THORN_HIST_LEN_MASK, rows = p3 >> THORN_HIST_LEN_BITS;
  const i64 cells = len * rows;
  const thorn_hview sub = thorn_sub_view(env);
  u32* const locks = thorn_sub_locks(env);
  const thorn_acc ne = thorn_neutral();
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < cells; i += (i64)gridDim.x * blockDim.x) {
    thorn_hstore(sub, i, ne);
    if (locks) locks[i] = 0u;
  }
}
)CUDA";

constexpr const char* kGlobalKernel = R"CUDA(  const i64 bins = p1, off = p2, len = p3 & THORN_HIST_LEN_MASK, M = p3 >> THORN_HIST_LEN_BITS;
  i64 e0, e1;
  thorn_hist_range(env, bins, off, len, e0, e1);
  const i64 gid = (i64)blockIdx.x * blockDim.x + threadIdx.x, T = (i64)gridDim.x * blockDim.x;
  i64 e = e0 + gid;
  if (e >= e1) return;
  // M = 0: the destinations themselves (locks: one per bin of the chunk);
  // else this thread's subhistogram row.
  thorn_hview h;
  u32* lk = thorn_sub_locks(env);
  if (M == 0) {
    h = thorn_hview_at(thorn_dest_view(env), off);
  } else {
    const i64 row = gid % M;
    h = thorn_hview_at(thorn_sub_view(env), row * len);
    if (lk) lk += row * len;
  }
  i64 s = e / n, j = e - s * n;
  const i64 ds = T / n, dj = T - ds * n;
  for (; e < e1; e += T) {
    i64 at;
    thorn_acc x;
    if (!thorn_hist_elem(env, s, j, bins, off, len, at, x)) return;
    if (at >= 0 && !thorn_hupdate(env, h, lk, at, x)) return;
    s += ds;
    j += dj;
    if (j >= n) { j -= n; ++s; }
  }
}
)CUDA";

constexpr const char* kSharedKernel = R"CUDA(  extern __shared__ __align__(16) unsigned char thorn_dyn_smem[];
  const i64 bins = p1, off = p2, len = p3 & THORN_HIST_LEN_MASK, M = p3 >> THORN_HIST_LEN_BITS;
  const int tid = threadIdx.x;
  const int cells = (int)(M * len);
  thorn_hview loc;
  u32* locks;
  thorn_hist_smem(thorn_dyn_smem, cells, loc, locks);
  {
    const thorn_acc ne = thorn_neutral();
    for (int i = tid; i < cells; i += blockDim.x) {
      thorn_hstore(loc, i, ne);
      if (locks) locks[i] = 0u;
    }
  }
  __syncthreads();
  bool ok = true;
  {
    i64 e0, e1;
    thorn_hist_range(env, bins, off, len, e0, e1);
    const i64 gid = (i64)blockIdx.x * blockDim.x + tid, T = (i64)gridDim.x * blockDim.x;
    // Copy tid % M: consecutive threads update different copies.
    const int copy = (int)(tid % M);
    const thorn_hview mine = thorn_hview_at(loc, (i64)copy * len);
    u32* const mine_locks = locks ? locks + (i64)copy * len : locks;
    i64 e = e0 + gid;
    if (e < e1) {
      i64 s = e / n, j = e - s * n;
      const i64 ds = T / n, dj = T - ds * n;
      for (; e < e1 && ok; e += T) {
        i64 at;
        thorn_acc x;
        ok = thorn_hist_elem(env, s, j, bins, off, len, at, x);
        if (ok && at >= 0) ok = thorn_hupdate(env, mine, mine_locks, at, x);
        s += ds;
        j += dj;
        if (j >= n) { j -= n; ++s; }
      }
    }
  }
  __syncthreads();
  // Fold the block's M copies into its row of the subhistograms.
  const thorn_hview row = thorn_hview_at(thorn_sub_view(env), (i64)blockIdx.x * len);
  for (int i = tid; i < len; i += blockDim.x) {
    thorn_acc a = thorn_hload(loc, i);
    for (int m = 1; m < M && ok; ++m) ok = thorn_combine(env, a, thorn_hload(loc, (i64)m * len + i));
    thorn_hstore(row, i, a);
  }
}
)CUDA";

constexpr const char* kCombineKernel = R"CUDA(  const i64 off = p2, len = p3 & THORN_HIST_LEN_MASK, rows = p3 >> THORN_HIST_LEN_BITS;
  const thorn_hview dest = thorn_hview_at(thorn_dest_view(env), off);
  const thorn_hview sub = thorn_sub_view(env);
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < len; i += (i64)gridDim.x * blockDim.x) {
    thorn_acc a = thorn_hload(dest, i);
    for (i64 r = 0; r < rows; ++r)
      if (!thorn_combine(env, a, thorn_hload(sub, r * len + i))) return;
    thorn_hstore(dest, i, a);
  }
}
)CUDA";

// The race-factor inspector (the paper's §III-D): elements [p2, p2 + p3)
// mark the flat bins they hit in the flag words (PART k, one per bin of
// the whole histogram, zeroed by the host), and the first to mark a bin
// counts it in the word after the flags: the number of distinct bins.
constexpr const char* kSampleKernel = R"CUDA(  const i64 bins = p1, start = p2, count = p3, all = segments * bins;
  u32* const flags = thorn_sub_locks(env);
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (i64)gridDim.x * blockDim.x) {
    const i64 e = start + i, s = e / n, j = e - s * n;
    i64 at;
    thorn_acc x;
    if (!thorn_hist_elem(env, s, j, bins, 0, all, at, x)) return;
    if (at >= 0 && atomicExch(flags + at, 1u) == 0u) atomicAdd(flags + all, 1u);
  }
}
)CUDA";

void check_hist_step(const plan::Step& step) {
  if (step.kind != plan::StepKind::SegHist) throw Error(ErrorKind::Internal, "gen_seghist: not a SegHist step");
  std::vector<Prim> types = function_results(step.op), elem = function_results(step.element);
  if (elem.size() != types.size() + 1 || elem[0] != Prim::I64)
    throw Error(ErrorKind::Internal, "SegHist: the element must yield (i64 bin, one value per operator result)");
  for (size_t r = 0; r < types.size(); ++r)
    if (elem[r + 1] != types[r])
      throw Error(ErrorKind::Internal, "SegHist: element values differ in type from the operator's");
}

// The element with its bin split off, and the views of the kernel
// parameters: destinations (OUT), subhistogram rows (PART 0..k-1), locks
// (PART k; null unless the update locks).
std::string param_views(const std::vector<Prim>& types) {
  const size_t k = types.size();
  std::string args;
  for (size_t c = 0; c < k; ++c) args += fmt::format(", x.c{}", c);
  std::string s = fmt::format(
      "THORN_DEV bool thorn_elem_bin(const thorn_env& env, i64 s, i64 j, i64& b, thorn_acc& x) {{\n"
      "  return thorn_elem(env, s, j, b{});\n}}\n",
      args);
  s += "THORN_DEV thorn_hview thorn_dest_view(const thorn_env& env) {\n  thorn_hview h;\n";
  for (size_t c = 0; c < k; ++c) s += fmt::format("  h.c{0} = env.out{0};\n", c);
  s += "  return h;\n}\n";
  s += "THORN_DEV thorn_hview thorn_sub_view(const thorn_env& env) {\n  thorn_hview h;\n";
  for (size_t c = 0; c < k; ++c) s += fmt::format("  h.c{0} = env.part{0};\n", c);
  s += "  return h;\n}\n";
  s += fmt::format("THORN_DEV u32* thorn_sub_locks(const thorn_env& env) {{ return env.part{}; }}\n", k);
  return s;
}

// The shared-memory layout of thorn_hist_shared: each component's `cells`
// values (8-byte aligned), then the locks; as seghist_shared_bytes.
std::string smem_layout(const std::vector<Prim>& types, bool lock) {
  std::string s =
      "THORN_DEV void thorn_hist_smem(unsigned char* base, i64 cells, thorn_hview& h, u32*& locks) {\n"
      "  i64 at = 0;\n";
  for (size_t c = 0; c < types.size(); ++c)
    s += fmt::format("  h.c{0} = ({1}*)(base + at);\n  at = (at + cells * {2} + 7) / 8 * 8;\n", c,
                     mem_type(types[c]), prim_bytes(types[c]));
  s += lock ? "  locks = (u32*)(base + at);\n" : "  locks = (u32*)0;\n";
  return s + "}\n";
}

}  // namespace

size_t seghist_shared_bytes(const plan::Step& step, int64_t cells, launch::HistAtomic atomic) {
  size_t bytes = 0;
  for (Prim p : function_results(step.op)) bytes = align8(bytes + size_t(cells) * size_t(prim_bytes(p)));
  if (atomic == launch::HistAtomic::Lock) bytes += size_t(cells) * 4;
  return bytes;
}

KernelSource gen_seghist(const plan::Step& step, launch::HistAtomic atomic, const CodegenOptions& opts) {
  check_hist_step(step);
  if (opts.block_size < 32 || opts.block_size % 32 != 0 || opts.block_size > 1024)
    throw Error(ErrorKind::Internal, fmt::format("gen_seghist: blocks of {} threads", opts.block_size));
  detail::StepLayout l = detail::layout_of(step);
  std::vector<Prim> types = function_results(step.op);
  KernelSource ks;
  ks.name = detail::kernel_name(step, fmt::format("seghist.{}.b{}", launch::hist_atomic_name(atomic), opts.block_size));
  ks.entries = {"thorn_hist_init", "thorn_hist_global", "thorn_hist_shared", "thorn_hist_combine", "thorn_hist_sample"};
  std::string s = detail::source_header(step, fmt::format("seghist ({} updates)", launch::hist_atomic_name(atomic)));
  s += fmt::format("#define THORN_HIST_LEN_BITS {}\n", kHistLenBits);
  s += detail::env_struct(l);
  s += detail::operator_support(step, l, "SegHist");
  s += detail::element_function(step, l, opts.noalias);
  s += detail::hist_view_fns(types);
  s += detail::hist_update_fn(step, atomic);
  s += param_views(types);
  s += smem_layout(types, atomic == launch::HistAtomic::Lock);
  s += kHistCommon;
  s += detail::kernel_begin("thorn_hist_init", l, opts.block_size, opts.noalias);
  s += kInitKernel;
  s += detail::kernel_begin("thorn_hist_global", l, opts.block_size, opts.noalias);
  s += kGlobalKernel;
  s += detail::kernel_begin("thorn_hist_shared", l, kHistSharedBlock, opts.noalias);
  s += kSharedKernel;
  s += detail::kernel_begin("thorn_hist_combine", l, opts.block_size, opts.noalias);
  s += kCombineKernel;
  s += detail::kernel_begin("thorn_hist_sample", l, opts.block_size, opts.noalias);
  s += kSampleKernel;
  ks.source = std::move(s);
  return ks;
}

}  // namespace thorn::gpu::cg
