#pragma once
// The on-disk kernel cache (like CuPy's ~/.cupy/kernel_cache): compiled
// kernels survive the process, so a program's second run starts without
// NVRTC. One file per kernel, named by its key (a hash of source, options,
// architecture and NVRTC version):
//
//   <dir>/<key>.bin = header | payload
//   header: "THORNKC1", u32 kind (1 cubin, 0 PTX), u32 0, u64 payload bytes,
//           u64 hash64(payload), u64 hash64(key)
//
// An entry whose header, length or checksum does not match (a truncated
// write, a disk error, a foreign file) is a miss: the kernel is recompiled
// and the entry rewritten, never loaded. Writes go to a temporary file in the
// same directory, renamed into place, so readers never see half an entry.
//
// Location: $THORN_CACHE_DIR, else $XDG_CACHE_HOME/thorn, else
// ~/.cache/thorn. THORN_CACHE_DIR=off disables the disk cache.
//
// Bounded: after a store, when the entries add up to more than the limit
// (THORN_CACHE_MAX_BYTES, default 1 GiB; K/M/G suffixes), the least
// recently used ones are deleted until they fit in 90% of it (a load marks
// an entry used by touching its modification time). Temporary files older
// than an hour (a writer killed mid-write) go too. Several processes may
// share the directory: every step tolerates files appearing and vanishing.
#include <cstdint>
#include <optional>
#include <string>

namespace thorn::gpu::jit {

struct CachedBinary {
  std::string data;
  bool cubin = true;
};

class DiskCache {
 public:
  // empty dir: disabled; max_bytes 0: default_max_bytes()
  explicit DiskCache(std::string dir, uint64_t max_bytes = 0);
  static std::string default_dir();     // from the environment, "" when disabled
  static uint64_t default_max_bytes();  // THORN_CACHE_MAX_BYTES, else 1 GiB
  uint64_t max_bytes() const { return max_bytes_; }
  // Deletes least recently used entries until they fit (see above); done by
  // store(), public for tests. Returns the bytes the entries take after.
  uint64_t evict() const;

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }
  std::string path_of(const std::string& key) const;

  std::optional<CachedBinary> load(const std::string& key) const;
  // Best effort: a cache that cannot be written only costs recompilation.
  bool store(const std::string& key, const CachedBinary& bin) const;

 private:
  std::string dir_;
  uint64_t max_bytes_;
};

}  // namespace thorn::gpu::jit
