// thorn_gpu_emulated: the differential suites of tests/gpu run through the
// whole GPU backend on the kernel emulator (tests/gpu/emulator): generated
// kernels compiled for the host and run with one fiber per GPU thread. No
// GPU needed, so CI exercises the kernels' logic, the launch parameters,
// the executor, the memory pool and residency.
//
//   thorn_gpu_emulated [--log-n N] [--filter TEXT] [--no-strategies] [-v]
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "gpu/executor.hpp"
#include "gpu/jit/kernel_cache.hpp"
#include "interp/util/error.hpp"
#include "tests/gpu/emulator/emulator.hpp"
#include "tests/gpu/support/suites.hpp"

using namespace thorn;
namespace test = thorn::gpu::test;

int main(int argc, char** argv) {
  test::SuiteOptions o;
  o.log_n = 12;
  o.many = 40;
  std::string work_dir = THORN_EMU_WORK_DIR;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--log-n" && i + 1 < argc) o.log_n = std::atoi(argv[++i]);
    else if (a == "--filter" && i + 1 < argc) o.filter = argv[++i];
    else if (a == "--no-strategies") o.all_strategies = false;
    else if (a == "--work-dir" && i + 1 < argc) work_dir = argv[++i];
    else if (a == "-v") o.verbose = true;
    else {
      fmt::print(stderr, "usage: {} [--log-n N] [--filter TEXT] [--no-strategies] [--work-dir DIR] [-v]\n", argv[0]);
      return 2;
    }
  }
  gpu::emu::Options eo;
  eo.work_dir = work_dir;
  gpu::emu::install(eo);
  std::string why;
  gpu::GpuBackend* gpu = gpu::GpuBackend::get(&why);
  if (!gpu) {
    fmt::print(stderr, "FAIL: the emulated GPU is unusable: {}\n", why);
    return 1;
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
  fmt::print("{}{}", gpu->report(), gpu::emu::report());
  if (o.verbose) fmt::print("{}", gpu::jit::format_kernel_stats(gpu::jit::KernelCache::get().stats()));
  return total.failures == 0 ? 0 : 1;
}
