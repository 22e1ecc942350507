#include "gpu/jit/disk_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <vector>
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

DiskCache::DiskCache(std::string dir, uint64_t max_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes ? max_bytes : default_max_bytes()) {}

uint64_t DiskCache::default_max_bytes() {
  std::string v = env_or_empty("THORN_CACHE_MAX_BYTES");
  if (!v.empty()) {
    char* end = nullptr;
    double n = std::strtod(v.c_str(), &end);
    if (end != v.c_str() && n > 0) {
      double mult = 1;
      switch (std::toupper(static_cast<unsigned char>(*end))) {
        case 'K': mult = 1024.0; break;
        case 'M': mult = 1024.0 * 1024; break;
        case 'G': mult = 1024.0 * 1024 * 1024; break;
        default: break;
      }
      return std::max<uint64_t>(1, uint64_t(n * mult));
    }
  }
  return uint64_t(1) << 30;
}

uint64_t DiskCache::evict() const {
  if (!enabled()) return 0;
  struct Item {
    fs::path path;
    uint64_t bytes;
    fs::file_time_type used;
  };
  std::vector<Item> items;
  uint64_t total = 0;
  std::error_code ec;
  auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    const fs::path& p = it->path();
    std::string name = p.filename().string();
    auto t = fs::last_write_time(p, e2);
    if (e2) continue;  // gone meanwhile (another process)
    if (name.size() > 1 && name[0] == '.' && name.find(".tmp.") != std::string::npos) {
      if (now - t > std::chrono::hours(1)) fs::remove(p, e2);  // a writer that died
      continue;
    }
    if (p.extension() != ".bin") continue;
    uint64_t bytes = fs::file_size(p, e2);
    if (e2) continue;
    items.push_back({p, bytes, t});
    total += bytes;
  }
  if (total <= max_bytes_) return total;
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.used < b.used; });
  uint64_t target = max_bytes_ / 10 * 9;
  for (const Item& i : items) {
    if (total <= target) break;
    std::error_code e2;
    fs::remove(i.path, e2);  // already gone: another process evicted it
    total -= i.bytes;
  }
  return total;
}

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
  std::error_code ec;
  fs::last_write_time(path_of(key), fs::file_time_type::clock::now(), ec);  // used: last out
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
  evict();
  return true;
}

}  // namespace thorn::gpu::jit
