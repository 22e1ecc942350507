#include "interp/exec/native/native_registry.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "gpu/codegen/fingerprint.hpp"
#include "interp/exec/host_backend.hpp"
#include "interp/exec/native/native_compiler.hpp"
#include "interp/exec/native/native_source.hpp"

namespace thorn::host::native {

namespace {

// A step this large is worth compiling on its first run (tiered mode): the
// interpreter runs this run, the compiled code the next.
constexpr int64_t kHotWork = int64_t(1) << 18;
// So is one whose elements together run about this many instructions
// (kir::estimated_work): a few heavy elements, each a row's whole work (a
// flash-attention row: 10^7 instructions), would otherwise run interpreted
// until time-based hotness (StepEnv::promoted_late) catches them, and a
// tile of such a step is a whole row. About 0.1 s on the interpreter.
constexpr int64_t kHotInstructions = int64_t(1) << 25;
// Units larger than this stay interpreted: the compiler's time grows with
// the unit (a 4 MB unit took 45 s), and such kernels are rare.
constexpr size_t kDefaultMaxSource = 256 * 1024;

size_t max_source() {
  static const size_t v = [] {
    const char* e = std::getenv("THORN_NATIVE_MAX_SOURCE");
    return e ? size_t(std::max(0ll, std::atoll(e))) : kDefaultMaxSource;
  }();
  return v;
}

Mode mode_from_env() {
  const char* e = std::getenv("THORN_NATIVE");
  if (!e) return Mode::Tiered;
  if (!std::strcmp(e, "0") || !std::strcmp(e, "off")) return Mode::Off;
  if (!std::strcmp(e, "sync")) return Mode::Sync;
  return Mode::Tiered;
}

std::atomic<Mode> g_mode{mode_from_env()};
std::atomic<int64_t> g_fallbacks{0};

enum class State { Cold, Queued, Compiling, Ready, Failed };

struct Entry {
  State state = State::Cold;
  int64_t runs = 0;
  Entries entries;
  std::atomic<const Entries*> ready{nullptr};  // &entries once Ready: read without the lock
  std::string source;  // while Queued
  std::string name;    // for log lines
};

void log(const std::string& line) {
  if (exec::host_backend::log_plans()) std::fprintf(stderr, "native: %s\n", line.c_str());
}

class Registry {
 public:
  const Entries* lookup(const plan::Step& step, const std::atomic<const Entries*>** pending, bool hot_now) {
    Mode m = g_mode.load();
    if (m == Mode::Off || broken_) return nullptr;
    std::string key = gpu::cg::structural_key(step, /*keep_divisors=*/true);  // as native_source lifts
    std::unique_lock lk(mu_);
    Entry& e = entries_[key];
    ++e.runs;
    if (e.state == State::Ready) {
      if (pending) *pending = &e.ready;
      return &e.entries;
    }
    if (e.state == State::Failed) return nullptr;
    if (e.state == State::Cold) {
      const int64_t elements = step.segments * step.segment_size;
      bool hot = hot_now || m == Mode::Sync || e.runs >= 2 || elements >= kHotWork ||
                 elements * std::min(kir::estimated_work(step.element), kHotInstructions) >= kHotInstructions;
      if (!hot) return nullptr;
      if (!prepare(step, e)) return nullptr;
      e.state = State::Queued;
      if (m == Mode::Tiered) {
        queue_.push_back(&e);
        start_worker();
        cv_.notify_all();
        if (pending) *pending = &e.ready;
        return nullptr;
      }
      e.state = State::Compiling;
      lk.unlock();
      compile(e);
      lk.lock();
      done_.notify_all();
      return e.state == State::Ready ? &e.entries : nullptr;
    }
    if (m == Mode::Sync) {  // queued or compiling elsewhere: wait for it
      done_.wait(lk, [&] { return e.state == State::Ready || e.state == State::Failed; });
      return e.state == State::Ready ? &e.entries : nullptr;
    }
    if (pending) *pending = &e.ready;
    return nullptr;
  }

  void wait_idle() {
    std::unique_lock lk(mu_);
    done_.wait(lk, [&] { return queue_.empty() && busy_ == 0; });
  }

  Stats stats() {
    std::lock_guard lk(mu_);
    return stats_;
  }

