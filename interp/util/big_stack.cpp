#include "interp/util/big_stack.hpp"

#include <pthread.h>

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>

namespace thorn {

namespace {

thread_local bool t_on_big_stack = false;

// The calling thread's helper: waits for a job, runs it, signals, repeats.
class Helper {
 public:
  explicit Helper(size_t stack_bytes) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack_bytes);
    started_ = pthread_create(&thread_, &attr, &Helper::main, this) == 0;
    pthread_attr_destroy(&attr);
  }
  ~Helper() {
    if (!started_) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    pthread_join(thread_, nullptr);
  }
  Helper(const Helper&) = delete;
  Helper& operator=(const Helper&) = delete;

  bool started() const { return started_; }

  void run(const std::function<void()>& body) {
    std::exception_ptr error;
    {
      std::unique_lock<std::mutex> lock(mu_);
      job_ = &body;
      done_ = false;
      cv_.notify_all();
      cv_.wait(lock, [&] { return done_; });
      error = error_;
      error_ = nullptr;
    }
    if (error) std::rethrow_exception(error);
  }

 private:
  static void* main(void* self) {
    auto* h = static_cast<Helper*>(self);
    t_on_big_stack = true;
    std::unique_lock<std::mutex> lock(h->mu_);
    for (;;) {
      h->cv_.wait(lock, [&] { return h->stop_ || h->job_ != nullptr; });
      if (h->stop_) return nullptr;
      const std::function<void()>* job = h->job_;
      lock.unlock();
      std::exception_ptr error;
      try {
        (*job)();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      h->job_ = nullptr;
      h->error_ = error;
      h->done_ = true;
      h->cv_.notify_all();
    }
  }

  pthread_t thread_{};
  bool started_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  const std::function<void()>* job_ = nullptr;
  std::exception_ptr error_;
  bool done_ = false;
  bool stop_ = false;
};

}  // namespace

void run_on_big_stack(const std::function<void()>& body, size_t stack_bytes) {
  if (t_on_big_stack) {  // nested: already there
    body();
    return;
  }
  thread_local std::unique_ptr<Helper> helper;
  if (!helper || !helper->started()) helper = std::make_unique<Helper>(stack_bytes);
  if (!helper->started()) {
    body();  // no thread (resource limits): run here, with the ordinary stack
    return;
  }
  helper->run(body);
}

}  // namespace thorn
