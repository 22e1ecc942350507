#pragma once
// The native tier's policy (internal header): which steps get compiled,
// when, and where the results live.
//
// THORN_NATIVE selects the mode:
//   0 / off   the interpreter runs everything;
//   sync      a step is compiled before its first run (tests, benchmarks);
//   tiered    (the default) a new kernel runs on the interpreter at once; a
//             hot one (run before, or with much work) is compiled on a
//             background thread and used once loaded (a run in progress
//             switches between its chunks), so the REPL never waits for the
//             compiler.
// Kernels are keyed by their structure (gpu/codegen/fingerprint.hpp): the
// same nest at another size or with other captured values reuses the code.
// Loaded objects are never unloaded: a kernel is a few KiB of code, and a
// pointer handed to a running step must stay valid.
#include <atomic>
#include <cstdint>

#include "interp/exec/native/native_abi.hpp"
#include "interp/flatten/plan.hpp"

namespace thorn::host::native {

enum class Mode { Off, Sync, Tiered };

Mode mode();
void set_mode(Mode m);  // for tests; overrides THORN_NATIVE

// The step's native entries when they are ready, else null (the interpreter
// runs it). Counts the run towards the step's hotness.
// In tiered mode, while the step's code is queued or compiling, *pending is
// set to a slot that holds the entries once they are ready, so that a long
// run can switch to them between its chunks (StepEnv::promoted); when they
// are ready already, *pending is set too. `hot`: compile the step whatever
// its count of runs and elements (it has been running long, StepEnv::
// promoted_late).
const Entries* lookup(const plan::Step& step, const std::atomic<const Entries*>** pending = nullptr,
                      bool hot = false);

// Blocks until the background compiler has nothing queued or running.
void wait_idle();

struct Stats {
  int compiled = 0;   // by the compiler
  int from_disk = 0;  // loaded from the disk cache
  int failed = 0;     // the compiler failed or the object did not load
  int skipped = 0;    // unsupported or too large
  double compile_ms = 0;  // total time of the compilations and loads
  double last_ms = 0;     // the most recent one
  int64_t fallbacks = 0;  // ranges a native entry handed back to the interpreter
};
Stats stats();

// Counts a range the interpreter ran after a native entry reported a failure.
void note_fallback();

}  // namespace thorn::host::native
