#include "gpu/driver/device.hpp"

#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

#include "gpu/driver/cuda.hpp"
#include "gpu/driver/dynlib.hpp"
#include "gpu/driver/nvrtc.hpp"
#include "gpu/driver/testing.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu {

double DeviceProps::peak_bandwidth_gbs() const {
  // DDR: two transfers per clock; kHz * bits / 8 -> bytes per ms.
  if (memory_clock_khz <= 0 || bus_width_bits <= 0) return 0;
  return 2.0 * double(memory_clock_khz) * 1e3 * double(bus_width_bits) / 8.0 / 1e9;
}

std::string DeviceProps::describe() const {
  return fmt::format("{} (sm_{}, {} SMs, {:.1f} GiB, driver {}.{})", name, arch(), sm_count,
                     double(memory_bytes) / double(1ull << 30), driver_version / 1000,
                     (driver_version % 1000) / 10);
}

std::string DeviceProps::details() const {
  std::string s;
  auto line = [&](const char* k, const std::string& v) { s += fmt::format("  {:<28} {}\n", k, v); };
  line("name", name);
  line("compute capability", fmt::format("{}.{}", cc_major, cc_minor));
  line("multiprocessors", std::to_string(sm_count));
  line("warp size", std::to_string(warp_size));
  line("max threads / block", std::to_string(max_threads_per_block));
  line("max threads / SM", std::to_string(max_threads_per_sm));
  line("max blocks / SM", std::to_string(max_blocks_per_sm));
  line("shared memory / block", fmt::format("{} KiB (opt-in {} KiB)", shared_per_block / 1024,
                                            shared_per_block_optin / 1024));
  line("shared memory / SM", fmt::format("{} KiB", shared_per_sm / 1024));
  line("registers / block", std::to_string(regs_per_block));
  line("registers / SM", std::to_string(regs_per_sm));
  line("L2 cache", fmt::format("{} MiB", double(l2_bytes) / double(1 << 20)));
  line("memory", fmt::format("{:.1f} GiB", double(memory_bytes) / double(1ull << 30)));
  if (peak_bandwidth_gbs() > 0) line("peak bandwidth", fmt::format("{:.0f} GB/s", peak_bandwidth_gbs()));
  return s;
}

DeviceProps DeviceProps::typical(int arch) {
  DeviceProps p;
  p.cc_major = arch / 10;
  p.cc_minor = arch % 10;
  p.name = fmt::format("typical sm_{}", arch);
  if (arch >= 90) {  // H100 SXM
    p.sm_count = 132;
    p.shared_per_block_optin = 227 * 1024;
    p.shared_per_sm = 228 * 1024;
    p.l2_bytes = 50 << 20;
    p.memory_bytes = size_t(80) << 30;
  } else {  // A100
    p.sm_count = 108;
    p.shared_per_block_optin = 163 * 1024;
    p.shared_per_sm = 164 * 1024;
    p.l2_bytes = 40 << 20;
    p.memory_bytes = size_t(40) << 30;
    p.max_blocks_per_sm = 32;
  }
  return p;
}

// ------------------------------------------------------------------ the device

struct DeviceInit {
  std::once_flag once;
  Device* device = nullptr;
  std::string why;

  void init() {
    std::string flag = env_or_empty("THORN_GPU");
    if (flag == "0" || flag == "off" || flag == "no") {
      why = fmt::format("disabled by THORN_GPU={}", flag);
      return;
    }
    const CudaDriver& drv = CudaDriver::get();
    if (!drv.loaded()) {
      why = drv.why();
      return;
    }
    const CudaApi& api = drv.api();
    CUresult r = api.cuInit(0);
    if (r != CUDA_SUCCESS) {
      why = fmt::format("no device (cuInit: {})", drv.error_text(r));
      return;
    }
    int count = 0;
    r = api.cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count == 0) {
      why = r != CUDA_SUCCESS ? fmt::format("no device (cuDeviceGetCount: {})", drv.error_text(r))
                              : std::string("no device");
      return;
    }
    int ordinal = 0;
    std::string want = env_or_empty("THORN_GPU_DEVICE");
    if (!want.empty()) ordinal = std::atoi(want.c_str());
    if (ordinal < 0 || ordinal >= count) {
      why = fmt::format("no device {} (THORN_GPU_DEVICE; {} present)", ordinal, count);
      return;
    }
    const Nvrtc& nvrtc = Nvrtc::get();
    const testing::Hooks* hooks = testing::installed();
    if (!nvrtc.loaded() && !(hooks && hooks->compile) && !drv.source_compiler()) {
      why = nvrtc.why();
      return;
    }
    try {
      auto* d = new Device();  // lives until exit: buffers may outlive any owner
      d->props_.ordinal = ordinal;
      CU_CALL(cuDeviceGet, &d->dev_, ordinal);
      query(*d);
      CU_CALL(cuDevicePrimaryCtxRetain, &d->ctx_, d->dev_);
      CU_CALL(cuCtxSetCurrent, d->ctx_);
      CU_CALL(cuStreamCreate, &d->stream_, unsigned(CU_STREAM_NON_BLOCKING));
      device = d;
    } catch (const Error& e) {
      why = e.message;
    }
  }

  static void query(Device& d) {
    DeviceProps& p = d.props_;
    auto attr = [&](CUdevice_attribute a) {
      int v = 0;
      CU_CALL(cuDeviceGetAttribute, &v, a, d.dev_);
      return v;
    };
    char name[256] = {0};
    CU_CALL(cuDeviceGetName, name, int(sizeof name) - 1, d.dev_);
    p.name = name;
    p.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    p.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    p.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    p.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    p.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    p.max_threads_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    p.max_blocks_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    p.shared_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    p.shared_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    p.shared_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    p.regs_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    p.regs_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    p.l2_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    p.max_grid_x = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    p.clock_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    p.memory_clock_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    p.bus_width_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    CU_CALL(cuDeviceTotalMem, &p.memory_bytes, d.dev_);
    CU_CALL(cuDriverGetVersion, &p.driver_version);
  }
};

namespace {
DeviceInit& device_init() {
  static DeviceInit* init = new DeviceInit();  // never destroyed: see Device::get
  std::call_once(init->once, [] { init->init(); });
  return *init;
}
}  // namespace

Device* Device::get() { return device_init().device; }

void Device::make_current() const {
  CUcontext cur = nullptr;
  const CudaApi& api = cuda();
  if (api.cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur != ctx_) CU_CALL(cuCtxSetCurrent, ctx_);
}

void Device::synchronize() const {
  make_current();
  CU_CALL(cuStreamSynchronize, stream_);
}

std::string availability() {
  DeviceInit& init = device_init();
  if (!init.device) return init.why;
  if (CudaDriver::get().emulated())  // the emulator compiles kernels for the host: no NVRTC involved
    return fmt::format("{}, emulated by {} (kernels compiled for the host)", init.device->props().describe(),
                       CudaDriver::get().path());
  if (!Nvrtc::get().loaded()) return init.device->props().describe();  // a test's compiler stands in
  return fmt::format("{}, NVRTC {}", init.device->props().describe(), Nvrtc::get().version_string());
}

bool gpu_available() { return Device::get() != nullptr; }

}  // namespace thorn::gpu
