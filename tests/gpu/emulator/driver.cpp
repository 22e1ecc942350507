// The emulated CUDA driver and kernel compiler (emulator.hpp).
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <unordered_map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <unistd.h>

#include "gpu/jit/hash.hpp"
#include "tests/gpu/emulator/emulator.hpp"
#include "tests/gpu/emulator/kernel_prelude_api.h"
#include "tests/gpu/emulator/runtime.hpp"

#ifndef THORN_EMU_CXX
#define THORN_EMU_CXX "c++"
#endif
#ifndef THORN_EMU_PRELUDE
#error "THORN_EMU_PRELUDE must name tests/gpu/emulator/kernel_prelude.h"
#endif

namespace thorn::gpu::emu {

Options opts;
int kernels_compiled = 0;

namespace {

std::once_flag options_once;

// Options of the driver library (libthorn-cuda-emu.so), which nobody calls
// install() on: from the environment, on first use.
void ensure_options() {
  std::call_once(options_once, [] {
    if (!opts.work_dir.empty()) return;  // install() set them
    auto env = [](const char* n) {
      const char* v = std::getenv(n);
      return std::string(v ? v : "");
    };
    if (std::string sms = env("THORN_EMU_SMS"); !sms.empty()) opts.sm_count = std::max(1, std::atoi(sms.c_str()));
    opts.work_dir = env("THORN_EMU_WORK_DIR");
    if (opts.work_dir.empty()) {
      std::string cache = env("THORN_CACHE_DIR");
      if (!cache.empty() && cache != "off") opts.work_dir = cache + "/emulator";
    }
    if (opts.work_dir.empty())
      opts.work_dir = std::filesystem::temp_directory_path().string() + "/thorn-emulator-" + std::to_string(getuid());
  });
}

struct EmuModule {
  void* handle = nullptr;
};
struct EmuFunction {
  EntryFn entry = nullptr;
  std::string name;
};
// Runs per kernel entry (the report lists them: tests check that a given
// skeleton's kernels ran on the device, not on the host).
std::mutex entry_mu;
std::map<std::string, uint64_t> entry_runs;

// ---------------------------------------------------------------- compiling

std::string trim(std::string s) {
  size_t a = s.find_first_not_of(" \t\n"), b = s.find_last_not_of(" \t\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// One wrapper per kernel entry, `thorn_emu_entry_NAME(void** args)`, which
// unpacks cuLaunchKernel's argument array into the kernel's parameters.
std::string wrappers(const std::string& src) {
  std::string out;
  const std::string marker = "extern \"C\" __global__ void";
  for (size_t at = src.find(marker); at != std::string::npos; at = src.find(marker, at + 1)) {
    size_t open = src.find('(', src.find(')', at) + 1);  // past __launch_bounds__(N)
    size_t name_end = open;
    size_t name_start = src.rfind(' ', name_end) + 1;
    std::string name = src.substr(name_start, name_end - name_start);
    size_t close = src.find(')', open);
    std::string params = src.substr(open + 1, close - open - 1);
    std::vector<std::string> types;
    size_t p = 0;
    while (p <= params.size()) {
      size_t comma = params.find(',', p);
      if (comma == std::string::npos) comma = params.size();
      std::string param = trim(params.substr(p, comma - p));
      for (size_t r; (r = param.find("__restrict__")) != std::string::npos;) param.erase(r, 12);
      size_t last = param.find_last_of(" *");
      types.push_back(trim(param.substr(0, last + 1)));
      p = comma + 1;
    }
    out += fmt::format("extern \"C\" void thorn_emu_entry_{}(void** a) {{\n  {}(", name, name);
    for (size_t i = 0; i < types.size(); ++i) out += fmt::format("{}*({}*)a[{}]", i ? ", " : "", types[i], i);
    out += ");\n}\n";
  }
  return out;
}

std::string prelude_path() {
  const char* p = std::getenv("THORN_EMU_PRELUDE");
  return p && *p ? p : THORN_EMU_PRELUDE;
}

}  // namespace

// ---------------------------------------------------------------- injected faults
//
// THORN_EMU_FAULT=KIND@N[,KIND@N...] makes the Nth event of a kind fail, to
// test thorn's fault paths without a faulty GPU:
//   illegal_address@N  the Nth launch fails with CUDA_ERROR_ILLEGAL_ADDRESS
//   timeout@N          the Nth launch fails with CUDA_ERROR_LAUNCH_TIMEOUT
//   oom@N              the Nth allocation fails with CUDA_ERROR_OUT_OF_MEMORY
//   load@N             the Nth module load fails with CUDA_ERROR_NO_BINARY_FOR_GPU
//                      (a driver that cannot use the image: thorn retries with PTX)
//   compile@N          the Nth kernel compilation fails (as NVRTC would)
// The launch faults are sticky, as on a GPU: every later call that touches
// the context (copies included) fails with the same error.
namespace {

struct Fault {
  std::string kind;
  long at = 0;
};
std::atomic<long> launches_seen{0}, allocs_seen{0}, compiles_seen{0}, loads_seen{0};
std::atomic<int> sticky{0};

const std::vector<Fault>& faults() {
  static const std::vector<Fault> fs = [] {
    std::vector<Fault> out;
    const char* v = std::getenv("THORN_EMU_FAULT");
    std::string s = v ? v : "";
    for (size_t pos = 0; pos < s.size();) {
      size_t end = s.find(',', pos);
      std::string item = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
      size_t at = item.find('@');
      if (at != std::string::npos) out.push_back({item.substr(0, at), std::atol(item.c_str() + at + 1)});
      if (end == std::string::npos) break;
      pos = end + 1;
    }
    return out;
  }();
  return fs;
}

// The fault injected at event number n (1-based) of these kinds, or "".
std::string injected(std::initializer_list<const char*> kinds, long n) {
  for (const Fault& f : faults())
    for (const char* k : kinds)
      if (f.kind == k && f.at == n) return f.kind;
  return "";
}

}  // namespace

std::string compile(const std::string& source) {
  ensure_options();
  if (!injected({"compile"}, ++compiles_seen).empty())
    throw std::runtime_error("emulator: injected compile failure (THORN_EMU_FAULT)");
  std::string src = source;
  const std::string dyn = "extern __shared__ __align__(16) unsigned char thorn_dyn_smem[];";
  for (size_t at; (at = src.find(dyn)) != std::string::npos;)
    src.replace(at, dyn.size(), "unsigned char* thorn_dyn_smem = thorn_emu_dyn_smem();");
  src += "\n// emulator entry points\n" + wrappers(source);
  const char* opt = std::getenv("THORN_EMU_OPT");  // -O level for the host compiler; default 1
  std::string level = opt && *opt ? opt : "1";
  std::string id = jit::hex64(jit::hash64(src + "\n-O" + level, 11));
  std::filesystem::create_directories(opts.work_dir);
  std::string base = opts.work_dir + "/k" + id;
  if (!std::filesystem::exists(base + ".so")) {
    // Private names until the final rename: processes sharing the directory
    // (ctest -j) may compile the same kernel at once.
    std::string tmp = fmt::format("{}.{}", base, getpid());
    std::ofstream(tmp + ".cpp") << src;
    std::string cmd = fmt::format("{} -std=c++17 -O{} -fPIC -shared -w -DTHORN_EMULATE -include {} -o {}.tmp.so {}.cpp 2> {}.log",
                                  THORN_EMU_CXX, level, prelude_path(), tmp, tmp, tmp);
    if (std::system(cmd.c_str()) != 0) {
      std::ifstream log(tmp + ".log");
      std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
      throw std::runtime_error(fmt::format("emulator: host compile of {}.cpp failed:\n{}", tmp, text.substr(0, 4000)));
    }
    std::filesystem::rename(tmp + ".tmp.so", base + ".so");
    std::error_code ec;
    std::filesystem::remove(tmp + ".cpp", ec);
    std::filesystem::remove(tmp + ".log", ec);
    ++kernels_compiled;
  }
  return base + ".so";
}

namespace {

// ---------------------------------------------------------------- the driver


CUresult ok() { return CUDA_SUCCESS; }
// After a sticky fault: the error every call touching the context returns.
#define THORN_EMU_STICKY() \
  do {                      \
    if (int s = sticky.load()) return CUresult(s); \
  } while (0)

CUresult e_init(unsigned) {
  ensure_options();
  return ok();
}
CUresult e_driver_version(int* v) { *v = 13000; return ok(); }
CUresult e_error_name(CUresult r, const char** s) {
  static std::map<int, const char*> names = {{0, "CUDA_SUCCESS"}, {1, "CUDA_ERROR_INVALID_VALUE"},
                                              {2, "CUDA_ERROR_OUT_OF_MEMORY"}, {200, "CUDA_ERROR_INVALID_IMAGE"},
                                              {500, "CUDA_ERROR_NOT_FOUND"}, {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
                                              {702, "CUDA_ERROR_LAUNCH_TIMEOUT"}, {719, "CUDA_ERROR_LAUNCH_FAILED"}};
  auto it = names.find(int(r));
  *s = it == names.end() ? "CUDA_ERROR_UNKNOWN" : it->second;
  return ok();
}
CUresult e_error_string(CUresult r, const char** s) {
  *s = "emulated driver";
  return ok();
}
CUresult e_device_count(int* n) { *n = 1; return ok(); }
CUresult e_device_get(CUdevice* d, int) { *d = 0; return ok(); }
CUresult e_device_attribute(int* v, CUdevice_attribute a, CUdevice) {
  switch (int(a)) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = opts.sm_count; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: *v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 48 * 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 227 * 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *v = 228 * 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: *v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 50 << 20; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 0x7fffffff; break;
    default: *v = 0; break;
  }
  return ok();
}
CUresult e_device_name(char* name, int len, CUdevice) {
  std::snprintf(name, size_t(len), "thorn emulator (%d SMs)", opts.sm_count);
  return ok();
}
CUresult e_total_mem(size_t* b, CUdevice) { *b = size_t(4) << 30; return ok(); }
CUcontext the_context = reinterpret_cast<CUcontext>(uintptr_t(0x1000));
CUcontext current = nullptr;
CUresult e_ctx_retain(CUcontext* c, CUdevice) { *c = the_context; return ok(); }
CUresult e_ctx_release(CUdevice) { return ok(); }
CUresult e_ctx_set(CUcontext c) { current = c; return ok(); }
CUresult e_ctx_get(CUcontext* c) { *c = current; return ok(); }
CUresult e_ctx_sync() { THORN_EMU_STICKY(); return ok(); }
CUresult e_module_load(CUmodule* m, const void* image) {
  THORN_EMU_STICKY();
  if (!injected({"load"}, ++loads_seen).empty()) return CUresult(209);  // CUDA_ERROR_NO_BINARY_FOR_GPU
#if defined(THORN_EMU_SHARED)
  // The kernels' shared objects call the fiber runtime (kernel_prelude_api.h),
  // which lives in this library. thorn opened it RTLD_LOCAL: make its symbols
  // global once, so the dynamic loader resolves the kernels' references here.
  static bool promoted = [] {
    Dl_info info;
    if (!dladdr(reinterpret_cast<void*>(&thorn_emu_syncthreads), &info) || !info.dli_fname) return false;
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) != nullptr;
  }();
  if (!promoted) {
    std::fprintf(stderr, "emulator: cannot make the fiber runtime visible to kernels: %s\n", dlerror());
    return CUresult(200);
  }
#endif
  const char* path = static_cast<const char*>(image);
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    std::fprintf(stderr, "emulator: dlopen %s: %s\n", path, dlerror());
    return CUresult(200);
  }
  *m = reinterpret_cast<CUmodule>(new EmuModule{h});
  return ok();
}
CUresult e_module_unload(CUmodule) { return ok(); }
CUresult e_module_function(CUfunction* f, CUmodule m, const char* name) {
  auto* mod = reinterpret_cast<EmuModule*>(m);
  void* sym = dlsym(mod->handle, (std::string("thorn_emu_entry_") + name).c_str());
  if (!sym) return CUresult(500);
  *f = reinterpret_cast<CUfunction>(new EmuFunction{reinterpret_cast<EntryFn>(sym), name});
  return ok();
}
CUresult e_func_attribute(int* v, CUfunction_attribute a, CUfunction) {
  switch (int(a)) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = 32; break;
    default: *v = 0; break;
  }
  return ok();
}
CUresult e_func_set_attribute(CUfunction, CUfunction_attribute, int) { return ok(); }
CUresult e_occupancy(int* n, CUfunction, int block, size_t) { *n = 2048 / block; return ok(); }
CUresult e_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                  unsigned smem, CUstream, void** params, void**) {
  THORN_EMU_STICKY();
  if (gy != 1 || gz != 1 || by != 1 || bz != 1 || bx % 32 != 0 || bx > 1024) return CUresult(1);
  std::string fault = injected({"illegal_address", "timeout"}, ++launches_seen);
  if (!fault.empty()) {
    sticky = fault == "timeout" ? 702 : 700;
    return CUresult(sticky.load());
  }
  static std::mutex launch_mu;  // one fiber scheduler: one launch at a time
  std::lock_guard<std::mutex> lock(launch_mu);
  try {
    auto* fn = reinterpret_cast<EmuFunction*>(f);
    {
      std::lock_guard<std::mutex> entries(entry_mu);
      ++entry_runs[fn->name];
    }
    run_grid(fn->entry, params, gx, bx, smem);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "emulator: %s\n", e.what());
    return CUresult(719);
  }
  return ok();
}
// Device memory: THORN_EMU_MEMORY=BYTES makes a smaller device (default 4
// GiB) whose allocations fail once the live ones would exceed it.
std::mutex alloc_mu;
std::unordered_map<CUdeviceptr, size_t> live_allocations;
size_t allocated = 0;
size_t device_memory() {
  static const size_t bytes = [] {
    const char* v = std::getenv("THORN_EMU_MEMORY");
    return v && *v ? size_t(std::strtoull(v, nullptr, 10)) : size_t(4) << 30;
  }();
  return bytes;
}
CUresult e_alloc(CUdeviceptr* p, size_t bytes) {
  THORN_EMU_STICKY();
  if (!injected({"oom"}, ++allocs_seen).empty()) return CUresult(CUDA_ERROR_OUT_OF_MEMORY);
  std::lock_guard<std::mutex> lock(alloc_mu);
  if (allocated + bytes > device_memory()) return CUresult(CUDA_ERROR_OUT_OF_MEMORY);
  void* m = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!m) return CUresult(CUDA_ERROR_OUT_OF_MEMORY);
  std::memset(m, 0xA5, bytes);  // garbage, like fresh device memory: kernels must not rely on zeros
  allocated += bytes;
  *p = reinterpret_cast<CUdeviceptr>(m);
  live_allocations[*p] = bytes;
  return ok();
}
CUresult e_free(CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(alloc_mu);
  auto it = live_allocations.find(p);
  if (it != live_allocations.end()) {
    allocated -= it->second;
    live_allocations.erase(it);
  }
  std::free(reinterpret_cast<void*>(p));
  return ok();
}
CUresult e_mem_info(size_t* f, size_t* t) {
  std::lock_guard<std::mutex> lock(alloc_mu);
  *t = device_memory();
  *f = *t - std::min(*t, size_t(allocated));
  return ok();
}
std::atomic<uint64_t> uploads{0}, upload_bytes{0}, downloads{0}, download_bytes{0};
CUresult e_htod(CUdeviceptr d, const void* h, size_t n) {
  THORN_EMU_STICKY();
  std::memcpy(reinterpret_cast<void*>(d), h, n);
  ++uploads;
  upload_bytes += n;
  return ok();
}
CUresult e_dtoh(void* h, CUdeviceptr d, size_t n) {
  THORN_EMU_STICKY();
  std::memcpy(h, reinterpret_cast<void*>(d), n);
  ++downloads;
  download_bytes += n;
  return ok();
}
CUresult e_dtod(CUdeviceptr d, CUdeviceptr s, size_t n) {
  THORN_EMU_STICKY();
  std::memmove(reinterpret_cast<void*>(d), reinterpret_cast<void*>(s), n);
  return ok();
}
CUresult e_htod_async(CUdeviceptr d, const void* h, size_t n, CUstream) { return e_htod(d, h, n); }
CUresult e_dtoh_async(void* h, CUdeviceptr d, size_t n, CUstream) { return e_dtoh(h, d, n); }
CUresult e_dtod_async(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream) { return e_dtod(d, s, n); }
CUresult e_memset8(CUdeviceptr d, unsigned char v, size_t n, CUstream) {
  THORN_EMU_STICKY();
  std::memset(reinterpret_cast<void*>(d), v, n);
  return ok();
}
CUresult e_memset32(CUdeviceptr d, unsigned v, size_t n, CUstream) {
  THORN_EMU_STICKY();
  auto* p = reinterpret_cast<unsigned*>(d);
  for (size_t i = 0; i < n; ++i) p[i] = v;
  return ok();
}
CUstream the_stream = reinterpret_cast<CUstream>(uintptr_t(0x2000));
CUresult e_stream_create(CUstream* s, unsigned) { *s = the_stream; return ok(); }
CUresult e_stream_destroy(CUstream) { return ok(); }
CUresult e_stream_sync(CUstream) { THORN_EMU_STICKY(); return ok(); }
CUresult e_event_create(CUevent* e, unsigned) { *e = reinterpret_cast<CUevent>(new int(0)); return ok(); }
CUresult e_event_destroy(CUevent) { return ok(); }
CUresult e_event_record(CUevent, CUstream) { return ok(); }
CUresult e_event_sync(CUevent) { THORN_EMU_STICKY(); return ok(); }
CUresult e_event_elapsed(float* ms, CUevent, CUevent) { *ms = 0; return ok(); }

}  // namespace

