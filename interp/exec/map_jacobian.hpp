#pragma once
// Jacobians written as a map of derivatives (Futhark's usual idiom):
//
//   tabulate n (\i -> vjp f x (onehot i))      map (vjp f x) seeds
//   tabulate n (\i -> jvp f x (onehot i))      map (\s -> jvp2 f x s) seeds
//
// When the function differentiated and the point it is differentiated at
// are the same in every element (they name nothing the element binds),
// only the seed varies, and the map is the vector AD of Futhark's prelude:
//
//     ==>  let seeds = map (\i -> onehot i) (iota n)   -- an ordinary map
//          in mjp f x seeds                              -- jmp for jvp
//
// which runs on the array-level AD (ad_sweep.hpp): one forward sweep, then
// one return sweep per seed (forward mode: one sweep per seed), every SOAC
// in them flattened as usual. The element-wise transformation
// (lower_ad.cpp, one flattened map computing every row at once) is tried
// first; this rule takes the maps it cannot differentiate (tuples, scans,
// reductions other than +, reduce_by_index), which would otherwise run on
// the reference backend.
#include <optional>
#include <string>

#include "interp/eval/evaluator.hpp"
#include "interp/exec/dispatch.hpp"

namespace thorn::exec {

struct Jacobian {
  std::optional<Value> value;  // set when the map was run as vector AD
  std::string note;            // what was done, for the plan listing
};

// `call` is a Map of `n` >= 1 elements.
Jacobian try_jacobian(const exec::SoacCall& call, eval::Evaluator& ev, int64_t n);

}  // namespace thorn::exec
