#pragma once
// Kernel skeletons: complete CUDA C sources for plan steps.
//
// One file per skeleton (compare Accelerate's CodeGen/Map, Fold, FoldSeg,
// Permute): map.cpp (SegMap), reduce.cpp (SegRed, seed 003 /
// notes-segred.md), scan.cpp (SegScan, seed 000 / notes-scan.md),
// hist.cpp (SegHist, seed 001 / notes-hist.md; atomics in hist_atomic.cpp),
// scatter.cpp (Scatter), transpose.cpp (a standalone tiled transpose).
//
// Every step kernel takes the same parameter list, so one argument builder
// serves all (gpu/exec/args.hpp):
//
//   (i32* err, i32 msg_elem, i32 msg_op,      error flag, Check message bases
//    i64 segments, i64 n,                     the step's regular shape
//    i64 p1, i64 p2, i64 p3,                  skeleton parameters (below)
//    thorn_consts kc,                         lifted constants (constants.hpp); only when any
//    OUT pointers...,                         the step's `writes`, in order
//    PART pointers...,                        SegRed: one per reduced value (partials);
//                                             SegScan: the look-back's state (below)
//                                             SegHist: subhistograms per value, then locks
//    FREE pointers...)                        element.free_arrays, bound by `reads`
//
// Element values are stored in memory types (gpu/codegen/ctypes.hpp).
#include <string>
#include <vector>

#include "gpu/launch/hist_cost.hpp"
#include "interp/core/prim.hpp"
#include "interp/flatten/plan.hpp"