const CudaApi& driver_api() {
  static CudaApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    api.cuInit = e_init;
    api.cuDriverGetVersion = e_driver_version;
    api.cuGetErrorName = e_error_name;
    api.cuGetErrorString = e_error_string;
    api.cuDeviceGetCount = e_device_count;
    api.cuDeviceGet = e_device_get;
    api.cuDeviceGetAttribute = e_device_attribute;
    api.cuDeviceGetName = e_device_name;
    api.cuDeviceTotalMem = e_total_mem;
    api.cuDevicePrimaryCtxRetain = e_ctx_retain;
    api.cuDevicePrimaryCtxRelease = e_ctx_release;
    api.cuCtxSetCurrent = e_ctx_set;
    api.cuCtxGetCurrent = e_ctx_get;
    api.cuCtxSynchronize = e_ctx_sync;
    api.cuModuleLoadData = e_module_load;
    api.cuModuleUnload = e_module_unload;
    api.cuModuleGetFunction = e_module_function;
    api.cuFuncGetAttribute = e_func_attribute;
    api.cuFuncSetAttribute = e_func_set_attribute;
    api.cuOccupancyMaxActiveBlocksPerMultiprocessor = e_occupancy;
    api.cuLaunchKernel = e_launch;
    api.cuMemAlloc = e_alloc;
    api.cuMemFree = e_free;
    api.cuMemGetInfo = e_mem_info;
    api.cuMemcpyHtoD = e_htod;
    api.cuMemcpyDtoH = e_dtoh;
    api.cuMemcpyDtoD = e_dtod;
    api.cuMemcpyHtoDAsync = e_htod_async;
    api.cuMemcpyDtoHAsync = e_dtoh_async;
    api.cuMemcpyDtoDAsync = e_dtod_async;
    api.cuMemsetD8Async = e_memset8;
    api.cuMemsetD32Async = e_memset32;
    api.cuStreamCreate = e_stream_create;
    api.cuStreamDestroy = e_stream_destroy;
    api.cuStreamSynchronize = e_stream_sync;
    api.cuEventCreate = e_event_create;
    api.cuEventDestroy = e_event_destroy;
    api.cuEventRecord = e_event_record;
    api.cuEventSynchronize = e_event_sync;
    api.cuEventElapsedTime = e_event_elapsed;
  });
  return api;
}

// "emulator runs by entry: thorn_map x3, thorn_hist_global x2" (no
// "launches" in it: scripts read that count from the line above).
std::string entry_report() {
  std::lock_guard<std::mutex> lock(entry_mu);
  if (entry_runs.empty()) return "";
  std::string r = "emulator runs by entry:";
  const char* sep = " ";
  for (const auto& [name, n] : entry_runs) {
    r += fmt::format("{}{} x{}", sep, name, n);
    sep = ", ";
  }
  return r + "\n";
}

std::string report() {
  LaunchStats s = launch_stats();
  return fmt::format(
      "emulator: {} kernels compiled for the host ({} compile requests), {} launches, {} blocks, {} fibers, {} switches, "
      "{} uploads ({} B), {} downloads ({} B)\n",
      kernels_compiled, compiles_seen.load(), s.launches, s.blocks, s.fibers, s.switches, uploads.load(), upload_bytes.load(),
      downloads.load(), download_bytes.load()) +
         entry_report();
}

}  // namespace thorn::gpu::emu
