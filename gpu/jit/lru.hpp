#pragma once
// The eviction rule the in-memory JIT caches share (kernel_cache.cpp,
// module_cache.cpp): when full, the least recently used quarter goes (at
// least one entry), so that one eviction pays for many insertions.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace thorn::gpu::jit {

// The keys of the least recently used quarter of `entries` (a map from
// string keys), oldest first; `last_use(value)` gives an entry's stamp.
template <class Map, class LastUse>
std::vector<std::string> oldest_quarter(const Map& entries, LastUse last_use) {
  std::vector<std::pair<uint64_t, std::string>> by_age;
  by_age.reserve(entries.size());
  for (const auto& [key, value] : entries) by_age.emplace_back(last_use(value), key);
  std::sort(by_age.begin(), by_age.end());
  by_age.resize(std::min(by_age.size(), std::max<size_t>(1, entries.size() / 4)));
  std::vector<std::string> keys;
  for (auto& [stamp, key] : by_age) keys.push_back(std::move(key));
  return keys;
}

}  // namespace thorn::gpu::jit
