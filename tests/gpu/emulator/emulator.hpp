#pragma once
// A GPU emulator for tests on machines without a device: a CUDA driver
// (gpu/driver/testing.hpp hooks) that compiles each generated kernel source
// with the host C++ compiler into a shared object, and runs its kernels on
// the host with one fiber per GPU thread: __syncthreads, __syncwarp and warp
// shuffles are fiber barriers, blocks run one after another. Device memory
// is host memory. Slow, but it runs the real executor, memory pool,
// residency, launch parameters and generated kernels, so their logic is
// tested in CI, where no GPU exists.
#include <string>

namespace thorn::gpu::emu {

struct Options {
  int sm_count = 4;  // a small device: strategy thresholds scale with it
  std::string work_dir;  // compiled kernels go here (created)
};

// Installs the emulated driver and compiler. Call before any GPU use.
void install(const Options& options);

// Statistics: kernels compiled, launches, fibers run.
std::string report();

}  // namespace thorn::gpu::emu
