#pragma once
// Map distribution (seed 004, notes-flattening.md; Futhark's moderate
// flattening): a map whose body is a sequence of lets with inner
// parallelism becomes a sequence of maps, one per let, each planned on its
// own, so that every inner SOAC gets its own segmented step over the whole
// nest:
//
//   map (\x -> let a = e1 in let b = scan op ne a in r) xs
//     ==>  let as = map (\x -> e1) xs                  -- flat map: delayed, fused into its consumer
//          let bs = map (\x a -> scan op ne a) xs as   -- map of scan: one SegScan
//          in map (\x a b -> r) xs as bs
//
// Each new map passes only the earlier results its expression names. Two
// more rules open up bodies that are not let-sequences:
//  - a call of a user function, `map (\x -> f (g x)) xs`: the arguments
//    are mapped first, then `map f args` is planned (and distributed)
//    with f's own body;
//  - a map of a map, `map (\x -> map f (g x)) xs`: the rows are
//    flattened, `map f` runs over all n*m elements (and is distributed in
//    turn), and the result is unflattened; a lambda f that captures x's
//    values gets them as parameters, repeated for each inner element;
//  - `if c then a else b` with a SOAC in a branch: the elements split by
//    c, each branch one map over its own elements, rows put back in order.
//
// The alternative, the default lowering, runs the inner SOACs sequentially
// inside each element (map_rows), which is right when the outer map alone
// fills the machine. Distribution is chosen when the map is narrower than
// the executor's lanes on all threads (THORN_THREADS x 256; under
// --backend gpu, than the threads the GPU keeps resident) and the body has
// inner parallelism; THORN_DISTRIBUTE=always / never overrides the choice.
// The decision and its reason appear in the plan listing (:plan).
//
// Intermediate results whose size depends on the element (filter) would
// make an irregular array: a let whose type has a size bound inside the
// element is not distributed.
#include <optional>
#include <string>

#include "interp/eval/evaluator.hpp"
#include "interp/exec/dispatch.hpp"

namespace thorn::exec {

struct Distribution {
  std::optional<Value> value;  // set when the map was run distributed
  std::string note;            // the decision and why; empty when the rule does not apply
};

// `call` is a Map of `n` >= 1 elements.
Distribution try_distribute(const exec::SoacCall& call, eval::Evaluator& ev, int64_t n);

// Whether a distributed map's lets are running: a let's map whose rows the
// planner finds irregular then ends the distribution (an irregular_array
// error) instead of running on the reference backend only to build the
// irregular intermediate and fail.
bool distributing();

}  // namespace thorn::exec
