#pragma once
// The host executor's worker threads: one process-wide pool (a cache in the
// sense of DESIGN.md: created on first use, owned here). The calling thread
// takes part as worker 0, so a pool of size 1 runs everything inline.
// THORN_THREADS overrides the number of threads.
#include <cstdint>
#include <functional>

namespace thorn::host {

class ThreadPool {
 public:
  static ThreadPool& instance();

  int size() const { return size_; }

  // Runs fn(task, worker) for every task in [0, ntasks), tasks handed out in
  // increasing order to up to size() threads (worker in [0, size())). If
  // tasks throw, the exception of the lowest-numbered failing task is
  // rethrown here after all threads stopped. Calls from inside a task run
  // inline on the calling thread. A cancellation (interp/util/cancel.hpp)
  // stops handing out tasks: the next task throws Interrupted.
  void parallel_for(int64_t ntasks, const std::function<void(int64_t task, int worker)>& fn);

  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

 private:
  explicit ThreadPool(int threads);
  struct State;
  State* state_;
  int size_;
};

}  // namespace thorn::host
