// run_on_big_stack (interp/util/big_stack.hpp): one kept helper thread per
// calling thread, nested calls inline, exceptions rethrown.
#include <doctest/doctest.h>

#include <pthread.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "interp/util/big_stack.hpp"

using thorn::run_on_big_stack;

namespace {

constexpr size_t kStack = size_t(64) << 20;

// About 1 KiB of stack a level.
int deep(int n) {
  volatile char pad[1024];
  pad[0] = char(n);
  return n == 0 ? 0 : 1 + deep(n - 1) + (pad[0] == 0x7f ? 1 : 0) - (pad[0] == 0x7f ? 1 : 0);
}

}  // namespace

TEST_CASE("big stack: deep recursion runs, on the same helper thread call after call") {
  int depth = 0;
  run_on_big_stack([&] { depth = deep(32 * 1024); }, kStack);  // about 32 MiB
  CHECK(depth == 32 * 1024);
  pthread_t first{}, second{};
  run_on_big_stack([&] { first = pthread_self(); }, kStack);
  run_on_big_stack([&] { second = pthread_self(); }, kStack);
  CHECK(pthread_equal(first, second));
  CHECK(!pthread_equal(first, pthread_self()));
}

TEST_CASE("big stack: exceptions are rethrown, nested calls run inline, other threads have their own helper") {
  CHECK_THROWS_AS(run_on_big_stack([] { throw std::runtime_error("x"); }, kStack), std::runtime_error);
  pthread_t outer{}, inner{};
  run_on_big_stack(
      [&] {
        outer = pthread_self();
        run_on_big_stack([&] { inner = pthread_self(); }, kStack);
      },
      kStack);
  CHECK(pthread_equal(outer, inner));
  // Usable after an exception.
  int ran = 0;
  run_on_big_stack([&] { ran = 1; }, kStack);
  CHECK(ran == 1);
  std::atomic<int> sum{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) run_on_big_stack([&] { sum += t; }, kStack);
    });
  for (auto& th : ts) th.join();
  CHECK(sum.load() == 100 * (0 + 1 + 2 + 3));
}
