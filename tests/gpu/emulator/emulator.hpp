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

#include "gpu/driver/cuda.hpp"

namespace thorn::gpu::emu {

struct Options {
  int sm_count = 4;  // a small device: strategy thresholds scale with it
  std::string work_dir;  // compiled kernels go here (created)
};

// Installs the emulated driver and compiler (gpu/driver/testing.hpp hooks)
// into this process. Call before any GPU use. (install.cpp; not part of the
// driver library.)
void install(const Options& options);

// The emulated driver's entry points, and its "compiler": the path of a
// shared object built from a kernel source (throws std::runtime_error with
// the host compiler's messages). Without install(), options come from the
// environment: THORN_EMU_WORK_DIR (else $THORN_CACHE_DIR/emulator, else a
// temporary directory), THORN_EMU_SMS, THORN_EMU_OPT, THORN_EMU_PRELUDE.
const CudaApi& driver_api();
std::string compile(const std::string& source);
extern Options opts;

// Statistics: kernels compiled, launches, fibers run.
std::string report();

}  // namespace thorn::gpu::emu
