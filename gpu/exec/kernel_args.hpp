#pragma once
// Kernel arguments for cuLaunchKernel: each value is copied into owned
// storage and cuLaunchKernel gets a pointer to each, in parameter order.
#include <cstdint>
#include <cstring>
#include <vector>

#include "gpu/driver/cuda_types.hpp"

namespace thorn::gpu {

class KernelArgs {
 public:
  void i32(int32_t v) { bytes(&v, sizeof v); }
  void i64(int64_t v) { bytes(&v, sizeof v); }
  void ptr(CUdeviceptr p) { bytes(&p, sizeof p); }
  void bytes(const void* p, size_t n) {
    storage_.emplace_back(n);
    if (n) std::memcpy(storage_.back().data(), p, n);
  }
  // Pointers into the storage; valid until the next addition.
  void** pointers() {
    ptrs_.clear();
    for (auto& s : storage_) ptrs_.push_back(s.data());
    return ptrs_.data();
  }
  size_t count() const { return storage_.size(); }

 private:
  std::vector<std::vector<unsigned char>> storage_;
  std::vector<void*> ptrs_;
};

}  // namespace thorn::gpu
