// thorn_gpu_hist_differential: the SegHist suite (support/hist_suite.cpp)
// and a stress run of random launches, on the GPU or, with --emulate, on
// the kernel emulator. Exits 77 (ctest: skipped) without a usable device.
//
//   thorn_gpu_hist_differential [--emulate] [--work-dir DIR] [--stress N] [--filter TEXT] [-v]
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "gpu/executor.hpp"
#include "gpu/jit/kernel_cache.hpp"
#include "interp/util/error.hpp"
#include "tests/gpu/emulator/emulator.hpp"
#include "tests/gpu/support/hist_suite.hpp"

using namespace thorn;
namespace test = thorn::gpu::test;

int main(int argc, char** argv) {
  test::SuiteOptions o;
  bool emulate = false;
  int stress = 300;
  std::string work_dir = THORN_EMU_WORK_DIR;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--emulate") emulate = true;
    else if (a == "--work-dir" && i + 1 < argc) work_dir = argv[++i];
    else if (a == "--stress" && i + 1 < argc) stress = std::atoi(argv[++i]);
    else if (a == "--filter" && i + 1 < argc) o.filter = argv[++i];
    else if (a == "-v") o.verbose = true;
    else {
      fmt::print(stderr, "usage: {} [--emulate] [--work-dir DIR] [--stress N] [--filter TEXT] [-v]\n", argv[0]);
      return 2;
    }
  }
  if (emulate) {
    gpu::emu::Options eo;
    eo.work_dir = work_dir;
    gpu::emu::install(eo);
  }
  std::string why;
  gpu::GpuBackend* gpu = gpu::GpuBackend::get(&why);
  if (!gpu) {
    fmt::print("{}: no usable GPU: {}\n", emulate ? "FAIL" : "SKIP", why);
    return emulate ? 1 : 77;
  }
  fmt::print("device: {}\n", gpu::availability());
  test::Runner run = [gpu](const plan::Plan& p, std::vector<BufferPtr>& b) { gpu->execute(p, b); };
  test::SuiteResult r = test::run_hist_suite(run, gpu->props(), o);
  fmt::print("hist suite: {} cases, {} failures\n", r.cases, r.failures);
  test::SuiteResult s = test::run_hist_stress(run, stress, 42, o);
  fmt::print("stress: {} launches, {} failures\n", s.cases, s.failures);
  // The suite must have run on the (emulated) device: histogram kernels
  // were launched, and not just the host fallback.
  uint64_t hist_launches = 0;
  for (const gpu::jit::KernelStats& k : gpu::jit::KernelCache::get().stats())
    if (k.name.rfind("seghist", 0) == 0) hist_launches += k.launches;
  fmt::print("histogram kernel launches: {}\n", hist_launches);
  if (hist_launches == 0) {
    fmt::print("FAIL: no histogram kernel was launched\n");
    return 1;
  }
  fmt::print("{}", gpu->report());
  if (emulate) fmt::print("{}", gpu::emu::report());
  if (o.verbose) fmt::print("{}", gpu::jit::format_kernel_stats(gpu::jit::KernelCache::get().stats()));
  return r.failures + s.failures == 0 ? 0 : 1;
}
