// SegRed: segmented reduction (and redomap) with regular segments, after
// Larsen's segmented-redomap kernels (seed 003, notes-segred.md §2). For each
// segment s, out[s] = ne ⊕ e(s,0) ⊕ ... ⊕ e(s,n-1), where e is the fused
// element function; its leading `num_map_outputs` results are map-part
// outputs written per element at s*n + j as the fold goes.
//
// Three kernels, one chosen per launch by gpu/launch/params.cpp:
//
//  ThreadPerSegment ("loop-in-map"): thread s folds segment s. Good when the
//    segments alone fill the GPU. The reads are coalesced by a warp-wide
//    shared-memory tile (thorn_tile_fold) instead of the prototype's separate
//    transpose pass.
//  Small: several segments per block (n <= block/2). Segments are padded to
//    g = 2^ceil(log2 n) threads; each thread reads one element (the padding
//    lanes hold ne, which is a two-sided identity), then ordered warp trees of
//    width g reduce each group; g > 32 adds a second level over the warp
//    results. This is the flag-free variant the notes suggest for CUDA
//    instead of a block-wide segmented scan.
//  Warp: a warp per segment (n from 65 to a few thousand, enough segments
//    to fill the GPU with warps): the warp reads 32*8 consecutive elements
//    a step and folds them with an ordered warp tree.
//  Large: one or more blocks per segment (n > block/2), blocks_per_segment
//    and chunking from equations (5.1)/(5.2). A commutative operator reads
//    strided (thread t of the segment takes j = t, t + T, ...: coalesced);
//    otherwise each thread's share is a contiguous chunk of `chunking`
//    elements, which its warp reads together, 32*8 consecutive elements a
//    step folded by an ordered warp tree (coalesced again), and the block
//    tree keeps thread order. With more than one block per segment, each
//    block writes a partial and thorn_segred_combine reduces the
//    [segments][blocks_per_segment] partials, one block per segment, without
//    recomputing the element function. At most two passes.
//
// Empty segments (n = 0) yield ne: the executor runs ThreadPerSegment, whose
// fold does nothing. Zero segments launch nothing.
#include <fmt/format.h>

#include "gpu/codegen/common.hpp"
#include "gpu/codegen/ctypes.hpp"
#include "gpu/codegen/kir_to_cuda.hpp"
#include "gpu/codegen/reduce_support.hpp"
#include "gpu/codegen/skeleton.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::cg {

const char* red_strategy_name(RedStrategy s) {
  switch (s) {
    case RedStrategy::ThreadPerSegment: return "thread-per-segment";
    case RedStrategy::Small: return "small";
    case RedStrategy::Large: return "large";
    case RedStrategy::Warp: return "warp";
  }
  return "?";
}

const char* segred_entry(RedStrategy s) {
  switch (s) {
    case RedStrategy::ThreadPerSegment: return "thorn_segred_tps";
    case RedStrategy::Small: return "thorn_segred_small";
    case RedStrategy::Large: return "thorn_segred_large";
    case RedStrategy::Warp: return "thorn_segred_warp";
  }
  return "?";
}

int accumulator_bytes(const plan::Step& step) {
  // Register sizes (f16 lives in a float), aligned as C lays out a struct.
  int offset = 0, align = 1;
  for (Prim p : function_results(step.op)) {
    int size = p == Prim::F16 ? 4 : prim_bytes(p);
    offset = (offset + size - 1) / size * size + size;
    align = std::max(align, size);
  }
  return (offset + align - 1) / align * align;
}

namespace {

constexpr const char* kTpsKernel = R"CUDA(  extern __shared__ __align__(16) unsigned char thorn_dyn_smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int logw = (int)p1;
  thorn_acc* tile = (thorn_acc*)thorn_dyn_smem + warp * (32 * ((1 << logw) + 1));
  const i64 seg0 = (i64)blockIdx.x * blockDim.x + (warp << 5);
  thorn_acc acc = thorn_neutral();
  const bool ok = thorn_tile_fold(env, acc, tile, logw, seg0, 1, 0, 0, n);
  const i64 s = seg0 + lane;
  if (s < segments && ok) thorn_store_red(env, s, acc);
}
)CUDA";

constexpr const char* kSmallKernel = R"CUDA(  __shared__ thorn_acc thorn_warp_parts[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  const int logg = (int)p1, g = 1 << logg;
  const i64 spb = blockDim.x >> logg;  // segments per block
  const i64 s = (i64)blockIdx.x * spb + (threadIdx.x >> logg);
  const i64 j = threadIdx.x & (g - 1);
  thorn_acc v = thorn_neutral();
  bool ok = true;
  if (s < segments && j < n) ok = thorn_elem_acc(env, s, j, v);
  if (g <= 32) {
    thorn_warp_reduce(env, v, g, ok);
    if (j == 0 && s < segments && ok) thorn_store_red(env, s, v);
  } else {
    // A segment spans g/32 whole warps: reduce each warp, then warp 0
    // reduces groups of g/32 warp results.
    thorn_warp_reduce(env, v, 32, ok);
    if (lane == 0) thorn_warp_parts[warp] = v;
    __syncthreads();
    if (warp == 0) {
      const int gw = g >> 5;
      v = lane < nwarps ? thorn_warp_parts[lane] : thorn_neutral();
      thorn_warp_reduce(env, v, gw, ok);
      const i64 s2 = (i64)blockIdx.x * spb + lane / gw;
      if ((lane & (gw - 1)) == 0 && lane < nwarps && s2 < segments && ok) thorn_store_red(env, s2, v);
    }
  }
}
)CUDA";

