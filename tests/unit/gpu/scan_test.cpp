// The scan skeleton's launch parameters (notes-scan.md §2, §7.3) and
// generated text, without a device.
#include <doctest/doctest.h>

#include <cstdlib>

#include "gpu/codegen/skeleton.hpp"
#include "gpu/launch/params.hpp"
#include "tests/gpu/support/scan_suite.hpp"

using namespace thorn;
using namespace thorn::gpu;

namespace {

// The m of a tuple of `k` values of type t on a device with `k_mem` bytes
// of shared memory and 64 registers per thread of a 1024-thread block.
int m_for(Prim t, int k, int k_mem) {
  DeviceProps dev = DeviceProps::typical(90);
  dev.max_threads_per_block = 1024;
  dev.shared_per_block = k_mem * 1024;
  dev.regs_per_block = 64 * 1024;
  // Mat2 is a 4-tuple, Mss too; Sum a single value; Lssp six i32.
  plan::Step st = k == 1   ? test::segscan(t, test::ScanOp::Sum, 1, 100)
                  : k == 4 ? test::segscan(t, test::ScanOp::Mat2, 1, 100)
                           : test::segscan(Prim::I32, test::ScanOp::Lssp, 1, 100);
  return launch::plan_segscan(dev, st, 1000).m;
}

}  // namespace

TEST_CASE("scan: elements per thread from the device (notes-scan.md §7.3)") {
  unsetenv("THORN_SCAN_M");
  unsetenv("THORN_SCAN_BLOCK");
  unsetenv("THORN_SCAN_AGGREGATES_ONLY");
  // GTX 780 Ti: k_mem 36 -> 12 / 12 / 9 / 4; RTX 2080 Ti: k_mem 48 -> 12 / 12 / 12 / 6.
  CHECK(m_for(Prim::I8, 1, 36) == 12);
  CHECK(m_for(Prim::I16, 1, 36) == 12);
  CHECK(m_for(Prim::I32, 1, 36) == 9);
  CHECK(m_for(Prim::I64, 1, 36) == 4);
  CHECK(m_for(Prim::I8, 1, 48) == 12);
  CHECK(m_for(Prim::I16, 1, 48) == 12);
  CHECK(m_for(Prim::I32, 1, 48) == 12);
  CHECK(m_for(Prim::I64, 1, 48) == 6);
  CHECK(m_for(Prim::I64, 4, 48) == 2);  // 4 x i64
  CHECK(m_for(Prim::I32, 6, 48) == 3);  // 6 x i32
  CHECK(m_for(Prim::I64, 4, 1) >= 1);   // never below 1
}

TEST_CASE("scan: launch shape and overrides") {
  DeviceProps h100 = DeviceProps::typical(90);
  plan::Step st = test::segscan(Prim::I32, test::ScanOp::Sum, 1, 100);
  unsetenv("THORN_SCAN_M");
  unsetenv("THORN_SCAN_BLOCK");
  auto L = launch::plan_segscan(h100, st, 1000000);
  CHECK(L.m == 12);
  CHECK(L.block == launch::kBlock);
  CHECK(L.tile == 12 * launch::kBlock);
  CHECK(L.grid.blocks == (1000000 + L.tile - 1) / L.tile);
  CHECK(L.grid.dynamic_smem == cg::segscan_shared_bytes(st, L.m, L.block));
  CHECK(L.late_prefix);
  setenv("THORN_SCAN_M", "3", 1);
  setenv("THORN_SCAN_BLOCK", "40", 1);  // rounded down to whole warps
  auto F = launch::plan_segscan(h100, st, 1000);
  unsetenv("THORN_SCAN_M");
  unsetenv("THORN_SCAN_BLOCK");
  CHECK(F.m == 3);
  CHECK(F.block == 32);
  // A transposition buffer that would not fit 48 KiB makes m smaller.
  setenv("THORN_SCAN_M", "64", 1);
  setenv("THORN_SCAN_BLOCK", "1024", 1);
  auto big = launch::plan_segscan(h100, test::segscan(Prim::I64, test::ScanOp::Sum, 1, 100), 1000);
  unsetenv("THORN_SCAN_M");
  unsetenv("THORN_SCAN_BLOCK");
  CHECK(big.m >= 1);
  CHECK(cg::segscan_shared_bytes(st, big.m, big.block) <= size_t(h100.shared_per_block));
}

TEST_CASE("scan: the kernel text depends on m, the block and the test mode only") {
  plan::Step a = test::segscan(Prim::F32, test::ScanOp::Mat2, 3, 1000);
  plan::Step b = test::segscan(Prim::F32, test::ScanOp::Mat2, 70, 5);
  cg::CodegenOptions o;
  CHECK(cg::gen_segscan(a, 5, o).source == cg::gen_segscan(b, 5, o).source);
  CHECK(cg::gen_segscan(a, 5, o).source != cg::gen_segscan(a, 6, o).source);
  CHECK(cg::gen_segscan(a, 5, o).source != cg::gen_segscan(a, 5, o, false).source);
  CHECK(cg::gen_segscan(a, 5, o).entries == std::vector<std::string>{"thorn_segscan"});
}
