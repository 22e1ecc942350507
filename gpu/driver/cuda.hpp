#pragma once
// The CUDA driver API, loaded with dlopen at first use.
//
// Every entry point thorn calls is resolved once into CudaApi; calls go
// through CU_CALL, which turns a failure into
//   thorn::Error(ErrorKind::Gpu, "cuLaunchKernel failed: CUDA_ERROR_... (text)").
// Library search: $THORN_LIBCUDA, then libcuda.so.1 and libcuda.so through the
// dynamic loader's path.
#include <cstddef>
#include <string>

#include "gpu/driver/cuda_types.hpp"

namespace thorn::gpu {

struct CudaApi {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext*) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule*, const void*) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuFuncGetAttribute)(int*, CUfunction_attribute, CUfunction) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, CUfunction_attribute, int) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, CUfunction, int, size_t) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemGetInfo)(size_t*, size_t*) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void*, size_t, CUstream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream) = nullptr;
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned int, size_t, CUstream) = nullptr;
  CUresult (*cuStreamCreate)(CUstream*, unsigned) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
};

// The loaded driver library. `loaded()` false means libcuda could not be
// opened or lacks an entry point; `why()` then says which, in one line.
class CudaDriver {
 public:
  static const CudaDriver& get();  // loads on first call; thread-safe

  bool loaded() const { return loaded_; }
  const std::string& why() const { return why_; }
  const std::string& path() const { return path_; }
  const CudaApi& api() const { return api_; }

  // "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; works with a partial table.
  std::string error_text(CUresult r) const;

  // A driver that runs CUDA C source itself instead of NVRTC's output (the
  // kernel emulator, libthorn-cuda-emu.so) exports
  //   int thorn_emu_compile(const char* source, char* out, size_t cap)
  // which writes the image for cuModuleLoadData (0) or an error message (1)
  // into out. Null for a real driver. gpu/jit/kernel_cache.cpp uses it.
  using SourceCompiler = int (*)(const char* source, char* out, size_t cap);
  SourceCompiler source_compiler() const { return source_compiler_; }
  // Whether this is the emulator (hooks or the driver library).
  bool emulated() const { return emulated_; }

 private:
  CudaDriver();
  bool loaded_ = false;
  bool emulated_ = false;
  std::string why_, path_;
  CudaApi api_;
  SourceCompiler source_compiler_ = nullptr;
};

// The loaded API table; throws a Gpu error when the driver is unusable.
const CudaApi& cuda();

// Throws Error(Gpu, "<call> failed: <CUDA_ERROR_NAME (text)>") unless r is success.
void cu_check(CUresult r, const char* call);

}  // namespace thorn::gpu

// CU_CALL(cuMemAlloc, &ptr, bytes): calls through the table and checks.
#define CU_CALL(fn, ...) ::thorn::gpu::cu_check(::thorn::gpu::cuda().fn(__VA_ARGS__), #fn)
