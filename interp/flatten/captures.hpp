#pragma once
// What a lowered element function depends on, recorded so that its plan can
// be reused (the plan cache, planner_cache.hpp): the "sources" of every
// run-time value the lowering looked at, and how each free array of the
// function is bound.
//
// A source is a path from the SOAC call: the mapped function itself, an
// input array, a variable captured in a closure's local environment (found
// by name from its parent source, a closure), or an argument a partial
// application holds. Captured scalars are lifted into kernel-IR
// parameters: a Read of a one-element buffer (hoisted to the function's
// entry block), so a later call with other values only rebinds buffers.
// Arrays keep their shapes and offsets in the source's signature (they are
// baked into the IR); the outer size of the SOAC's own inputs is left out,
// since the element function never uses it.
//
// A cache hit re-resolves every source from the new call (env lookups by
// name, argument positions), checks each value's signature against the
// recorded one, and binds buffers: no lowering, no verification.
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "interp/core/value.hpp"

namespace thorn::flatten {

struct CaptureSource {
  enum class Step : uint8_t { Fn, Input, EnvName, Arg, InnerFn };
  Step step = Step::Fn;
  int parent = -1;     // EnvName, Arg, InnerFn: the source this one is found from
  std::string name;    // EnvName: the variable
  int k = 0;           // Input: argument position in the call; Arg: argument position in a Partial
  std::string sig;     // signature of the value (signature())
};

// How one free array of the cached function is bound on each run. An
// Output (a row-wise map's result, written by the function) is allocated
// afresh by the caller on every run: rebind leaves it null.
struct ReadBinding {
  enum class Kind : uint8_t { Fixed, SourceArray, Param, Output };
  Kind kind = Kind::Fixed;
  BufferPtr fixed;     // Fixed: a module-level array (immutable)
  int source = -1;     // SourceArray, Param
  int leaf = 0;        // index among the source's array leaves / scalar leaves
  Prim prim = Prim::I32;
};

struct CaptureLog {
  bool lift = true;        // captured scalars become parameters (else constants, and not cacheable)
  // Delayed arrays of at most this many elements are materialised when
  // their signature is taken, so that a plan reading them can be cached
  // (0: a delayed array makes the plan uncacheable). The planner sets it at
  // call sites it has already planned (PlanCache::hot_site).
  int64_t copy_delayed_up_to = 0;
  bool cacheable = true;
  std::string why_not;     // first reason it is not cacheable
  bool lifted = false;     // some scalar became a parameter
  std::vector<CaptureSource> sources;
  std::vector<ReadBinding> reads;  // per free array of the function (filled as they are created)
  // A free array shared by two sources (same buffer): that (source, leaf) must bind to it again.
  std::vector<std::tuple<int, int, int>> aliases;  // (source, array leaf, free array)
  std::unordered_map<const Callable*, int> callable_src;  // closures found through a source
  std::map<std::tuple<int, int, std::string, int>, int> dedup;

  void refuse(const std::string& why) {
    if (cacheable) why_not = why;
    cacheable = false;
  }
  // The source id for (parent, step, name, k), and whether it is new.
  std::pair<int, bool> source(int parent, CaptureSource::Step step, const std::string& name, int k);
};

// Leaves of a source value in the canonical order: scalars (parameters) and
// array leaf buffers. `outer_free`: the array's outer size is not in the signature.
struct SourceLeaves {
  std::vector<Scalar> scalars;
  std::vector<BufferPtr> arrays;
};
// The value's signature (structure, types, shapes, offsets, function
// identity); false when it cannot be cached (why in `why`). A delayed array
// of at most `copy_delayed_up_to` elements is materialised first (its
// producer runs now); a larger one, or any with 0, fails.
bool signature(const Value& v, bool outer_free, std::string& sig, SourceLeaves* leaves, std::string* why,
               int64_t copy_delayed_up_to = 0);

// Resolves every source against a new call (fn, the call's arguments) and
// binds the free arrays; false when anything differs from the recording
// (the caller then plans afresh).
// `copy_delayed_up_to`: as the recording's CaptureLog had it.
bool rebind(const std::vector<CaptureSource>& sources, const std::vector<ReadBinding>& reads,
            const std::vector<std::tuple<int, int, int>>& aliases, const Value& fn, const std::vector<Value>& args,
            std::vector<BufferPtr>& out, int64_t copy_delayed_up_to = 0);

}  // namespace thorn::flatten
