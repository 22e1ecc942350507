#include "interp/exec/host_pool.hpp"

#include "interp/util/cancel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace thorn::host {

namespace {
thread_local bool t_in_task = false;

int default_threads() {
  if (const char* env = std::getenv("THORN_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : int(hw);
}
}  // namespace

// A job's tasks are claimed through one atomic ticket: the job's
// generation in the high bits, the next task in the low bits. A helper that
// wakes late (the OS ran something else on its core) finds the ticket of a
// finished job, or of a newer one, and claims nothing: the caller waits only
// for tasks that were claimed, never for helpers to wake up. On a loaded
// machine that wake-up could take a scheduler time slice (milliseconds),
// longer than a memory-bound step's whole work.
struct ThreadPool::State {
  static constexpr int kIndexBits = 40;
  static constexpr uint64_t kIndexMask = (uint64_t(1) << kIndexBits) - 1;

  std::mutex job_mu;  // one job at a time (callers from different threads queue here)
  std::mutex mu;
  std::condition_variable wake, done;
  std::vector<std::thread> threads;
  bool stop = false;
  uint64_t generation = 0;  // bumped for every job
  // The current job (fn and ntasks written under mu).
  const std::function<void(int64_t, int)>* fn = nullptr;
  int64_t ntasks = 0;
  std::atomic<uint64_t> ticket{0};
  std::atomic<int64_t> finished{0};  // tasks run (or skipped) to the end
  std::atomic<bool> failed{false};   // a task threw: later tasks are skipped
  int64_t failed_task = -1;
  std::exception_ptr error;

  static uint64_t tag(uint64_t gen) { return (gen << kIndexBits) >> kIndexBits << kIndexBits; }

  // Runs tasks of job `gen` (fn f, n tasks) until none is left to claim.
  // A successful claim means the job is not over (its task is not finished),
  // so f is alive until this task's `finished` increment.
  void work(int worker, uint64_t gen, const std::function<void(int64_t, int)>* f, int64_t n) {
    const uint64_t want = tag(gen);
    uint64_t t = ticket.load(std::memory_order_acquire);
    for (;;) {
      if ((t & ~kIndexMask) != want || int64_t(t & kIndexMask) >= n) return;
      if (!ticket.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel)) continue;
      int64_t task = int64_t(t & kIndexMask);
      if (!failed.load(std::memory_order_relaxed)) {
        t_in_task = true;
        try {
          check_cancel();  // Ctrl-C: stop at the next task boundary
          (*f)(task, worker);
        } catch (...) {
          std::lock_guard<std::mutex> lock(mu);
          if (failed_task < 0 || task < failed_task) {
            failed_task = task;
            error = std::current_exception();
          }
          failed.store(true, std::memory_order_relaxed);  // skip the tasks not yet started
        }
        t_in_task = false;
      }
      if (finished.fetch_add(1, std::memory_order_acq_rel) + 1 == n) {
        std::lock_guard<std::mutex> lock(mu);
        done.notify_all();
      }
      t = ticket.load(std::memory_order_acquire);
    }
  }
};

ThreadPool& ThreadPool::instance() {
  static ThreadPool pool(default_threads());
  return pool;
}

ThreadPool::ThreadPool(int threads) : state_(new State), size_(threads < 1 ? 1 : threads) {
  for (int w = 1; w < size_; ++w) {
    state_->threads.emplace_back([this, w] {
      State& s = *state_;
      uint64_t seen = 0;
      for (;;) {
        const std::function<void(int64_t, int)>* f;
        int64_t n;
        {
          std::unique_lock<std::mutex> lock(s.mu);
          s.wake.wait(lock, [&] { return s.stop || s.generation != seen; });
          if (s.stop) return;
          seen = s.generation;
          f = s.fn;
          n = s.ntasks;
        }
        if (f) s.work(w, seen, f, n);
      }
    });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stop = true;
  }
  state_->wake.notify_all();
  for (auto& t : state_->threads) t.join();
  delete state_;
}

void ThreadPool::parallel_for(int64_t ntasks, const std::function<void(int64_t, int)>& fn) {
  if (ntasks <= 0) return;
  if (size_ == 1 || ntasks == 1 || t_in_task) {
    // Inline; a nested call keeps the caller's flag as it was.
    bool saved = t_in_task;
    t_in_task = true;
    try {
      for (int64_t t = 0; t < ntasks; ++t) {
        check_cancel();
        fn(t, 0);
      }
    } catch (...) {
      t_in_task = saved;
      throw;
    }
    t_in_task = saved;
    return;
  }
  if (uint64_t(ntasks) > State::kIndexMask) {  // more tasks than a ticket counts: in slices
    for (int64_t base = 0; base < ntasks; base += int64_t(State::kIndexMask)) {
      int64_t n = std::min<int64_t>(int64_t(State::kIndexMask), ntasks - base);
      parallel_for(n, [&](int64_t t, int w) { fn(base + t, w); });
    }
    return;
  }
  State& s = *state_;
  std::lock_guard<std::mutex> job(s.job_mu);
  uint64_t gen;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.fn = &fn;
    s.ntasks = ntasks;
    s.finished.store(0, std::memory_order_relaxed);
    s.failed.store(false, std::memory_order_relaxed);
    s.failed_task = -1;
    s.error = nullptr;
    gen = ++s.generation;
    s.ticket.store(State::tag(gen), std::memory_order_release);
  }
  s.wake.notify_all();
  s.work(0, gen, &fn, ntasks);
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(s.mu);
    s.done.wait(lock, [&] { return s.finished.load(std::memory_order_acquire) == ntasks; });
    error = s.error;
    s.error = nullptr;
    s.fn = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace thorn::host
