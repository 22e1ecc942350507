#include "gpu/launch/params.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>

#include <fmt/format.h>

#include "gpu/driver/dynlib.hpp"

namespace thorn::gpu::launch {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int log2_exact(int64_t v) { return std::countr_zero(uint64_t(v)); }

int64_t pow2_ceil(int64_t v) { return v <= 1 ? 1 : int64_t(std::bit_ceil(uint64_t(v))); }

// Blocks of `block` threads one SM holds at once, by threads and block count.
int blocks_per_sm(const DeviceProps& dev, int block) {
  return std::max(1, std::min(dev.max_threads_per_sm / block, dev.max_blocks_per_sm));
}

// The widest warp tile (a power of two <= 32 columns, at most `want`) whose
// shared memory, 32 x (w + 1) accumulators per warp, fits the budget that
// keeps `block`-thread blocks at full occupancy; if even w = 1 does not fit
// the budget, the 48 KiB a block can always have, at lower occupancy.
// Returns log2(w), or -1 when nothing fits.
int tile_log_width(const DeviceProps& dev, int block, int acc_bytes, int64_t want, size_t* smem) {
  const int warps = block / 32;
  const size_t static_smem = size_t(32) * size_t(acc_bytes);  // the block tree's per-warp values
  size_t occupancy_budget = size_t(dev.shared_per_sm) / size_t(blocks_per_sm(dev, block));
  size_t hard_budget = size_t(dev.shared_per_block);
  for (size_t budget : {std::min(occupancy_budget, hard_budget), hard_budget}) {
    if (budget <= static_smem) continue;
    for (int lw = 5; lw >= 0; --lw) {
      if ((int64_t(1) << lw) > pow2_ceil(std::max<int64_t>(want, 1)) && lw > 0) continue;
      size_t need = size_t(warps) * 32 * size_t((1 << lw) + 1) * size_t(acc_bytes);
      if (need + static_smem <= budget) {
        *smem = need;
        return lw;
      }
    }
  }
  return -1;
}

}  // namespace

int64_t full_occupancy_blocks(const DeviceProps& dev, int block) {
  return int64_t(dev.sm_count) * blocks_per_sm(dev, block);
}

Grid grid_stride(const DeviceProps& dev, int64_t total, int block) {
  Grid g;
  g.threads = block;
  g.blocks = std::max<int64_t>(1, std::min(ceil_div(total, block), 2 * full_occupancy_blocks(dev, block)));
  return g;
}

