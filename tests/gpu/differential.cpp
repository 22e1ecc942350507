// thorn_gpu_differential: runs the differential suites (support/suites.cpp)
// on the GPU and compares every result with a sequential host computation.
// Exits 77 (ctest: skipped) when no usable device exists.
//
//   thorn_gpu_differential [--fresh-cache DIR | --expect-warm DIR] [--log-n N] [--filter TEXT] [-v]
//
// --fresh-cache DIR empties DIR and uses it as the kernel cache (every
// kernel compiled by NVRTC); --expect-warm DIR reuses it and fails unless
// every kernel came from the disk cache.
#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "gpu/executor.hpp"
#include "gpu/jit/kernel_cache.hpp"
#include "interp/util/error.hpp"
#include "tests/gpu/support/suites.hpp"

using namespace thorn;
namespace test = thorn::gpu::test;

int main(int argc, char** argv) {
  std::string fresh, warm;
  test::SuiteOptions o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--fresh-cache" && i + 1 < argc) fresh = argv[++i];
    else if (a == "--expect-warm" && i + 1 < argc) warm = argv[++i];
    else if (a == "--log-n" && i + 1 < argc) o.log_n = std::atoi(argv[++i]);
    else if (a == "--filter" && i + 1 < argc) o.filter = argv[++i];
    else if (a == "-v") o.verbose = true;
    else {
      fmt::print(stderr, "usage: {} [--fresh-cache DIR | --expect-warm DIR] [--log-n N] [--filter TEXT] [-v]\n",
                 argv[0]);
      return 2;
    }
  }
  // The cache location must be set before the kernel cache is first used.
  if (!fresh.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(fresh, ec);
    setenv("THORN_CACHE_DIR", fresh.c_str(), 1);
  } else if (!warm.empty()) {
    setenv("THORN_CACHE_DIR", warm.c_str(), 1);
  }
  std::string why;
  gpu::GpuBackend* gpu = gpu::GpuBackend::get(&why);
  if (!gpu) {
    fmt::print("SKIP: no usable GPU: {}\n", why);
    return 77;
  }
  fmt::print("device: {}\n", gpu::availability());
  test::Runner run = [gpu](const plan::Plan& p, std::vector<BufferPtr>& b) { gpu->execute(p, b); };

  test::SuiteResult total;
  for (auto suite : {&test::run_segred_suite, &test::run_map_scatter_suite, &test::run_error_suite}) {
    test::SuiteResult r = suite(run, o);
    total.cases += r.cases;
    total.failures += r.failures;
  }
  test::SuiteResult tr = test::run_transpose_suite(
      [gpu](const BufferPtr& in, int64_t off, int64_t b, int64_t r, int64_t c) { return gpu->transpose(in, off, b, r, c); },
      o);
  total.cases += tr.cases;
  total.failures += tr.failures;
  fmt::print("{} cases, {} failures\n", total.cases, total.failures);

  std::vector<gpu::jit::KernelStats> stats = gpu::jit::KernelCache::get().stats();
  // Totals over the run: the memory cache drops entries past its bound.
  gpu::jit::KernelTotals totals = gpu::jit::KernelCache::get().totals();
  uint64_t compiles = totals.compiles, disk_hits = totals.disk_hits;
  fmt::print("kernels: {} distinct, {} compiled by NVRTC, {} loaded from the disk cache\n", totals.entries, compiles,
             disk_hits);
  if (o.verbose) fmt::print("{}", gpu::jit::format_kernel_stats(stats));
  if (!warm.empty() && (compiles != 0 || disk_hits == 0)) {
    fmt::print(stderr, "FAIL: expected a warm cache in {}: {} compilations, {} disk hits\n", warm, compiles,
               disk_hits);
    return 1;
  }
  fmt::print("{}", gpu->report());
  return total.failures == 0 ? 0 : 1;
}
