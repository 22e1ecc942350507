#pragma once
// NVRTC compilation behind two caches (like CuPy's): in memory, keyed by a
// hash of (source, options, target architecture, NVRTC version), and on
// disk (disk_cache.hpp) under the same key. Compiles for the device's exact
// architecture (a cubin via --gpu-architecture=sm_XY), or PTX for the newest
// architecture NVRTC knows when the device is newer than NVRTC.
//
// The memory cache is bounded for long sessions: past max_kernels() entries
// (512, THORN_GPU_MAX_KERNELS) the least recently used quarter is dropped
// (binaries, remembered failures and statistics; the disk cache still has
// the binaries). Holders of a binary or a statistics record share it, so a
// dropped entry's record stays valid for them, only unlisted.
//
// Statistics per kernel (compile time, cache hits, launches) feed the REPL's
// :kernels command. THORN_DUMP_KERNELS=DIR writes every kernel source there
// as <name>-<key>.cu when first requested.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpu/codegen/skeleton.hpp"
#include "gpu/driver/nvrtc.hpp"
#include "gpu/jit/disk_cache.hpp"

namespace thorn::gpu::testing {
struct Hooks;
}

namespace thorn::gpu::jit {

// The NVRTC options every thorn kernel is compiled with (the nvrtc tests use
// the same). No fast math and no FMA contraction: f32/f64 results round like
// the host backends' (THORN_GPU_FMAD=1 allows contraction).
std::vector<std::string> compile_options();

// The cache key of a kernel for a target.
std::string cache_key(const cg::KernelSource& ks, const Nvrtc::Target& target);

// Compiles without any cache; for the nvrtc tests and NVRTC timing.
NvrtcOutput compile_uncached(const cg::KernelSource& ks, const Nvrtc::Target& target);

struct KernelStats {
  std::string name;  // KernelSource::name
  std::string key;
  std::string target;  // "sm_90"
  int compiles = 0;    // NVRTC runs
  double compile_ms = 0;
  int memory_hits = 0;
  int disk_hits = 0;
  double disk_load_ms = 0;
  uint64_t launches = 0;
};

// Counts over the cache's lifetime, dropped entries included.
struct KernelTotals {
  uint64_t entries = 0;  // entries made (a kernel dropped and wanted again counts twice)
  uint64_t compiles = 0;
  uint64_t disk_hits = 0;
  uint64_t dropped = 0;  // entries dropped to stay within max_kernels()
};

class KernelCache {
 public:
  static KernelCache& get();  // process-wide, disk cache at DiskCache::default_dir()
  explicit KernelCache(DiskCache disk, size_t max_entries = max_kernels())
      : disk_(std::move(disk)), max_entries_(std::max<size_t>(1, max_entries)) {}

  // The compiled kernel for a device of compute capability `device_arch`:
  // from memory, else from disk, else from NVRTC. Throws Error(Gpu) carrying
  // NVRTC's log when the source does not compile. `stats_out` receives the
  // kernel's statistics record (shared: valid as long as it is held). A kernel
  // that failed to compile fails again at once, with the same message.
  // `ptx`: PTX for the device's architecture (or the newest NVRTC knows)
  // instead of a cubin, for a driver that cannot load this NVRTC's cubins.
  std::shared_ptr<const CachedBinary> binary(const cg::KernelSource& ks, int device_arch,
                                             std::shared_ptr<KernelStats>* stats_out = nullptr, bool ptx = false);

  void note_launch(KernelStats* s, uint64_t n = 1);
  void note_memory_hit(KernelStats* s);  // also marks the entry used, for the LRU order
  std::vector<KernelStats> stats() const;  // the entries in memory now
  KernelTotals totals() const;
  size_t size() const;  // entries in memory now
  static size_t max_kernels();  // THORN_GPU_MAX_KERNELS (512; at least 4)
  void forget_memory();  // drops in-memory binaries (tests: forces the disk path)
  const DiskCache& disk() const { return disk_; }

 private:
  struct Entry {
    std::shared_ptr<const CachedBinary> binary;
    std::shared_ptr<KernelStats> stats;
    std::string failure;  // a failed compilation, remembered: not retried on every call
    uint64_t last_use = 0;
  };
  // The entry for `key`, made if missing (dropping the least recently used
  // quarter first when the cache is full); marked used. With mu_ held.
  Entry& entry(const std::string& key, const cg::KernelSource& ks, const std::string& target);
  // A compiler standing in for NVRTC (the emulator's): source -> image.
  std::shared_ptr<const CachedBinary> emulated(const cg::KernelSource& ks,
                                               const std::function<std::string(const std::string&)>& compile,
                                               std::shared_ptr<KernelStats>* stats_out);
  DiskCache disk_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>> entries_;
  size_t max_entries_;
  uint64_t clock_ = 0;
  KernelTotals totals_;
};

// A table for :kernels.
std::string format_kernel_stats(const std::vector<KernelStats>& stats);

}  // namespace thorn::gpu::jit