// Strategy choice (notes-segred.md §2, "Choice at run time"), with a warp
// per segment added between the notes' three:
//
//   n <= 1, or segments >= tps_segments and n <= kTpsMaxN
//                                       thread-per-segment ("loop-in-map")
//   kTpsMaxN < n <= kWarpMaxN and segments >= warp_segments
//                                       warp per segment
//   else n <= block/2                   small (several segments per block)
//   else                                large (one or more blocks per segment)
//
// Measured on an H100 (docs/performance.md): thread-per-segment reads its
// tile of accumulators well for short rows but falls behind once rows are
// long (sum over [2^18][1024]: 0.67 ms, against 0.43 with a block per
// segment), and a 16-byte accumulator makes the tile narrow (mss over
// [2^18][1024]: 0.98 ms). warp_segments is the number of warps the device
// holds at full occupancy (8448 on an H100), so that warps per segment
// fill it.
//
// tps_segments defaults to half the threads the device holds at full
// occupancy (SMs x max threads per SM / 2: 135168 on an H100). The notes
// found the prototype's threshold best at 2^14 segments on a 15-SM GTX 780 Ti
// (30720 resident threads, i.e. about half) and that it chose "small" for
// [2^14][2^6] where loop-in-map was faster; scaling by the device's resident
// threads keeps that ratio on any GPU. Tune with THORN_SEGRED_TPS_SEGMENTS.
//
// Large: (5.1) blocks_per_segment = ceil(full-occupancy blocks / segments),
// guarded by ceil(n / block) so no block is idle; (5.2) chunking =
// ceil(n / (blocks_per_segment * block)). One block per segment needs no
// second pass; [1][N] uses the whole GPU and a second pass of one block.
SegRedLaunch plan_segred(const DeviceProps& dev, int64_t segments, int64_t n, bool commutative, int acc_bytes) {
  SegRedLaunch L;
  const int64_t tps_segments =
      env_int("THORN_SEGRED_TPS_SEGMENTS", int64_t(dev.sm_count) * dev.max_threads_per_sm / 2);
  const int64_t warp_segments = int64_t(dev.sm_count) * dev.max_threads_per_sm / 32;
  std::string forced = env_or_empty("THORN_SEGRED_STRATEGY");
  cg::RedStrategy s;
  if (forced == "tps") s = cg::RedStrategy::ThreadPerSegment;
  else if (forced == "small") s = cg::RedStrategy::Small;
  else if (forced == "large") s = cg::RedStrategy::Large;
  else if (forced == "warp") s = cg::RedStrategy::Warp;
  else if (n == 0 || n == 1 || (segments >= tps_segments && n <= kTpsMaxN)) s = cg::RedStrategy::ThreadPerSegment;
  else if (n > kTpsMaxN && n <= kWarpMaxN && segments >= warp_segments) s = cg::RedStrategy::Warp;
  else if (n <= kBlock / 2) s = cg::RedStrategy::Small;
  else s = cg::RedStrategy::Large;
  if (s == cg::RedStrategy::Small && pow2_ceil(n) > kBlock) s = cg::RedStrategy::Large;  // forced small on wide segments
  // Thread per segment folds through a shared-memory tile of accumulators;
  // when not even a one-column tile fits (huge accumulators), the segments
  // go to the kernels that need none (small also handles n = 0 and 1).
  size_t tps_smem = 0;
  int tps_lw = s == cg::RedStrategy::ThreadPerSegment ? tile_log_width(dev, kTpsBlock, acc_bytes, n, &tps_smem) : 0;
  if (tps_lw < 0 && forced.empty()) s = n <= kBlock / 2 ? cg::RedStrategy::Small : cg::RedStrategy::Large;
  L.strategy = s;

  switch (s) {
    case cg::RedStrategy::ThreadPerSegment: {
      size_t smem = tps_smem;
      int lw = tps_lw;
      if (lw < 0) lw = 0, smem = size_t(4) * 32 * 2 * size_t(acc_bytes);  // forced: the launch reports it
      L.grid = {ceil_div(segments, kTpsBlock), kTpsBlock, smem};
      L.p1 = lw;
      L.why = fmt::format("thread-per-segment: {} segments >= {} (tile width {})", segments, tps_segments, 1 << lw);
      break;
    }
    case cg::RedStrategy::Warp: {
      const int64_t warps = kBlock / 32;
      L.grid = {ceil_div(segments, warps), kBlock, 0};
      L.why = fmt::format("warp per segment: {} segments of {} elements, {} per block", segments, n, warps);
      break;
    }
    case cg::RedStrategy::Small: {
      int64_t g = pow2_ceil(n);
      L.p1 = log2_exact(g);
      L.grid = {ceil_div(segments, kBlock / g), kBlock, 0};
      L.why = fmt::format("small: segment size {} <= {}: {} segments per block of {}", n, kBlock / 2, kBlock / g,
                          kBlock);
      break;
    }
    case cg::RedStrategy::Large: {
      L.ordered = !commutative;
      const int block = kBlock;
      int64_t gps = ceil_div(full_occupancy_blocks(dev, block), std::max<int64_t>(segments, 1));
      gps = std::max<int64_t>(1, std::min(gps, ceil_div(n, block)));
      int64_t chunk = ceil_div(n, gps * block);
      L.p1 = gps;
      L.p2 = chunk;
      L.grid = {segments * gps, block, 0};
      L.second_pass = gps > 1;
      if (L.second_pass) L.combine = {segments, kBlock, 0};
      L.why = fmt::format("large ({}): {} block(s) per segment, {} element(s) per thread{}",
                          L.ordered ? "ordered chunks" : "strided", gps, chunk,
                          L.second_pass ? ", second pass over partials" : "");
      break;
    }
  }
  if (!forced.empty()) L.why += " [forced by THORN_SEGRED_STRATEGY]";
  return L;
}

