// The GPU backend without a CUDA driver (ctest runs this with
// THORN_LIBCUDA=/nonexistent/libcuda.so.1, so the result does not depend on
// the machine): availability() names the missing driver, every entry point
// reports it as an error, and nothing crashes.
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "gpu/driver/cuda.hpp"
#include "gpu/driver/device.hpp"
#include "gpu/executor.hpp"
#include "interp/util/error.hpp"

using namespace thorn;

namespace {
int failures = 0;
void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    fmt::print(stderr, "FAIL: {}\n", what);
  }
}
}  // namespace

int main() {
  const char* forced = std::getenv("THORN_LIBCUDA");
  if (!forced || std::string(forced).find("nonexistent") == std::string::npos) {
    fmt::print(stderr, "run with THORN_LIBCUDA=/nonexistent/libcuda.so.1 (ctest sets it)\n");
    return 2;
  }
  std::string why = gpu::availability();
  fmt::print("availability: {}\n", why);
  expect(why.find("no CUDA driver") != std::string::npos, "availability() names the missing driver: " + why);
  expect(why.find("/nonexistent/libcuda.so.1") != std::string::npos, "availability() names the library: " + why);
  expect(!gpu::gpu_available(), "gpu_available() is false");
  expect(gpu::Device::get() == nullptr, "Device::get() is null");
  expect(!gpu::CudaDriver::get().loaded(), "the driver is not loaded");

  std::string reason;
  expect(gpu::GpuBackend::get(&reason) == nullptr, "GpuBackend::get() is null");
  expect(reason == why, "GpuBackend::get() gives availability()'s reason, got: " + reason);

  try {
    gpu::cuda();
    expect(false, "cuda() throws without a driver");
  } catch (const Error& e) {
    expect(e.kind == ErrorKind::Gpu, "cuda() throws a GPU error");
    expect(e.message.find("no CUDA driver") != std::string::npos, "cuda()'s error names the driver: " + e.message);
  }
  try {
    gpu::cu_check(CUresult(CUDA_ERROR_OUT_OF_MEMORY), "cuMemAlloc");
    expect(false, "cu_check throws on failure");
  } catch (const Error& e) {
    // Without the driver there is no cuGetErrorName: the number stands in.
    expect(e.message.rfind("cuMemAlloc failed: ", 0) == 0, "cu_check names the call: " + e.message);
  }
  // Repeated calls give the same answer and do not retry dlopen into a crash.
  expect(gpu::availability() == why, "availability() is stable");

  // The dispatcher's questions work without a device.
  plan::Plan p;
  std::vector<BufferPtr> buffers;
  gpu::OffloadDecision d = gpu::should_offload(p, buffers);
  expect(!d.offload, "an empty plan is not offloaded");

  if (failures == 0) fmt::print("ok\n");
  return failures == 0 ? 0 : 1;
}
