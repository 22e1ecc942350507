#pragma once
// How segmented steps (SegRed, SegScan and their direct paths) split their
// work into thread-pool tasks (internal header). Tasks are handed out
// dynamically, so asking for a few per thread lets a thread the OS delays
// hold up the others less.
#include <algorithm>
#include <cstdint>

#include "interp/exec/host_pool.hpp"

namespace thorn::host {

// Runs fn(s0, s1, worker) over contiguous chunks [s0, s1) of [0, count): at
// most `tasks` chunks (at least one), each a multiple of `align` items
// (but the last).
template <class Fn>
void for_chunks_of(int64_t count, int64_t tasks, int64_t align, Fn&& fn) {
  if (count <= 0) return;
  tasks = std::max<int64_t>(1, tasks);
  align = std::max<int64_t>(1, align);
  int64_t chunk = (count + tasks - 1) / tasks;
  chunk = (chunk + align - 1) / align * align;
  tasks = (count + chunk - 1) / chunk;
  ThreadPool::instance().parallel_for(tasks, [&](int64_t t, int worker) {
    fn(t * chunk, std::min(count, (t + 1) * chunk), worker);
  });
}

// A segment of `size` positions cut into `count` parts of `size` positions
// each (the last may be shorter), every part but the last a multiple of
// `align` positions.
struct Parts {
  int64_t count = 1, size = 0;
  int64_t begin(int64_t q) const { return q * size; }
  int64_t end(int64_t q, int64_t total) const { return std::min(total, (q + 1) * size); }
};

// About `wanted` parts (at least one) of a segment of `size` positions.
inline Parts split_parts(int64_t size, int64_t wanted, int64_t align) {
  Parts p;
  wanted = std::max<int64_t>(1, wanted);
  align = std::max<int64_t>(1, align);
  p.size = (size + wanted - 1) / wanted;
  p.size = std::max<int64_t>(align, (p.size + align - 1) / align * align);
  p.count = std::max<int64_t>(1, (size + p.size - 1) / p.size);
  return p;
}

}  // namespace thorn::host
