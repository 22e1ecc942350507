#include "interp/util/cancel.hpp"

#include <atomic>

namespace thorn {

namespace {
std::atomic<bool> g_cancel{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler needs a lock-free flag");
}  // namespace

void request_cancel() noexcept { g_cancel.store(true, std::memory_order_relaxed); }
void clear_cancel() noexcept { g_cancel.store(false, std::memory_order_relaxed); }
bool cancel_requested() noexcept { return g_cancel.load(std::memory_order_relaxed); }
static_assert(sizeof(std::atomic<bool>) == 1, "native kernels read the flag as one byte");
const void* cancel_flag() noexcept { return &g_cancel; }

void throw_interrupted(const Loc& loc) { throw Interrupted(loc); }

}  // namespace thorn
