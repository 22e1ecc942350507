#pragma once
// The host backend behind the dispatcher: flattens a SOAC call into a
// segmented plan (interp/flatten/planner.hpp) and runs it on the CPU cores
// (host_executor.hpp). Calls it cannot flatten go to the reference backend.
//
// With EvalOptions::validate, every call the host backend runs is also run
// on the reference backend, and the results compared: integers and bools
// exactly, floats with a relative tolerance. The first difference is an
// error naming the call's location, the plan step, the element index and
// both values.
#include <optional>

#include "interp/exec/dispatch.hpp"

namespace thorn::exec::host_backend {

// nullopt: run the call on the reference backend.
std::optional<Value> run(SoacCall& call, eval::Evaluator& ev);

// Calls iterating over fewer elements than this run on the reference
// backend: planning costs more than it saves there. THORN_HOST_MIN_WORK
// overrides it (0: flatten everything, as the unit tests do). Break-even
// measured at about 32 elements for a map+reduce nest once listings are only
// formatted on demand (docs/performance.md, "Small calls").
constexpr int64_t kDefaultMinWork = 32;
int64_t min_work();

// Whether plans are printed to stderr as they are made (when no on_plan
// listener takes them): THORN_LOG_PLAN set, or `thorn run --log plan`.
void set_log_plans(bool on);
bool log_plans();

// Relative tolerance of float comparisons under validation.
constexpr double kValidateRelTol = 1e-6;
constexpr double kValidateAbsTol = 1e-9;

// Compares two values as --validate does; empty when they agree, else a
// description of the first difference ("at [3][1]: 1.5f32 vs 1.25f32").
std::string first_difference(const Value& host, const Value& reference, double rel_tol = kValidateRelTol,
                             double abs_tol = kValidateAbsTol);

}  // namespace thorn::exec::host_backend