constexpr const char* kLargeBegin = R"CUDA(  extern __shared__ __align__(16) unsigned char thorn_dyn_smem[];
  __shared__ thorn_acc thorn_warp_parts[32];
  const i64 gps = p1;  // blocks per segment
  const i64 s = (i64)blockIdx.x / gps, gi = (i64)blockIdx.x - s * gps;
  const i64 t = (i64)threadIdx.x + gi * blockDim.x;  // thread within the segment
  thorn_acc acc = thorn_neutral();
)CUDA";

// Commutative: strided, four independent elements per iteration so their
// loads are in flight together.
constexpr const char* kLargeStrided = R"CUDA(  bool ok = true;
  const i64 T = gps * blockDim.x;
  i64 j = t;
  for (; j + 3 * T < n && ok; j += 4 * T) {
    thorn_acc x0, x1, x2, x3;
    ok = thorn_elem_acc(env, s, j, x0) && thorn_elem_acc(env, s, j + T, x1) &&
         thorn_elem_acc(env, s, j + 2 * T, x2) && thorn_elem_acc(env, s, j + 3 * T, x3);
    if (ok) ok = thorn_combine(env, acc, x0) && thorn_combine(env, acc, x1) &&
                 thorn_combine(env, acc, x2) && thorn_combine(env, acc, x3);
  }
  for (; j < n && ok; j += T) {
    thorn_acc x;
    ok = thorn_elem_acc(env, s, j, x) && thorn_combine(env, acc, x);
  }
)CUDA";

// Non-commutative: the block's threads cover their contiguous share of the
// segment in thread order (thread t: [t*chunk, (t+1)*chunk)), so warp w of
// the block owns a run of 32*chunk consecutive elements, which it folds with
// thorn_warp_run_fold. (A shared-memory tile of accumulators, as in
// thread-per-segment, is narrow for a 16-byte accumulator and was 2.7x
// slower on an H100: mss over 2^28 i32 in 1.2 ms against 0.44.)
constexpr const char* kLargeOrdered = R"CUDA(  const i64 chunk = p2;  // elements per thread
  const int warp = threadIdx.x >> 5;
  const i64 run0 = ((i64)gi * blockDim.x + (warp << 5)) * chunk;
  const i64 run_end = run0 + 32 * chunk < n ? run0 + 32 * chunk : n;
  bool ok = true;
  thorn_warp_run_fold(env, acc, s, run0, run_end, ok);
)CUDA";

// Warp per segment: warp w of block b folds segment b*(warps per block)+w
// whole, with thorn_warp_run_fold; lane 0 stores it. No shared memory, no
// block synchronisation, any operator.
constexpr const char* kWarpKernel = R"CUDA(  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const i64 s = (i64)blockIdx.x * (blockDim.x >> 5) + warp;
  if (s >= segments) return;  // whole warps leave
  thorn_acc acc = thorn_neutral();
  bool ok = true;
  thorn_warp_run_fold(env, acc, s, 0, n, ok);
  if (lane == 0 && ok) thorn_store_red(env, s, acc);
}
)CUDA";

constexpr const char* kLargeEnd = R"CUDA(  acc = thorn_block_reduce(env, acc, thorn_warp_parts, ok);
  if (threadIdx.x == 0 && ok) {
    if (gps == 1) thorn_store_red(env, s, acc);
    else thorn_store_part(env, (i64)blockIdx.x, acc);
  }
}
)CUDA";

// Second pass: block s reduces partials [s*gps, (s+1)*gps), each thread a
// contiguous run, in order.
constexpr const char* kCombineKernel = R"CUDA(  __shared__ thorn_acc thorn_warp_parts[32];
  const i64 gps = p1;
  const i64 s = blockIdx.x;
  const i64 per = (gps + blockDim.x - 1) / blockDim.x;
  const i64 b = (i64)threadIdx.x * per;
  const i64 e = b + per < gps ? b + per : gps;
  thorn_acc acc = thorn_neutral();
  bool ok = true;
  for (i64 i = b; i < e && ok; ++i) ok = thorn_combine(env, acc, thorn_load_part(env, s * gps + i));
  acc = thorn_block_reduce(env, acc, thorn_warp_parts, ok);
  if (threadIdx.x == 0 && ok) thorn_store_red(env, s, acc);
}
)CUDA";

}  // namespace

KernelSource gen_segred(const plan::Step& step, RedStrategy strategy, bool ordered, const CodegenOptions& opts) {
  if (step.kind != plan::StepKind::SegRed)
    throw Error(ErrorKind::Internal, "gen_segred: not a SegRed step");
  detail::StepLayout l = detail::layout_of(step);
  std::string skeleton = fmt::format("segred.{}", red_strategy_name(strategy));
  if (strategy == RedStrategy::Large) skeleton += ordered ? ".ordered" : ".strided";
  KernelSource ks;
  ks.name = detail::kernel_name(step, skeleton);
  std::string s = detail::source_header(step, skeleton);
  s += detail::env_struct(l);
  s += detail::reduce_support(step, l, opts.noalias);
  const char* entry = segred_entry(strategy);
  ks.entries = {entry};
  s += detail::kernel_begin(entry, l, opts.block_size, opts.noalias);
  switch (strategy) {
    case RedStrategy::ThreadPerSegment: s += kTpsKernel; break;
    case RedStrategy::Small: s += kSmallKernel; break;
    case RedStrategy::Warp: s += kWarpKernel; break;
    case RedStrategy::Large:
      s += kLargeBegin;
      s += ordered ? kLargeOrdered : kLargeStrided;
      s += kLargeEnd;
      s += detail::kernel_begin("thorn_segred_combine", l, opts.block_size, opts.noalias);
      s += kCombineKernel;
      ks.entries.push_back("thorn_segred_combine");
      break;
  }
  ks.source = std::move(s);
  return ks;
}

}  // namespace thorn::gpu::cg
