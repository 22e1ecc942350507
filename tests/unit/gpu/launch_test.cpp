// Launch parameters and strategy choice on a typical H100 (no device needed).
#include <doctest/doctest.h>

#include <cstdlib>

#include "gpu/launch/params.hpp"
#include "gpu/memory/pool.hpp"

using namespace thorn;
using namespace thorn::gpu;
using cg::RedStrategy;

TEST_CASE("segmented reduction strategies (notes-segred.md §2)") {
  DeviceProps h100 = DeviceProps::typical(90);
  unsetenv("THORN_SEGRED_STRATEGY");
  unsetenv("THORN_SEGRED_TPS_SEGMENTS");
  const int64_t full = int64_t(h100.sm_count) * h100.max_threads_per_sm;

  SUBCASE("many segments: one thread per segment") {
    auto L = launch::plan_segred(h100, int64_t(1) << 20, 64, true, 4);
    CHECK(L.strategy == RedStrategy::ThreadPerSegment);
    CHECK(L.grid.blocks == (int64_t(1) << 20) / launch::kTpsBlock);
    CHECK(L.p1 >= 3);  // a tile of at least 8 columns for f32
    CHECK(L.grid.dynamic_smem <= size_t(h100.shared_per_block));
    auto below = launch::plan_segred(h100, full / 2 - 1, 64, true, 4);
    CHECK(below.strategy == RedStrategy::Small);
  }
  SUBCASE("longer segments that fill the GPU with warps: a warp each") {
    const int64_t warps = full / 32;
    auto L = launch::plan_segred(h100, int64_t(1) << 18, 1024, true, 4);
    CHECK(L.strategy == RedStrategy::Warp);
    CHECK(L.grid.blocks == (int64_t(1) << 18) / (launch::kBlock / 32));
    CHECK(L.grid.dynamic_smem == 0);
    CHECK(launch::plan_segred(h100, int64_t(1) << 19, 512, false, 16).strategy == RedStrategy::Warp);
    CHECK(launch::plan_segred(h100, warps, launch::kTpsMaxN + 1, true, 4).strategy == RedStrategy::Warp);
    CHECK(launch::plan_segred(h100, warps - 1, 1000, true, 4).strategy == RedStrategy::Large);
    CHECK(launch::plan_segred(h100, warps, launch::kWarpMaxN + 1, true, 4).strategy == RedStrategy::Large);
    CHECK(launch::plan_segred(h100, int64_t(1) << 22, launch::kTpsMaxN, false, 16).strategy ==
          RedStrategy::ThreadPerSegment);
  }
  SUBCASE("segments of at most half a block: several per block") {
    auto L = launch::plan_segred(h100, 1000, launch::kBlock / 2, true, 4);
    CHECK(L.strategy == RedStrategy::Small);
    CHECK(L.p1 == 7);  // 128 threads per segment
    CHECK(L.grid.blocks == 500);
    auto odd = launch::plan_segred(h100, 10, 3, true, 4);
    CHECK(odd.p1 == 2);  // padded to 4
    CHECK(odd.grid.blocks == 1);
  }
  SUBCASE("larger segments: blocks per segment, equations 5.1 and 5.2") {
    auto L = launch::plan_segred(h100, 1000, launch::kBlock / 2 + 1, true, 4);
    CHECK(L.strategy == RedStrategy::Large);
    CHECK(L.p1 == 1);
    CHECK_FALSE(L.second_pass);
    auto one = launch::plan_segred(h100, 1, int64_t(1) << 26, true, 4);
    CHECK(one.strategy == RedStrategy::Large);
    CHECK(one.p1 == launch::full_occupancy_blocks(h100, launch::kBlock));
    CHECK(one.second_pass);
    CHECK(one.combine.blocks == 1);
    CHECK(one.p2 == ((int64_t(1) << 26) + one.p1 * 256 - 1) / (one.p1 * 256));
    CHECK_FALSE(one.ordered);
    auto small_one = launch::plan_segred(h100, 1, 200, true, 4);  // §5.5: one block, not hundreds
    CHECK(small_one.grid.blocks == 1);
    auto nc = launch::plan_segred(h100, 2, 100000, false, 16);
    CHECK(nc.ordered);
    CHECK(nc.grid.dynamic_smem == 0);  // warps read their runs directly (no tile)
    CHECK(nc.p2 == (100000 + nc.p1 * 256 - 1) / (nc.p1 * 256));
  }
  SUBCASE("empty segments and single elements") {
    CHECK(launch::plan_segred(h100, 100, 0, true, 4).strategy == RedStrategy::ThreadPerSegment);
    CHECK(launch::plan_segred(h100, 100, 1, false, 4).strategy == RedStrategy::ThreadPerSegment);
  }
  SUBCASE("forced by the environment") {
    setenv("THORN_SEGRED_STRATEGY", "large", 1);
    CHECK(launch::plan_segred(h100, int64_t(1) << 20, 4, true, 4).strategy == RedStrategy::Large);
    setenv("THORN_SEGRED_STRATEGY", "warp", 1);
    CHECK(launch::plan_segred(h100, 3, 100000, false, 4).strategy == RedStrategy::Warp);
    unsetenv("THORN_SEGRED_STRATEGY");
    setenv("THORN_SEGRED_TPS_SEGMENTS", "100", 1);
    CHECK(launch::plan_segred(h100, 100, 64, true, 4).strategy == RedStrategy::ThreadPerSegment);
    unsetenv("THORN_SEGRED_TPS_SEGMENTS");
  }
  SUBCASE("huge accumulators still fit in shared memory") {
    auto L = launch::plan_segred(h100, 3, 100000, false, 512);
    CHECK(L.strategy == RedStrategy::Large);
    CHECK(L.grid.dynamic_smem + 32 * 512 <= size_t(h100.shared_per_block));
    // Many segments would take a thread each, but no tile of 512-byte
    // accumulators fits: the kernels without a tile take them.
    auto T = launch::plan_segred(h100, int64_t(1) << 20, 64, false, 512);
    CHECK(T.strategy == RedStrategy::Small);
    CHECK(T.grid.dynamic_smem == 0);
    CHECK(launch::plan_segred(h100, int64_t(1) << 20, 1000, false, 512).strategy == RedStrategy::Warp);
    CHECK(launch::plan_segred(h100, int64_t(1) << 20, 1, false, 512).strategy == RedStrategy::Small);
  }
}

