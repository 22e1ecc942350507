#include "interp/util/resources.hpp"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace thorn {

namespace {

std::atomic<uint64_t> g_live{0};

// THORN_MEMORY_LIMIT, parsed once; 0 when unset or malformed.
uint64_t configured_limit() {
  static const uint64_t limit = [] {
    const char* s = std::getenv("THORN_MEMORY_LIMIT");
    if (!s || !*s) return uint64_t(0);
    char* end = nullptr;
    double v = std::strtod(s, &end);
    if (end == s || v <= 0) return uint64_t(0);
    double mult = 1;
    switch (std::toupper(static_cast<unsigned char>(*end))) {
      case 'K': mult = 1024.0; break;
      case 'M': mult = 1024.0 * 1024; break;
      case 'G': mult = 1024.0 * 1024 * 1024; break;
      case 'T': mult = 1024.0 * 1024 * 1024 * 1024; break;
      default: break;
    }
    return uint64_t(v * mult);
  }();
  return limit;
}

// MemAvailable + SwapFree, in bytes; nullopt when /proc/meminfo is not there.
std::optional<uint64_t> system_available() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return std::nullopt;
  char line[256];
  uint64_t avail = 0, swap = 0;
  bool found = false;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long long kb = 0;
    if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
      avail = kb * 1024;
      found = true;
    } else if (std::sscanf(line, "SwapFree: %llu kB", &kb) == 1) {
      swap = kb * 1024;
    }
  }
  std::fclose(f);
  if (!found) return std::nullopt;
  return avail + swap;
}

// Requests below this are not checked against the system (reading
// /proc/meminfo costs more than they do); std::bad_alloc still covers them.
constexpr uint64_t kCheckSystemFrom = uint64_t(64) << 20;

}  // namespace

std::string format_bytes(uint64_t bytes) {
  static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{:.2f} {}", v, units[u]);
}

void note_allocated(uint64_t bytes) noexcept { g_live.fetch_add(bytes, std::memory_order_relaxed); }
void note_released(uint64_t bytes) noexcept { g_live.fetch_sub(bytes, std::memory_order_relaxed); }
uint64_t live_buffer_bytes() noexcept { return g_live.load(std::memory_order_relaxed); }

uint64_t memory_available() {
  if (uint64_t limit = configured_limit()) {
    uint64_t live = live_buffer_bytes();
    return live >= limit ? 0 : limit - live;
  }
  if (auto a = system_available()) return *a;
  return std::numeric_limits<uint64_t>::max();
}

void check_allocation(int64_t count, int64_t elem_bytes, std::string_view what) {
  if (count < 0 || elem_bytes < 0) return;  // the caller's own error
  bool overflow = elem_bytes != 0 && uint64_t(count) > std::numeric_limits<uint64_t>::max() / uint64_t(elem_bytes);
  uint64_t bytes = overflow ? 0 : uint64_t(count) * uint64_t(elem_bytes);
  if (!overflow && !configured_limit() && bytes < kCheckSystemFrom) return;
  uint64_t available = memory_available();
  if (!overflow && bytes <= available) return;
  std::string size = overflow ? fmt::format("more than {} bytes", std::numeric_limits<uint64_t>::max())
                              : fmt::format("{} bytes ({})", bytes, format_bytes(bytes));
  throw OutOfMemory(Loc{}, fmt::format("out of memory: an array of {} {} needs {}, but only {} {} available", count,
                                       what, size, format_bytes(available),
                                       configured_limit() ? "(THORN_MEMORY_LIMIT) are" : "are"));
}

OutOfMemory out_of_memory_error(const Loc& loc, std::optional<uint64_t> requested) {
  std::string req = requested ? fmt::format(" of {} bytes", *requested) : "";
  return OutOfMemory(loc, fmt::format("out of memory: an allocation{} failed ({} available)", req,
                                      format_bytes(memory_available())));
}

}  // namespace thorn
