#pragma once
// Loaded modules: the link step of the JIT (compile -> load -> launch).
// A kernel source becomes a CUmodule in the process-wide context once; later
// requests for the same source return the loaded module and its functions.
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
  KernelStats* stats() const { return stats_; }
  const std::string& name() const { return name_; }

 private:
  friend class ModuleCache;
  CUmodule module_ = nullptr;
  std::map<std::string, LoadedKernel> kernels_;
  KernelStats* stats_ = nullptr;
  std::string name_;
};

class ModuleCache {
 public:
  // The loaded module for `ks` on `device` (compiling through KernelCache).
  static const Module& load(const Device& device, const cg::KernelSource& ks);

 private:
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Module>> modules_;  // by source hash
};

}  // namespace thorn::gpu::jit
