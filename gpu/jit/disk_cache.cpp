#include "gpu/jit/disk_cache.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "gpu/driver/dynlib.hpp"
#include "gpu/jit/hash.hpp"

namespace thorn::gpu::jit {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'T', 'H', 'O', 'R', 'N', 'K', 'C', '1'};

struct Header {
  char magic[8];
  uint32_t kind;
  uint32_t reserved;
  uint64_t bytes;
  uint64_t payload_hash;
  uint64_t key_hash;
};
static_assert(sizeof(Header) == 40);

}  // namespace

DiskCache::DiskCache(std::string dir) : dir_(std::move(dir)) {}

std::string DiskCache::default_dir() {
  std::string d = env_or_empty("THORN_CACHE_DIR");
  if (d == "off" || d == "0" || d == "none") return "";
  if (!d.empty()) return d;
  std::string xdg = env_or_empty("XDG_CACHE_HOME");
  if (!xdg.empty()) return xdg + "/thorn";
  std::string home = env_or_empty("HOME");
  if (!home.empty()) return home + "/.cache/thorn";
  return "";
}

std::string DiskCache::path_of(const std::string& key) const { return dir_ + "/" + key + ".bin"; }

std::optional<CachedBinary> DiskCache::load(const std::string& key) const {
  if (!enabled()) return std::nullopt;
  std::ifstream in(path_of(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string file = ss.str();
  Header h;
  if (file.size() < sizeof h) return std::nullopt;
  std::memcpy(&h, file.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, 8) != 0 || h.kind > 1) return std::nullopt;
  if (h.bytes != file.size() - sizeof h) return std::nullopt;  // truncated or padded
  if (h.key_hash != hash64(key)) return std::nullopt;
  std::string payload = file.substr(sizeof h);
  if (hash64(payload) != h.payload_hash) return std::nullopt;  // corrupt
  return CachedBinary{std::move(payload), h.kind == 1};
}

bool DiskCache::store(const std::string& key, const CachedBinary& bin) const {
  if (!enabled()) return false;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  static std::atomic<uint64_t> counter{0};
  std::string tmp = fmt::format("{}/.{}.tmp.{}.{}", dir_, key, ::getpid(), counter++);
  Header h;
  std::memcpy(h.magic, kMagic, 8);
  h.kind = bin.cubin ? 1 : 0;
  h.reserved = 0;
  h.bytes = bin.data.size();
  h.payload_hash = hash64(bin.data);
  h.key_hash = hash64(key);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(bin.data.data(), std::streamsize(bin.data.size()));
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, path_of(key), ec);  // atomic within one file system
  if (ec) {
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

}  // namespace thorn::gpu::jit