namespace thorn::gpu::cg {

struct KernelSource {
  std::string name;                  // for statistics and dumps: "segred.large main.fut:3:5"
  std::string source;                // complete CUDA C
  std::vector<std::string> entries;  // the __global__ functions in it
};

struct CodegenOptions {
  int block_size = 256;          // __launch_bounds__; the launch uses exactly this
  bool noalias = false;          // no output buffer is also read: inputs may be __restrict__
};

// ---- SegMap (map.cpp): grid-stride over segments*n; entry "thorn_map".
// p1..p3 unused.
KernelSource gen_segmap(const plan::Step& step, const CodegenOptions& opts);

// ---- SegRed (reduce.cpp); strategies in notes-segred.md §2, chosen by
// gpu/launch/params.hpp from the real shape and the device.
enum class RedStrategy {
  ThreadPerSegment,  // "loop-in-map": a thread folds one segment; warp tiles in shared memory
                     // transpose the reads for coalescing. p1 = log2 tile width.
  Small,             // several segments per block: 2^p1 threads per segment (one element each).
  Large,             // 1+ blocks per segment: p1 = blocks per segment, p2 = elements per thread,
                     // entry "thorn_segred_large" and the
                     // second pass "thorn_segred_combine" (one block per segment, over p1 partials).
  Warp,              // a warp per segment, 32*8 consecutive elements a step, ordered warp trees.
};
const char* red_strategy_name(RedStrategy s);
// `ordered`: keep the element order (non-commutative operators); a
// commutative operator may use strided (coalesced) reads in Large.
KernelSource gen_segred(const plan::Step& step, RedStrategy strategy, bool ordered,
                        const CodegenOptions& opts);
const char* segred_entry(RedStrategy s);  // "thorn_segred_tps", "thorn_segred_small", "thorn_segred_large"

// Bytes of the accumulator tuple (`struct thorn_acc`) in a kernel for `step`,
// laid out as the CUDA compiler does (register types: f16 is a float).
int accumulator_bytes(const plan::Step& step);

// ---- SegScan (scan.cpp): inclusive scan within regular segments in one
// pass, after Clausen's regular segmented single-pass scan (seed 000,
// notes-scan.md): tiles of m*block elements, dynamic block ids, decoupled
// look-back. Entry "thorn_segscan"; m and opts.block_size are compiled in
// (chosen by gpu/launch: plan_segscan). p1..p3 unused. PART pointers: the
// block counter (u32), status flags (u8 per tile), then per tile the
// aggregates and the inclusive prefixes, one array per scanned value; the
// runner zeroes the counter and the flags before every launch. Status: it
// compiles with NVRTC for sm_80 and sm_90 and passes the scan suite on the
// emulated driver (tests/gpu/support/scan_suite.cpp); it has not run on a
// real GPU yet.
// Status flags of the look-back.
constexpr int kScanFlagNone = 0, kScanFlagAggregate = 1, kScanFlagPrefix = 2;
// The scanned tuple's sizes in registers (f16 as a float), for choosing m.
struct ScanTuple {
  int max_bytes = 0;  // the widest value
  int sum_bytes = 0;  // all values
  int words = 0;      // sum of max(bytes, 4) / 4: 32-bit registers per tuple
};
ScanTuple scan_tuple(const plan::Step& step);
// Dynamic shared memory of the kernel for m elements per thread.
size_t segscan_shared_bytes(const plan::Step& step, int m, int block);
// `late_prefix` false is for tests: a tile whose prefix depends on earlier
// tiles then never publishes it (only its aggregate), so every look-back
// walks back to the last tile with a segment start, over aggregates and
// through many windows, even on the emulator, where blocks run one after
// another and would otherwise always find their predecessor's prefix.
KernelSource gen_segscan(const plan::Step& step, int m, const CodegenOptions& opts, bool late_prefix = true);

// ---- SegHist (hist.cpp): generalised, batched histograms after Henriksen et
// al. (seed 001, notes-hist.md). hist[r][s*bins + b] ⊕= v_r for element
// (s, j) = (b, v_1..v_k) with 0 <= b < bins; the destinations (OUT
// pointers) hold the initial values and are updated in place. The batch's
// segments*bins bins are treated as one flat histogram; a launch covers
// the chunk [off, off + len) of it and only the elements of the segments
// that chunk touches. Entries (one module):
//   "thorn_hist_init"     sub-histogram rows (PART) := ne, their locks := 0
//   "thorn_hist_global"   update; p3's M = 0: the destinations directly,
//                         else row (global thread id % M) of the PART rows
//   "thorn_hist_shared"   (block kHistSharedBlock) M copies of the chunk in
//                         shared memory, thread t updating copy t % M; the
//                         block folds them into PART row blockIdx.x
//   "thorn_hist_combine"  dest[off + i] = dest[off + i] ⊕ row_0[i] ⊕ ... for
//                         the p3's `rows` PART rows
//   "thorn_hist_sample"   the race-factor inspector: elements [p2, p2 + p3)
//                         set flag words (the locks pointer, one per flat
//                         bin, then a counter of the distinct bins hit)
// p1 = bins, p2 = off, p3 = len | (M or rows) << kHistLenBits (the
// sample kernel: p2 = first element, p3 = elements). PART
// pointers: one array per value (rows x len), then the u32 locks (Lock).
// Status: compiles with NVRTC for sm_80 and sm_90 and passes the histogram
// suite on the emulated driver (tests/gpu/support/hist_suite.cpp); it has
// not run on a real GPU.
constexpr int kHistSharedBlock = 1024;
constexpr int kHistLenBits = 40;
// The strongest update the operator and its types allow, and whether a
// given one is allowed (Lock always is; Cas needs one 32/64-bit value;
// Hardware a separable operator of hardware atomics).
launch::HistAtomic hist_best_atomic(const plan::Step& step);
bool hist_atomic_allowed(const plan::Step& step, launch::HistAtomic a);
int hist_value_bytes(const plan::Step& step);  // sizeof(β): the values' memory bytes
// Dynamic shared memory of thorn_hist_shared for `cells` = M * len bins.
size_t seghist_shared_bytes(const plan::Step& step, int64_t cells, launch::HistAtomic atomic);
KernelSource gen_seghist(const plan::Step& step, launch::HistAtomic atomic, const CodegenOptions& opts);

// ---- Scatter (scatter.cpp): grid-stride; p1 = dest_size; entry "thorn_scatter".
KernelSource gen_scatter(const plan::Step& step, const CodegenOptions& opts);

// ---- Transpose (transpose.cpp): [batches][rows][cols] -> [batches][cols][rows]
// of elements of `elem_bytes` (1, 2, 4, 8) bytes; entry "thorn_transpose" with
// parameters (const T* in, T* out, i64 batches, i64 rows, i64 cols, i32 log_tile_h).
// Tiles hold 1024 elements, 2^log_tile_h rows by 1024/2^log_tile_h columns:
// 32x32 normally, flatter or taller when a dimension is below 32 (the
// low-height / low-width variants of notes-segred.md §2 "Transposition").
KernelSource gen_transpose(int elem_bytes);
constexpr int kTransposeTileElems = 1024;

}  // namespace thorn::gpu::cg
