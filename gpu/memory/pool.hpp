#pragma once
// The device memory pool. cuMemAlloc/cuMemFree cost tens to hundreds of
// microseconds each and synchronise the device, and the seed's prototype lost
// 150-200 µs per intermediate allocation (notes-segred.md §4), so freed
// blocks are kept on per-size-class free lists and reused.
//
// Size classes: requests round up to one of 8 steps per power of two (at
// most 12.5% waste), at least 512 bytes. Reuse is safe without events
// because all work runs in order on the device's one stream: any kernel that
// used a freed block was enqueued before any kernel using its next owner.
//
// Out of memory: the pool frees every cached block and retries; then it asks
// the pressure hook (residency.cpp: drop device mirrors of host buffers that
// no running plan uses, least recently used first) for room, as long as the
// hook frees something; if that fails too it throws Error(Gpu, "out of
// device memory ...") and the caller runs the nest on the host instead.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "gpu/driver/cuda_types.hpp"

namespace thorn::gpu {

class Device;

struct PoolStats {
  size_t in_use = 0;       // bytes held by live blocks (class sizes)
  size_t cached = 0;       // bytes on the free lists
  size_t peak = 0;         // highest in_use + cached
  uint64_t allocations = 0;  // cuMemAlloc calls
  uint64_t reuses = 0;       // requests served from a free list
  uint64_t trims = 0;        // out-of-memory recoveries
};

class DevicePool {
 public:
  struct Block {
    CUdeviceptr ptr = 0;
    size_t bytes = 0;  // the class size (>= the request)
  };

  static DevicePool& get(const Device& device);  // process-wide, for the one device

  Block allocate(size_t bytes);  // zero bytes: a null block
  void release(Block b);         // back to its free list (null blocks ignored)
  void trim();                   // frees every cached block
  PoolStats stats() const;
  // Called, without the pool's lock, when memory runs out: releases device
  // memory held elsewhere (at least `want` bytes if it can) and returns how
  // many bytes it released, 0 when it has nothing left to give.
  void set_pressure_hook(std::function<size_t(size_t want)> hook);

  static size_t size_class(size_t bytes);

 private:
  explicit DevicePool(const Device& d) : device_(d) {}
  const Device& device_;
  mutable std::mutex mu_;
  std::map<size_t, std::vector<CUdeviceptr>> free_;
  PoolStats stats_;
  std::function<size_t(size_t)> pressure_hook_;
  void free_cached_locked();
};

}  // namespace thorn::gpu
