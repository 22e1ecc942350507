#include "interp/exec/host_pool.hpp"

#include "interp/util/cancel.hpp"

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

struct ThreadPool::State {
  std::mutex job_mu;  // one job at a time (callers from different threads queue here)
  std::mutex mu;
  std::condition_variable wake, done;
  std::vector<std::thread> threads;
  bool stop = false;
  uint64_t generation = 0;  // bumped for every job
  // The current job.
  const std::function<void(int64_t, int)>* fn = nullptr;
  int64_t ntasks = 0;
  std::atomic<int64_t> next{0};
  int active = 0;  // helper threads still working on the job
  int64_t failed_task = -1;
  std::exception_ptr error;

  void work(int worker) {
    t_in_task = true;
    for (;;) {
      int64_t t = next.fetch_add(1);
      if (t >= ntasks) break;
      try {
        check_cancel();  // Ctrl-C: stop at the next task boundary
        (*fn)(t, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (failed_task < 0 || t < failed_task) {
          failed_task = t;
          error = std::current_exception();
        }
        next.store(ntasks);  // stop handing out tasks
      }
    }
    t_in_task = false;
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
        {
          std::unique_lock<std::mutex> lock(s.mu);
          s.wake.wait(lock, [&] { return s.stop || s.generation != seen; });
          if (s.stop) return;
          seen = s.generation;
        }
        s.work(w);
        std::lock_guard<std::mutex> lock(s.mu);
        if (--s.active == 0) s.done.notify_all();
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
  State& s = *state_;
  std::lock_guard<std::mutex> job(s.job_mu);
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.fn = &fn;
    s.ntasks = ntasks;
    s.next.store(0);
    s.failed_task = -1;
    s.error = nullptr;
    s.active = size_ - 1;
    ++s.generation;
  }
  s.wake.notify_all();
  s.work(0);
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(s.mu);
    s.done.wait(lock, [&] { return s.active == 0; });
    error = s.error;
    s.error = nullptr;
    s.fn = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace thorn::host
