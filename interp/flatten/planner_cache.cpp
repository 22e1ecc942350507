#include "interp/flatten/planner_cache.hpp"

#include <cstdlib>
#include <cstring>
#include <functional>

#include <fmt/format.h>

namespace thorn::flatten {

CachedPlanPtr PlanCache::find(const std::string& key) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  ++stats_.hits;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->plan;
}

void PlanCache::insert(const std::string& key, CachedPlanPtr p) {
  std::lock_guard<std::mutex> g(mu_);
  if (auto it = map_.find(key); it != map_.end()) {
    it->second->plan = std::move(p);
    it->second->anchor = anchor_;
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  while (map_.size() >= kMaxEntries && !lru_.empty()) {
    map_.erase(lru_.back().key);
    lru_.pop_back();
    ++stats_.evictions;
  }
  lru_.push_front(Entry{key, std::move(p), anchor_});
  map_[key] = lru_.begin();
}

void PlanCache::stale() {
  std::lock_guard<std::mutex> g(mu_);
  if (stats_.hits) --stats_.hits;
  ++stats_.misses;
}

bool PlanCache::hot_site(const std::string& site) {
  const uint64_t h = std::hash<std::string>{}(site);
  std::lock_guard<std::mutex> g(mu_);
  SiteCalls& c = sites_[h % kSiteSlots];
  if (c.hash != h || c.generation != anchor_generation_) {
    c = SiteCalls{h, anchor_generation_, 1};
    return false;
  }
  if (c.calls < 2) ++c.calls;
  return c.calls >= 2;
}

PlanCacheStats PlanCache::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  PlanCacheStats s = stats_;
  s.entries = map_.size();
  return s;
}

void PlanCache::clear() {
  std::lock_guard<std::mutex> g(mu_);
  map_.clear();
  lru_.clear();
  sites_.fill(SiteCalls{});
}

void PlanCache::set_anchor(std::shared_ptr<const void> anchor) {
  std::lock_guard<std::mutex> g(mu_);
  anchor_ = std::move(anchor);
  ++anchor_generation_;
}

PlanCache& plan_cache() {
  static PlanCache c;
  return c;
}

bool plan_cache_enabled() {
  static const bool on = [] {
    const char* env = std::getenv("THORN_PLAN_CACHE");
    return !(env && std::strcmp(env, "0") == 0);
  }();
  return on;
}

std::string plan_cache_summary() {
  PlanCacheStats s = plan_cache().stats();
  return fmt::format("plan cache: {} hit{}, {} miss{}, {} entr{}", s.hits, s.hits == 1 ? "" : "s", s.misses,
                     s.misses == 1 ? "" : "es", s.entries, s.entries == 1 ? "y" : "ies");
}

}  // namespace thorn::flatten
