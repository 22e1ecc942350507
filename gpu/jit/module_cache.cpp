#include "gpu/jit/module_cache.hpp"

#include <fmt/format.h>

#include "gpu/driver/cuda.hpp"
#include "gpu/driver/device.hpp"
#include "gpu/jit/hash.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::jit {

namespace {
// Load errors that mean "not an image this driver can use", as opposed to
// resource or context errors.
bool cannot_use_image(CUresult r) {
  return r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_PTX ||
         r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
}
}  // namespace

const LoadedKernel& Module::kernel(const std::string& entry) const {
  auto it = kernels_.find(entry);
  if (it == kernels_.end())
    throw Error(ErrorKind::Internal, fmt::format("kernel module '{}' has no entry {}", name_, entry));
  return it->second;
}

const Module& ModuleCache::load(const Device& device, const cg::KernelSource& ks) {
  static ModuleCache* cache = new ModuleCache();  // lives as long as the context: never destroyed
  // The source text identifies the module (one device per process); hashing
  // it is far cheaper than compiling or even reading the disk cache.
  std::string key = hex64(hash64(ks.source, 7)) + hex64(hash64(ks.source, 8));
  std::lock_guard<std::mutex> lock(cache->mu_);
  auto& slot = cache->modules_[key];
  if (slot) {
    KernelCache::get().note_memory_hit(slot->stats_);
    return *slot;
  }
  KernelStats* stats = nullptr;
  auto bin = KernelCache::get().binary(ks, device.props().arch(), &stats);
  auto m = std::make_unique<Module>();
  m->stats_ = stats;
  m->name_ = ks.name;
  device.make_current();
  CUresult r = cuda().cuModuleLoadData(&m->module_, bin->data.data());
  if (r != CUDA_SUCCESS && bin->cubin && cannot_use_image(r)) {
    // A driver older than NVRTC may reject its cubins: PTX for the device's
    // architecture instead, finished by the driver's JIT compiler.
    std::string first = CudaDriver::get().error_text(r);
    auto ptx = KernelCache::get().binary(ks, device.props().arch(), &stats, /*ptx=*/true);
    m->stats_ = stats;
    r = cuda().cuModuleLoadData(&m->module_, ptx->data.data());
    if (r != CUDA_SUCCESS)
      throw Error(ErrorKind::Gpu, fmt::format("the driver cannot load kernel '{}': {} for its cubin, {} for PTX",
                                              ks.name, first, CudaDriver::get().error_text(r)));
  }
  cu_check(r, "cuModuleLoadData");
  for (const std::string& entry : ks.entries) {
    LoadedKernel k;
    CU_CALL(cuModuleGetFunction, &k.fn, m->module_, entry.c_str());
    CU_CALL(cuFuncGetAttribute, &k.num_regs, CU_FUNC_ATTRIBUTE_NUM_REGS, k.fn);
    CU_CALL(cuFuncGetAttribute, &k.static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k.fn);
    CU_CALL(cuFuncGetAttribute, &k.max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k.fn);
    m->kernels_[entry] = k;
  }
  slot = std::move(m);
  return *slot;
}

}  // namespace thorn::gpu::jit
