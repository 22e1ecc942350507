// The host executor's thread pool.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "interp/exec/host_pool.hpp"

using thorn::host::ThreadPool;

TEST_CASE("host pool: every task runs once, on a valid worker") {
  ThreadPool& pool = ThreadPool::instance();
  std::vector<std::atomic<int>> hits(1000);
  std::atomic<bool> bad_worker{false};
  pool.parallel_for(1000, [&](int64_t t, int w) {
    hits[size_t(t)]++;
    if (w < 0 || w >= pool.size()) bad_worker = true;
  });
  for (auto& h : hits) REQUIRE(h.load() == 1);
  CHECK(!bad_worker);
}

TEST_CASE("host pool: the lowest failing task's exception is rethrown; nested calls run inline") {
  ThreadPool& pool = ThreadPool::instance();
  try {
    pool.parallel_for(64, [&](int64_t t, int) {
      if (t == 5 || t == 40) throw std::runtime_error("task " + std::to_string(t));
    });
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "task 5");
  }
  std::atomic<int> inner{0};
  pool.parallel_for(4, [&](int64_t, int) { pool.parallel_for(10, [&](int64_t, int) { inner++; }); });
  CHECK(inner.load() == 40);
  // The pool is usable again after a failure.
  std::atomic<int> n{0};
  pool.parallel_for(100, [&](int64_t, int) { n++; });
  CHECK(n.load() == 100);
}

// Tasks are claimed with the job's generation: helpers that wake late (after
// the job, or during a later one) must not run a finished job's function or
// run any task twice. Many short jobs back to back, of 2 to 5 tasks.
TEST_CASE("host pool: back-to-back short jobs each run their own tasks once") {
  ThreadPool& pool = ThreadPool::instance();
  for (int job = 0; job < 20000; ++job) {
    int64_t n = 2 + job % 4;
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    pool.parallel_for(n, [&](int64_t t, int) { hits[size_t(t)]++; });
    for (auto& h : hits) REQUIRE(h.load() == 1);
  }
}
