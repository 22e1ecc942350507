#pragma once
// Cancellation (Ctrl-C): one process-wide flag, set from a SIGINT handler,
// read by every long-running loop at a point where stopping is safe:
//  - the reference evaluator, at calls and loop iterations;
//  - the host executor, at thread-pool task and tile boundaries and at
//    every iteration of a loop inside kernel IR;
//  - the GPU executor, between kernel launches;
//  - compilations, between kernels.
// A check that finds the flag set throws Interrupted, which unwinds to the
// REPL prompt (or ends `thorn run` with status 130). The flag stays set
// until the REPL clears it (when the prompt is back), so every thread of a
// parallel step sees it and stops, and a fallback path (GPU to host,
// host to reference) stops too instead of redoing the work.
#include "interp/util/error.hpp"

namespace thorn {

// Async-signal-safe (a lock-free atomic store).
void request_cancel() noexcept;
void clear_cancel() noexcept;
bool cancel_requested() noexcept;
// The flag itself, a byte that is non-zero when a cancellation was
// requested: native kernels (interp/exec/native) poll it in their loops
// with a relaxed atomic load.
const void* cancel_flag() noexcept;

// The error a cancelled evaluation unwinds with ("Interrupted.").
class Interrupted : public Error {
 public:
  explicit Interrupted(Loc loc = {}) : Error(ErrorKind::Runtime, loc, "Interrupted.") {}
};

[[noreturn]] void throw_interrupted(const Loc& loc = {});

// Throws Interrupted when a cancellation was requested (the flag stays set).
inline void check_cancel(const Loc& loc = {}) {
  if (cancel_requested()) throw_interrupted(loc);
}

}  // namespace thorn
