#pragma once
// Launch parameters from the device's real properties: block and grid sizes,
// and the segmented-reduction strategy (notes-segred.md §2).
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu/codegen/skeleton.hpp"
#include "gpu/driver/device.hpp"

namespace thorn::gpu::launch {

constexpr int kBlock = 256;     // map, scatter, small and large reductions (notes: 128-256)
constexpr int kTpsBlock = 128;  // thread-per-segment: 4 warps, each with its tile
constexpr int64_t kTpsMaxN = 64;     // longest segments for thread-per-segment (see plan_segred)
constexpr int64_t kWarpMaxN = 4096;  // longest segments for a warp per segment

struct Grid {
  int64_t blocks = 0;
  int threads = 0;
  size_t dynamic_smem = 0;
};

// A grid-stride launch over `total` items: enough blocks to fill every SM
// twice over at full occupancy, fewer when there is less work.
Grid grid_stride(const DeviceProps& dev, int64_t total, int block = kBlock);

// Blocks that fill the device at full occupancy ("opt_num_groups" in the notes).
int64_t full_occupancy_blocks(const DeviceProps& dev, int block);

// How one SegRed launch is done. p1..p3 are the kernels' skeleton parameters
// (gpu/codegen/skeleton.hpp).
struct SegRedLaunch {
  cg::RedStrategy strategy = cg::RedStrategy::ThreadPerSegment;
  bool ordered = true;          // Large: contiguous chunks (else strided)
  Grid grid;
  int64_t p1 = 0, p2 = 0, p3 = 0;
  bool second_pass = false;     // Large with more than one block per segment
  Grid combine;                 // its grid
  std::string why;              // the choice in words, for :plan and the benchmarks
};

// Thresholds: see params.cpp. Environment overrides for tuning:
//   THORN_SEGRED_STRATEGY=tps|small|warp|large   force a strategy
//   THORN_SEGRED_TPS_SEGMENTS=N             segments from which thread-per-segment is used
SegRedLaunch plan_segred(const DeviceProps& dev, int64_t segments, int64_t n, bool commutative, int acc_bytes);

// How one SegScan launch is done (gpu/codegen/scan.cpp): m elements per
// thread and the block size, both compiled into the kernel, so they depend
// only on the device and the scanned tuple, never on the sizes; one block
// per tile of m*block elements.
struct SegScanLaunch {
  int m = 1;
  int block = kBlock;
  int64_t tile = 0;  // m * block
  bool late_prefix = true;  // false: THORN_SCAN_AGGREGATES_ONLY=1 (tests; gen_segscan)
  Grid grid;
  std::string why;
};
// Environment overrides for tuning and tests: THORN_SCAN_M=M, THORN_SCAN_BLOCK=B
// (a multiple of 32, 32 to 1024), THORN_SCAN_AGGREGATES_ONLY=1 (long look-backs).
SegScanLaunch plan_segscan(const DeviceProps& dev, const plan::Step& step, int64_t total);

// The tile shape of a transpose of rows x cols (log2 of the tile height).
int transpose_log_tile_h(int64_t rows, int64_t cols);
Grid transpose_grid(const DeviceProps& dev, int64_t batches, int64_t rows, int64_t cols);

}  // namespace thorn::gpu::launch
