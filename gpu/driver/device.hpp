#pragma once
// The GPU thorn runs on: its properties and the process-wide context.
//
// thorn uses one device (ordinal $THORN_GPU_DEVICE, default 0), its primary
// context and one non-blocking stream; every kernel and copy goes to that
// stream in order, which is what makes the memory pool's reuse of freed
// blocks safe without events (gpu/memory/pool.hpp).
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu/driver/cuda_types.hpp"

namespace thorn::gpu {

struct DeviceProps {
  std::string name;
  int ordinal = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int shared_per_block = 48 * 1024;        // without opt-in
  int shared_per_block_optin = 48 * 1024;  // with cuFuncSetAttribute
  int shared_per_sm = 64 * 1024;
  int regs_per_block = 65536;
  int regs_per_sm = 65536;
  int l2_bytes = 0;
  int max_grid_x = 0x7fffffff;
  int clock_khz = 0, memory_clock_khz = 0, bus_width_bits = 0;
  size_t memory_bytes = 0;
  int driver_version = 0;  // 13000 for CUDA 13.0

  int arch() const { return cc_major * 10 + cc_minor; }  // 90 for sm_90
  // Theoretical DRAM bandwidth in GB/s (0 when the driver does not say).
  double peak_bandwidth_gbs() const;
  // One line: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB, ...)".
  std::string describe() const;
  // A multi-line listing of every property, for :gpu and the benchmarks.
  std::string details() const;
  // Properties of a typical device of the given architecture, for code paths
  // (tests, launch-parameter unit tests) that run without one.
  static DeviceProps typical(int arch);
};

class Device {
 public:
  // The device, initialised on first call; null when the GPU is unusable
  // (availability() says why). Thread-safe.
  static Device* get();

  const DeviceProps& props() const { return props_; }
  CUstream stream() const { return stream_; }
  // Makes the context current on the calling thread (cheap; call at every
  // entry point that may run on a new thread).
  void make_current() const;
  void synchronize() const;  // waits for the stream; throws on a kernel fault

 private:
  Device() = default;
  DeviceProps props_;
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  CUstream stream_ = nullptr;
  friend struct DeviceInit;
};

// Why the GPU cannot be used, or a description of the device when it can,
// in one line: "no CUDA driver (libcuda.so.1 not found)", "no device
// (cuInit: CUDA_ERROR_NO_DEVICE)", "disabled by THORN_GPU=0",
// "NVRTC not found (...)", or DeviceProps::describe().
std::string availability();
bool gpu_available();

}  // namespace thorn::gpu