 private:
  // Generates the unit (on the caller's thread: the step may not outlive
  // this call). False when the step stays interpreted. Called under mu_.
  bool prepare(const plan::Step& step, Entry& e) {
    e.name = fmt::format("{} {}{}", plan::step_kind_name(step.kind), step.element.name,
                         step.loc.known() ? " at " + step.loc.str() : "");
    std::string why = unsupported(step);
    if (why.empty()) {
      Source src = generate(step);
      if (src.text.size() > max_source())
        why = fmt::format("{} bytes of C++, over the limit of {} (THORN_NATIVE_MAX_SOURCE)", src.text.size(),
                          max_source());
      else
        e.source = std::move(src.text);
    }
    if (!why.empty()) {
      e.state = State::Failed;
      ++stats_.skipped;
      log(fmt::format("{} stays interpreted: {}", e.name, why));
      return false;
    }
    return true;
  }

  // Compiles e.source outside the lock; publishes the result under it.
  void compile(Entry& e) {
    Built b;
    std::string error;
    bool broken = false;
    bool ok = build(e.source, b, error, broken);
    std::lock_guard lk(mu_);
    e.source.clear();
    e.source.shrink_to_fit();
    stats_.last_ms = b.ms;
    stats_.compile_ms += b.ms;
    if (ok) {
      e.entries = b.entries;
      e.state = State::Ready;
      e.ready.store(&e.entries, std::memory_order_release);
      ++(b.from_disk ? stats_.from_disk : stats_.compiled);
      log(fmt::format("{} compiled in {:.1f} ms{}", e.name, b.ms, b.from_disk ? " (disk cache)" : ""));
      return;
    }
    e.state = State::Failed;
    if (process_exiting()) return;  // cut short by the exit handler: nothing failed
    ++stats_.failed;
    if (broken) {
      // One line, once: everything keeps running on the interpreter.
      if (!broken_.exchange(true))
        std::fprintf(stderr, "thorn: native host kernels are off: %s; the interpreter runs them\n", error.c_str());
      return;
    }
    log(fmt::format("{} stays interpreted: {}", e.name, error));
  }

  void start_worker() {
    if (worker_started_) return;
    worker_started_ = true;
    // Detached, on a registry that is never destroyed: a compilation still
    // running at exit must not race with static destructors.
    std::thread([this] {
      std::unique_lock lk(mu_);
      for (;;) {
        cv_.wait(lk, [&] { return !queue_.empty(); });
        // Newest first: the kernel asked for last is the one most likely
        // running now (a long run switches to it between chunks), while
        // those before it may have finished (finpar/OptionPricing's setup
        // maps held its main reduction's compile back past its end).
        Entry* e = queue_.back();
        queue_.pop_back();
        e->state = State::Compiling;
        ++busy_;
        lk.unlock();
        compile(*e);
        lk.lock();
        --busy_;
        done_.notify_all();
      }
    }).detach();
  }

  std::mutex mu_;
  std::condition_variable cv_, done_;
  std::unordered_map<std::string, Entry> entries_;  // node-based: Entry addresses stay valid
  std::deque<Entry*> queue_;
  int busy_ = 0;
  bool worker_started_ = false;
  std::atomic<bool> broken_{false};
  Stats stats_;
};

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry;  // never destroyed (see start_worker)
    // The plan log ends with what the tier did: ranges handed back to the
    // interpreter are the first thing to look at when native code seems slow.
    if (exec::host_backend::log_plans())
      std::atexit([] {
        Stats s = native::stats();
        if (s.compiled + s.from_disk + s.failed + s.skipped > 0)
          std::fprintf(stderr, "native: %d kernels compiled (%.0f ms), %d from the disk cache, %d failed, %d skipped; "
                               "%lld ranges handed back to the interpreter\n",
                       s.compiled, s.compile_ms, s.from_disk, s.failed, s.skipped, (long long)s.fallbacks);
      });
    return reg;
  }();
  return *r;
}

}  // namespace

Mode mode() { return g_mode.load(); }
void set_mode(Mode m) { g_mode = m; }
const Entries* lookup(const plan::Step& step, const std::atomic<const Entries*>** pending, bool hot) {
  return registry().lookup(step, pending, hot);
}
void wait_idle() { registry().wait_idle(); }
Stats stats() {
  Stats s = registry().stats();
  s.fallbacks = g_fallbacks.load();
  return s;
}
void note_fallback() { ++g_fallbacks; }

}  // namespace thorn::host::native
