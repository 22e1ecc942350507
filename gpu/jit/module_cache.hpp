#pragma once
// Loaded modules: the link step of the JIT (compile -> load -> launch).
// A kernel source becomes a CUmodule in the process-wide context once; later
// requests for the same source return the loaded module and its functions.
//
// Bounded for long sessions: past max_modules() (512, THORN_GPU_MAX_MODULES)
// a load first waits for the stream, then unloads the least recently used
// quarter (their binaries stay in the kernel caches, so a module that comes
// back is only loaded again). A Module reference is valid until the next
// load() (callers launch right away); generation() changes with every
// eviction, for callers that keep pointers.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "gpu/codegen/skeleton.hpp"
#include "gpu/driver/cuda_types.hpp"
#include "gpu/jit/kernel_cache.hpp"

namespace thorn::gpu {
class Device;
}

namespace thorn::gpu::jit {

struct LoadedKernel {
  CUfunction fn = nullptr;
  int num_regs = 0;
  int static_smem = 0;
  int max_threads = 0;
};

class Module {
 public:
  const LoadedKernel& kernel(const std::string& entry) const;  // throws Internal for a missing entry
  KernelStats* stats() const { return stats_.get(); }
  const std::string& name() const { return name_; }

 private:
  friend class ModuleCache;
  CUmodule module_ = nullptr;
  std::map<std::string, LoadedKernel> kernels_;
  std::shared_ptr<KernelStats> stats_;  // shared with KernelCache, which may drop its entry first
  std::string name_;
  uint64_t last_use_ = 0;
};

class ModuleCache {
 public:
  // The loaded module for `ks` on `device` (compiling through KernelCache).
  static const Module& load(const Device& device, const cg::KernelSource& ks);
  static uint64_t generation();
  static size_t max_modules();
  static size_t loaded();    // modules loaded now
  static uint64_t unloaded();  // modules unloaded to stay within max_modules()

 private:
  static ModuleCache& get();
  void evict(const Device& device);  // with mu_ held
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Module>> modules_;  // by source hash
  uint64_t clock_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<uint64_t> unloaded_{0};
};

}  // namespace thorn::gpu::jit
