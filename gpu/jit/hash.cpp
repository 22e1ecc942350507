#include "gpu/jit/hash.hpp"

#include <cstring>

#include <fmt/format.h>

namespace thorn::gpu::jit {

namespace {
inline uint64_t mix(uint64_t x) {  // the splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}
}  // namespace

uint64_t hash64(std::string_view data, uint64_t seed) {
  // Four independent lanes over 8-byte words, mixed at the end: every input
  // bit reaches every output bit, and cubins of ~100 KB hash in microseconds.
  uint64_t h[4] = {mix(seed + 0x9e3779b97f4a7c15ull), mix(seed + 1), mix(seed + 2), mix(seed + 3)};
  const char* p = data.data();
  size_t n = data.size(), i = 0;
  for (; i + 32 <= n; i += 32)
    for (int l = 0; l < 4; ++l) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * l, 8);
      h[l] = mix(h[l] ^ w) * 0x9e3779b97f4a7c15ull;
    }
  uint64_t tail = 0, r = mix(uint64_t(n));
  for (size_t k = 0; i < n; ++i, ++k) {
    tail |= uint64_t(uint8_t(p[i])) << (8 * (k % 8));
    if (k % 8 == 7) {
      r = mix(r ^ tail);
      tail = 0;
    }
  }
  r = mix(r ^ tail);
  for (int l = 0; l < 4; ++l) r = mix(r ^ h[l]);
  return r;
}

std::string hex64(uint64_t v) { return fmt::format("{:016x}", v); }

}  // namespace thorn::gpu::jit
