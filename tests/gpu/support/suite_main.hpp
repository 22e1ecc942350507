#pragma once
// The main of a kernel suite's program (thorn_gpu_scan_differential,
// thorn_gpu_hist_differential): a suite and a stress run of random launches,
// on the GPU or, with --emulate, on the kernel emulator. Exits 77 (ctest:
// skipped) without a usable device, 2 on a bad command line.
//
//   PROGRAM [--emulate] [--work-dir DIR] [--stress N] [--filter TEXT] [-v]
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>

#include <fmt/format.h>

#include "gpu/executor.hpp"
#include "gpu/jit/kernel_cache.hpp"
#include "tests/gpu/emulator/emulator.hpp"
#include "tests/gpu/support/suites.hpp"

namespace thorn::gpu::test {

struct SuiteProgram {
  std::string name;  // "scan": printed as "scan suite: ..."
  std::function<SuiteResult(const Runner&, const DeviceProps&, const SuiteOptions&)> suite;
  std::function<SuiteResult(const Runner&, int launches, uint64_t seed, const SuiteOptions&)> stress;
  // When set, kernels whose names start with it must have been launched
  // (the suite ran on the device, not only on the host fallback); `kernels`
  // names them in the messages ("histogram").
  std::string required_kernel_prefix;
  std::string kernels;
};

// `default_work_dir`: the emulator's build directory (THORN_EMU_WORK_DIR).
inline int suite_main(int argc, char** argv, const SuiteProgram& p, const std::string& default_work_dir) {
  SuiteOptions o;
  bool emulate = false;
  int stress = 300;
  std::string work_dir = default_work_dir;
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
    emu::Options eo;
    eo.work_dir = work_dir;
    emu::install(eo);
  }
  std::string why;
  GpuBackend* gpu = GpuBackend::get(&why);
  if (!gpu) {
    fmt::print("{}: no usable GPU: {}\n", emulate ? "FAIL" : "SKIP", why);
    return emulate ? 1 : 77;
  }
  fmt::print("device: {}\n", availability());
  Runner run = [gpu](const plan::Plan& plan, std::vector<BufferPtr>& b) { gpu->execute(plan, b); };
  SuiteResult r = p.suite(run, gpu->props(), o);
  fmt::print("{} suite: {} cases, {} failures\n", p.name, r.cases, r.failures);
  SuiteResult s = p.stress(run, stress, 42, o);
  fmt::print("stress: {} launches, {} failures\n", s.cases, s.failures);
  if (!p.required_kernel_prefix.empty()) {
    uint64_t launches = 0;
    for (const jit::KernelStats& k : jit::KernelCache::get().stats())
      if (k.name.rfind(p.required_kernel_prefix, 0) == 0) launches += k.launches;
    fmt::print("{} kernel launches: {}\n", p.kernels, launches);
    if (launches == 0) {
      fmt::print("FAIL: no {} kernel was launched\n", p.kernels);
      return 1;
    }
  }
  fmt::print("{}", gpu->report());
  if (emulate) fmt::print("{}", emu::report());
  if (o.verbose) fmt::print("{}", jit::format_kernel_stats(jit::KernelCache::get().stats()));
  return r.failures + s.failures == 0 ? 0 : 1;
}

}  // namespace thorn::gpu::test
