// libthorn-cuda-emu.so: the kernel emulator as a CUDA driver library that
// thorn opens with dlopen (THORN_LIBCUDA=.../libthorn-cuda-emu.so), so the
// real `thorn` binary runs its GPU backend without a GPU.
//
// It exports the driver entry points gpu/driver/cuda.cpp resolves (the _v2
// names where thorn asks for them) and one more, thorn_emu_compile: a
// driver that exports it takes CUDA C source instead of NVRTC's output, and
// thorn hands it every kernel's source (gpu/jit/kernel_cache.cpp). Built
// without the CUDA headers (cuda_types.hpp's own definitions), so these
// definitions cannot clash with cuda.h's declarations.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "tests/gpu/emulator/emulator.hpp"

using thorn::gpu::emu::driver_api;

#define THORN_EMU_API extern "C" __attribute__((visibility("default")))

THORN_EMU_API CUresult cuInit(unsigned f) { return driver_api().cuInit(f); }
THORN_EMU_API CUresult cuDriverGetVersion(int* v) { return driver_api().cuDriverGetVersion(v); }
THORN_EMU_API CUresult cuGetErrorName(CUresult r, const char** s) { return driver_api().cuGetErrorName(r, s); }
THORN_EMU_API CUresult cuGetErrorString(CUresult r, const char** s) { return driver_api().cuGetErrorString(r, s); }
THORN_EMU_API CUresult cuDeviceGetCount(int* n) { return driver_api().cuDeviceGetCount(n); }
THORN_EMU_API CUresult cuDeviceGet(CUdevice* d, int o) { return driver_api().cuDeviceGet(d, o); }
THORN_EMU_API CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice d) {
  return driver_api().cuDeviceGetAttribute(v, a, d);
}
THORN_EMU_API CUresult cuDeviceGetName(char* n, int len, CUdevice d) { return driver_api().cuDeviceGetName(n, len, d); }
THORN_EMU_API CUresult cuDeviceTotalMem_v2(size_t* b, CUdevice d) { return driver_api().cuDeviceTotalMem(b, d); }
THORN_EMU_API CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  return driver_api().cuDevicePrimaryCtxRetain(c, d);
}
THORN_EMU_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { return driver_api().cuDevicePrimaryCtxRelease(d); }
THORN_EMU_API CUresult cuCtxSetCurrent(CUcontext c) { return driver_api().cuCtxSetCurrent(c); }
THORN_EMU_API CUresult cuCtxGetCurrent(CUcontext* c) { return driver_api().cuCtxGetCurrent(c); }
THORN_EMU_API CUresult cuCtxSynchronize() { return driver_api().cuCtxSynchronize(); }
THORN_EMU_API CUresult cuModuleLoadData(CUmodule* m, const void* image) { return driver_api().cuModuleLoadData(m, image); }
THORN_EMU_API CUresult cuModuleUnload(CUmodule m) { return driver_api().cuModuleUnload(m); }
THORN_EMU_API CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  return driver_api().cuModuleGetFunction(f, m, name);
}
THORN_EMU_API CUresult cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction f) {
  return driver_api().cuFuncGetAttribute(v, a, f);
}
THORN_EMU_API CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  return driver_api().cuFuncSetAttribute(f, a, v);
}
THORN_EMU_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, CUfunction f, int block, size_t smem) {
  return driver_api().cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, smem);
}
THORN_EMU_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                      unsigned bz, unsigned smem, CUstream s, void** params, void** extra) {
  return driver_api().cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, s, params, extra);
}
THORN_EMU_API CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) { return driver_api().cuMemAlloc(p, n); }
THORN_EMU_API CUresult cuMemFree_v2(CUdeviceptr p) { return driver_api().cuMemFree(p); }
THORN_EMU_API CUresult cuMemGetInfo_v2(size_t* f, size_t* t) { return driver_api().cuMemGetInfo(f, t); }
THORN_EMU_API CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void* h, size_t n) { return driver_api().cuMemcpyHtoD(d, h, n); }
THORN_EMU_API CUresult cuMemcpyDtoH_v2(void* h, CUdeviceptr d, size_t n) { return driver_api().cuMemcpyDtoH(h, d, n); }
THORN_EMU_API CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { return driver_api().cuMemcpyDtoD(d, s, n); }
THORN_EMU_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void* h, size_t n, CUstream s) {
  return driver_api().cuMemcpyHtoDAsync(d, h, n, s);
}
THORN_EMU_API CUresult cuMemcpyDtoHAsync_v2(void* h, CUdeviceptr d, size_t n, CUstream s) {
  return driver_api().cuMemcpyDtoHAsync(h, d, n, s);
}
THORN_EMU_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr src, size_t n, CUstream s) {
  return driver_api().cuMemcpyDtoDAsync(d, src, n, s);
}
THORN_EMU_API CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
  return driver_api().cuMemsetD8Async(d, v, n, s);
}
THORN_EMU_API CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream s) {
  return driver_api().cuMemsetD32Async(d, v, n, s);
}
THORN_EMU_API CUresult cuStreamCreate(CUstream* s, unsigned f) { return driver_api().cuStreamCreate(s, f); }
THORN_EMU_API CUresult cuStreamDestroy_v2(CUstream s) { return driver_api().cuStreamDestroy(s); }
THORN_EMU_API CUresult cuStreamSynchronize(CUstream s) { return driver_api().cuStreamSynchronize(s); }
THORN_EMU_API CUresult cuEventCreate(CUevent* e, unsigned f) { return driver_api().cuEventCreate(e, f); }
THORN_EMU_API CUresult cuEventDestroy_v2(CUevent e) { return driver_api().cuEventDestroy(e); }
THORN_EMU_API CUresult cuEventRecord(CUevent e, CUstream s) { return driver_api().cuEventRecord(e, s); }
THORN_EMU_API CUresult cuEventSynchronize(CUevent e) { return driver_api().cuEventSynchronize(e); }
THORN_EMU_API CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) { return driver_api().cuEventElapsedTime(ms, a, b); }