// Elements per thread (notes-scan.md §2), the thesis's model with the
// device's real numbers instead of its hard-coded ones: per thread of the
// largest block, k_mem bytes of shared memory and k_reg registers;
//   m = max(1, min(max(k_mem, sum) / max, (k_reg - 1 - words) / (2 words + 3)))
// with max / sum the widest / all values' bytes and words their 32-bit
// registers. An H100 (48 KiB, 64K registers per block): 12 for i32 and
// f32, 6 for i64, 5 for a 4 x i32 tuple, 3 for 6 x i32. Then m shrinks
// until the transposition buffer fits the 48 KiB every block may have.
// The thesis found its model a good start, a little short of the best m for
// small types on newer GPUs: tune with THORN_SCAN_M.
SegScanLaunch plan_segscan(const DeviceProps& dev, const plan::Step& step, int64_t total) {
  SegScanLaunch L;
  const cg::ScanTuple t = cg::scan_tuple(step);
  const int k_mem = dev.shared_per_block / std::max(1, dev.max_threads_per_block);
  const int k_reg = dev.regs_per_block / std::max(1, dev.max_threads_per_block);
  const int max_bytes = std::max(1, t.max_bytes), words = std::max(1, t.words);
  int m = std::max(1, std::min(std::max(k_mem, t.sum_bytes) / max_bytes, (k_reg - 1 - words) / (2 * words + 3)));
  int block = kBlock;
  const int64_t forced_block = env_int("THORN_SCAN_BLOCK", 0);
  if (forced_block > 0) block = int(std::clamp<int64_t>(forced_block / 32 * 32, 32, 1024));
  const int64_t forced_m = env_int("THORN_SCAN_M", 0);
  if (forced_m > 0) m = int(std::min<int64_t>(forced_m, 64));
  // Static shared memory: a value and a flag per warp, the block prefix.
  const size_t static_smem = size_t(block / 32 + 1) * size_t(cg::accumulator_bytes(step) + 1) + 64;
  while (m > 1 && cg::segscan_shared_bytes(step, m, block) + static_smem > size_t(dev.shared_per_block)) --m;
  L.m = m;
  L.block = block;
  L.tile = int64_t(m) * block;
  L.late_prefix = env_int("THORN_SCAN_AGGREGATES_ONLY", 0) == 0;
  L.grid = {ceil_div(total, L.tile), block, cg::segscan_shared_bytes(step, m, block)};
  L.why = fmt::format("single pass: {} tiles of {} x {} elements{}{}", L.grid.blocks, block, m,
                      forced_block > 0 || forced_m > 0 ? " [THORN_SCAN_BLOCK / THORN_SCAN_M]" : "",
                      L.late_prefix ? "" : " [THORN_SCAN_AGGREGATES_ONLY]");
  return L;
}

int transpose_log_tile_h(int64_t rows, int64_t cols) {
  // Square 32x32 tiles unless a dimension is below 32: then the tile takes
  // that dimension's power-of-two ceiling and is wider (or taller) instead.
  if (rows < 32) return log2_exact(pow2_ceil(std::max<int64_t>(rows, 2)));
  if (cols < 32) return 10 - log2_exact(pow2_ceil(std::max<int64_t>(cols, 2)));
  return 5;
}

Grid transpose_grid(const DeviceProps& dev, int64_t batches, int64_t rows, int64_t cols) {
  int lth = transpose_log_tile_h(rows, cols);
  int64_t th = int64_t(1) << lth, tw = int64_t(1) << (10 - lth);
  int64_t tiles = batches * ceil_div(rows, th) * ceil_div(cols, tw);
  Grid g;
  g.threads = 256;
  g.blocks = std::max<int64_t>(1, std::min(tiles, 4 * full_occupancy_blocks(dev, 256)));
  return g;
}

}  // namespace thorn::gpu::launch
