#pragma once
// A fast 64-bit hash for cache keys and cache-entry checksums (not for
// security: the kernel cache trusts its own directory).
#include <cstdint>
#include <string>
#include <string_view>

namespace thorn::gpu::jit {

uint64_t hash64(std::string_view data, uint64_t seed = 0);
std::string hex64(uint64_t v);  // 16 lowercase hex digits

}  // namespace thorn::gpu::jit
