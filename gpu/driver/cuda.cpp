#include "gpu/driver/cuda.hpp"

#include <fmt/format.h>

#include "gpu/driver/dynlib.hpp"
#include "gpu/driver/testing.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu {

namespace {

// Tries each name in turn: versioned entry points (_v2) first, since the
// unversioned symbols keep their old ABI for compatibility.
template <class Fn>
bool bind_any(const DynLib& lib, Fn*& out, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (lib.bind(out, n)) return true;
  return false;
}

}  // namespace

CudaDriver::CudaDriver() {
  if (const testing::Hooks* h = testing::installed(); h && h->driver) {
    api_ = *h->driver;
    path_ = h->driver_name;
    loaded_ = true;
    emulated_ = true;
    return;
  }
  std::vector<std::string> candidates;
  std::string forced = env_or_empty("THORN_LIBCUDA");
  if (!forced.empty()) {
    candidates.push_back(forced);
  } else {
    candidates = {"libcuda.so.1", "libcuda.so"};
  }
  std::string errors;
  DynLib lib = DynLib::open_first(candidates, &errors);
  if (!lib.is_open()) {
    why_ = fmt::format("no CUDA driver ({} not found)", forced.empty() ? "libcuda.so.1" : forced);
    return;
  }
  path_ = lib.path();
  std::string missing;
#define BIND(field, ...)                                   \
  if (!bind_any(lib, api_.field, {__VA_ARGS__})) {         \
    if (!missing.empty()) missing += ", ";                 \
    missing += #field;                                     \
  }
  BIND(cuInit, "cuInit");
  BIND(cuDriverGetVersion, "cuDriverGetVersion");
  BIND(cuGetErrorName, "cuGetErrorName");
  BIND(cuGetErrorString, "cuGetErrorString");
  BIND(cuDeviceGetCount, "cuDeviceGetCount");
  BIND(cuDeviceGet, "cuDeviceGet");
  BIND(cuDeviceGetAttribute, "cuDeviceGetAttribute");
  BIND(cuDeviceGetName, "cuDeviceGetName");
  BIND(cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  BIND(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  BIND(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
  BIND(cuCtxSetCurrent, "cuCtxSetCurrent");
  BIND(cuCtxGetCurrent, "cuCtxGetCurrent");
  BIND(cuCtxSynchronize, "cuCtxSynchronize");
  BIND(cuModuleLoadData, "cuModuleLoadData");
  BIND(cuModuleUnload, "cuModuleUnload");
  BIND(cuModuleGetFunction, "cuModuleGetFunction");
  BIND(cuFuncGetAttribute, "cuFuncGetAttribute");
  BIND(cuFuncSetAttribute, "cuFuncSetAttribute");
  BIND(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  BIND(cuLaunchKernel, "cuLaunchKernel");
  BIND(cuMemAlloc, "cuMemAlloc_v2");
  BIND(cuMemFree, "cuMemFree_v2");
  BIND(cuMemGetInfo, "cuMemGetInfo_v2");
  BIND(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  BIND(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  BIND(cuMemcpyDtoD, "cuMemcpyDtoD_v2");
  BIND(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  BIND(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  BIND(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  BIND(cuMemsetD8Async, "cuMemsetD8Async");
  BIND(cuMemsetD32Async, "cuMemsetD32Async");
  BIND(cuStreamCreate, "cuStreamCreate");
  BIND(cuStreamDestroy, "cuStreamDestroy_v2");
  BIND(cuStreamSynchronize, "cuStreamSynchronize");
  BIND(cuEventCreate, "cuEventCreate");
  BIND(cuEventDestroy, "cuEventDestroy_v2");
  BIND(cuEventRecord, "cuEventRecord");
  BIND(cuEventSynchronize, "cuEventSynchronize");
  BIND(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
#undef BIND
  if (!missing.empty()) {
    why_ = fmt::format("CUDA driver {} lacks {}", path_, missing);
    return;
  }
  lib.bind(source_compiler_, "thorn_emu_compile");  // optional: the emulator's
  emulated_ = source_compiler_ != nullptr;
  loaded_ = true;
}

const CudaDriver& CudaDriver::get() {
  static const CudaDriver driver;  // process-wide, loaded once
  return driver;
}

std::string CudaDriver::error_text(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api_.cuGetErrorName) api_.cuGetErrorName(r, &name);
  if (api_.cuGetErrorString) api_.cuGetErrorString(r, &text);
  std::string out = name ? name : fmt::format("CUDA error {}", int(r));
  if (text) out += fmt::format(" ({})", text);
  return out;
}

const CudaApi& cuda() {
  const CudaDriver& d = CudaDriver::get();
  if (!d.loaded()) throw Error(ErrorKind::Gpu, d.why());
  return d.api();
}

void cu_check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  throw Error(ErrorKind::Gpu, fmt::format("{} failed: {}", call, CudaDriver::get().error_text(r)));
}

}  // namespace thorn::gpu
