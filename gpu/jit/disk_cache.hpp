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
#include <optional>
#include <string>

namespace thorn::gpu::jit {

struct CachedBinary {
  std::string data;
  bool cubin = true;
};

class DiskCache {
 public:
  explicit DiskCache(std::string dir);  // empty dir: disabled
  static std::string default_dir();     // from the environment, "" when disabled

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }
  std::string path_of(const std::string& key) const;

  std::optional<CachedBinary> load(const std::string& key) const;
  // Best effort: a cache that cannot be written only costs recompilation.
  bool store(const std::string& key, const CachedBinary& bin) const;

 private:
  std::string dir_;
};

}  // namespace thorn::gpu::jit
