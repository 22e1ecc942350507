#include "gpu/memory/pool.hpp"

#include <bit>

#include <fmt/format.h>

#include "gpu/driver/cuda.hpp"
#include "gpu/driver/device.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu {

size_t DevicePool::size_class(size_t bytes) {
  if (bytes <= 512) return 512;
  size_t top = std::bit_floor(bytes);
  size_t step = top / 8;
  return (bytes + step - 1) / step * step;
}

DevicePool& DevicePool::get(const Device& device) {
  static DevicePool* pool = new DevicePool(device);  // outlives every Buffer: never destroyed
  return *pool;
}

DevicePool::Block DevicePool::allocate(size_t bytes) {
  if (bytes == 0) return {};
  size_t cls = size_class(bytes);
  std::unique_lock<std::mutex> lock(mu_);
  auto it = free_.find(cls);
  if (it != free_.end() && !it->second.empty()) {
    Block b{it->second.back(), cls};
    it->second.pop_back();
    stats_.cached -= cls;
    stats_.in_use += cls;
    ++stats_.reuses;
    return b;
  }
  device_.make_current();
  const CudaApi& api = cuda();
  CUdeviceptr p = 0;
  CUresult r = api.cuMemAlloc(&p, cls);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    // Give the cached blocks back to the driver and try once more.
    free_cached_locked();
    ++stats_.trims;
    r = api.cuMemAlloc(&p, cls);
  }
  while (r == CUDA_ERROR_OUT_OF_MEMORY && pressure_hook_) {
    // Then make room by dropping device copies that can be dropped (their
    // blocks come back through release(), hence no lock while it runs).
    auto hook = pressure_hook_;
    lock.unlock();
    size_t freed = hook(cls);
    lock.lock();
    if (freed == 0) break;
    free_cached_locked();
    r = api.cuMemAlloc(&p, cls);
  }
  if (r != CUDA_SUCCESS) {
    size_t free_bytes = 0, total = 0;
    api.cuMemGetInfo(&free_bytes, &total);
    throw Error(ErrorKind::Gpu,
                fmt::format("out of device memory allocating {:.1f} MiB ({}; {:.1f} MiB in use by thorn, "
                            "{:.1f} of {:.1f} MiB free on the device)",
                            double(cls) / 1048576.0, CudaDriver::get().error_text(r),
                            double(stats_.in_use) / 1048576.0, double(free_bytes) / 1048576.0,
                            double(total) / 1048576.0));
  }
  ++stats_.allocations;
  stats_.in_use += cls;
  stats_.peak = std::max(stats_.peak, stats_.in_use + stats_.cached);
  return {p, cls};
}

void DevicePool::free_cached_locked() {
  const CudaApi& api = cuda();
  api.cuStreamSynchronize(device_.stream());
  for (auto& [size, ptrs] : free_)
    for (CUdeviceptr q : ptrs) api.cuMemFree(q);
  free_.clear();
  stats_.cached = 0;
}

void DevicePool::set_pressure_hook(std::function<size_t(size_t)> hook) {
  std::lock_guard<std::mutex> lock(mu_);
  pressure_hook_ = std::move(hook);
}

void DevicePool::release(Block b) {
  if (!b.ptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  free_[b.bytes].push_back(b.ptr);
  stats_.in_use -= b.bytes;
  stats_.cached += b.bytes;
}

void DevicePool::trim() {
  std::lock_guard<std::mutex> lock(mu_);
  device_.make_current();
  free_cached_locked();
}

PoolStats DevicePool::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace thorn::gpu
