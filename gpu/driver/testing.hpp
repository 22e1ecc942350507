#pragma once
// Test seams: a test may replace the CUDA driver and the kernel compiler
// before the first GPU use, and so run the whole backend (executor, memory
// pool, residency, launch parameters, generated kernels) without a GPU. The
// kernel emulator of tests/gpu/emulator does this: its driver runs kernels
// on the host and its compiler turns kernel sources into host code.
// Nothing in thorn itself installs hooks.
#include <functional>
#include <string>

#include "gpu/driver/cuda.hpp"

namespace thorn::gpu::testing {

struct Hooks {
  const CudaApi* driver = nullptr;  // replaces libcuda
  std::string driver_name;          // shown as the driver's path
  // Replaces NVRTC: returns the "binary" that driver's cuModuleLoadData
  // accepts for a kernel source. Disables the disk cache.
  std::function<std::string(const std::string& source)> compile;
};

void install(Hooks hooks);   // call before anything touches the GPU
const Hooks* installed();    // null when none

}  // namespace thorn::gpu::testing