// Compiles a kernel's CUDA C source for the emulator. Returns 0 and the
// path of the shared object (the "image" cuModuleLoadData takes) in `out`,
// or 1 and the error message (truncated to `cap`).
THORN_EMU_API int thorn_emu_compile(const char* source, char* out, size_t cap) {
  std::string result;
  int rc = 0;
  try {
    result = thorn::gpu::emu::compile(source);
  } catch (const std::exception& e) {
    result = e.what();
    rc = 1;
  }
  if (cap == 0) return 1;
  if (result.size() >= cap) {
    if (rc == 0) return 1;  // a path that does not fit is no path
    result.resize(cap - 1);
  }
  std::memcpy(out, result.c_str(), result.size() + 1);
  return rc;
}

// The emulator's counters, one line (tests: kernels really ran).
THORN_EMU_API int thorn_emu_report(char* out, size_t cap) {
  std::string r = thorn::gpu::emu::report();
  std::snprintf(out, cap, "%s", r.c_str());
  return 0;
}

namespace {
// THORN_EMU_REPORT=1: the counters on stderr at exit (tests check that
// kernels ran), THORN_EMU_REPORT=FILE: appended to FILE.
struct ReportAtExit {
  ~ReportAtExit() {
    const char* where = std::getenv("THORN_EMU_REPORT");
    if (!where || !*where || std::string(where) == "0") return;
    std::string r = thorn::gpu::emu::report();
    if (std::string(where) == "1") {
      std::fputs(r.c_str(), stderr);
    } else if (FILE* f = std::fopen(where, "a")) {
      std::fputs(r.c_str(), f);
      std::fclose(f);
    }
  }
} report_at_exit;
}  // namespace
