#pragma once
// Loop interchange for a map around a loop (DESIGN.md, "Flattening"):
//
//   map (\x -> loop acc = init x for i < n do body) xs
//     ==>  loop accs = map (\x -> init x) xs for i < n do map (\x acc -> body) xs accs
//
// when the trip count n does not depend on the mapped element. The
// alternative, the default lowering, runs the loop sequentially inside each
// element (a kir For in the element function). Interchanging pays one
// flattened step per iteration, so it is chosen only where the
// sequentialised form wastes the machine: the loop body has inner
// parallelism (a SOAC, which inside an element would run sequentially) and
// the map is narrower than the executor's lanes on all threads
// (THORN_THREADS x 256). THORN_INTERCHANGE=always / never overrides the
// choice (for tests and measuring). The decision and its reason appear in
// the plan listing (:plan, THORN_LOG_PLAN).
#include <optional>
#include <string>

#include "interp/eval/evaluator.hpp"
#include "interp/exec/dispatch.hpp"

namespace thorn::exec {

struct Interchange {
  std::optional<Value> value;  // set when the map was run interchanged
  std::string note;            // the decision and why; empty when the map is not a map around a loop
};

// `call` is a Map of `n` >= 1 elements.
Interchange try_interchange(const exec::SoacCall& call, eval::Evaluator& ev, int64_t n);

}  // namespace thorn::exec