TEST_CASE("grid-stride launches fill the device but not more") {
  DeviceProps h100 = DeviceProps::typical(90);
  CHECK(launch::grid_stride(h100, 100).blocks == 1);
  CHECK(launch::grid_stride(h100, int64_t(1) << 28).blocks == 2 * launch::full_occupancy_blocks(h100, 256));
  CHECK(launch::full_occupancy_blocks(h100, 256) == 132 * 8);
}

TEST_CASE("transpose tiles adapt to low heights and widths") {
  CHECK(launch::transpose_log_tile_h(1000, 1000) == 5);
  CHECK(launch::transpose_log_tile_h(3, 1000) == 2);    // 4 x 256
  CHECK(launch::transpose_log_tile_h(17, 1000) == 5);   // 32 x 32
  CHECK(launch::transpose_log_tile_h(1000, 3) == 8);    // 256 x 4
  CHECK(launch::transpose_log_tile_h(2, 2) == 1);
}

TEST_CASE("pool size classes") {
  CHECK(DevicePool::size_class(1) == 512);
  CHECK(DevicePool::size_class(512) == 512);
  size_t prev = 0;
  for (size_t b = 1; b < (size_t(1) << 30); b = b * 3 / 2 + 7) {
    size_t c = DevicePool::size_class(b);
    CHECK(c >= b);
    CHECK(c >= prev);
    if (b > 512) CHECK(double(c) <= double(b) * 1.125 + 1);
    prev = c;
  }
}
