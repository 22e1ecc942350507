#include "gpu/jit/module_cache.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "gpu/driver/cuda.hpp"
#include "gpu/driver/dynlib.hpp"
#include "gpu/driver/device.hpp"
#include "gpu/jit/hash.hpp"
#include "gpu/jit/lru.hpp"
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

ModuleCache& ModuleCache::get() {
  static ModuleCache* cache = new ModuleCache();  // lives as long as the context: never destroyed
  return *cache;
}

uint64_t ModuleCache::generation() { return get().generation_.load(); }

size_t ModuleCache::max_modules() {
  static const size_t n = size_t(std::max<int64_t>(4, env_int("THORN_GPU_MAX_MODULES", 512)));
  return n;
}

size_t ModuleCache::loaded() {
  ModuleCache& c = get();
  std::lock_guard<std::mutex> lock(c.mu_);
  return c.modules_.size();
}

uint64_t ModuleCache::unloaded() { return get().unloaded_.load(); }

void ModuleCache::evict(const Device& device) {
  // Kernels of the modules about to go may still be queued: wait for them.
  device.make_current();
  cuda().cuStreamSynchronize(device.stream());
  for (const std::string& key : oldest_quarter(modules_, [](const auto& m) { return m->last_use_; })) {
    auto it = modules_.find(key);
    if (it->second->module_) cuda().cuModuleUnload(it->second->module_);
    modules_.erase(it);
    ++unloaded_;
  }
  ++generation_;
}

const Module& ModuleCache::load(const Device& device, const cg::KernelSource& ks) {
  ModuleCache* cache = &get();
  // The source text identifies the module (one device per process); hashing
  // it is far cheaper than compiling or even reading the disk cache.
  std::string key = hex64(hash64(ks.source, 7)) + hex64(hash64(ks.source, 8));
  std::lock_guard<std::mutex> lock(cache->mu_);
  if (auto it = cache->modules_.find(key); it != cache->modules_.end()) {
    it->second->last_use_ = ++cache->clock_;
    KernelCache::get().note_memory_hit(it->second->stats_.get());
    return *it->second;
  }
  if (cache->modules_.size() >= max_modules()) cache->evict(device);
  std::shared_ptr<KernelStats> stats;
  auto bin = KernelCache::get().binary(ks, device.props().arch(), &stats);
  auto m = std::make_unique<Module>();
  m->stats_ = stats;
  m->name_ = ks.name;
  m->last_use_ = ++cache->clock_;
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
  auto& slot = cache->modules_[key];  // only once loaded: a failure leaves no entry
  slot = std::move(m);
  return *slot;
}

}  // namespace thorn::gpu::jit
