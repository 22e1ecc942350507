#pragma once
// Forward-mode transformation of element functions over arrays: the
// counterpart of ad_rev.hpp for jvp. The jvp of `map f xs` whose f takes
// rows, builds arrays or contains SOACs is a map of f's generated tangent
// function over the rows of xs and their tangents (dual values: every
// active variable gets a tangent twin, bound next to it), so the planner
// flattens it like any map of maps. The element function's checked AST is
// turned into new AST:
//  - scalar expressions get their tangents from ad_lambda's dual numbers
//    (one direction, the tangent twins of the active names they use);
//  - `map f as` gets `map (jvp f) as ȧs`, recursively (a lambda becomes a
//    lambda emitted in place, capturing the tangent twins of what f
//    captures; a named function or partial application a generated closure);
//  - `reduce (+) 0`, `transpose` and indexing (slices too) apply to the
//    tangent as to the primal (they are linear); a call of a named function
//    calls its generated tangent function.
// Anything else throws Unsupported with the reason (the caller falls back
// to the tape).
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/eval/callable.hpp"

namespace thorn::eval {
class Evaluator;
}

namespace thorn::eval::ad {

// \ḟ1 .. ḟm p1 .. p_nlead ṗ(active leading) p_nlead+1 .. pk ṗ(active rest)
//   -> the tangent of f's result,
// where ḟi is the tangent of free_active[i] (a variable f captures that
// carries a derivative), passed whole. Parameters and results may be floats
// or arrays of floats. `env_key` tells apart closures over the same code
// whose environments hold different values the generated code depends on
// (a local function's captured function values: lower_ad.cpp).
Value fwd_lambda(Evaluator& ev, const Callable& f, const std::vector<bool>& active,
                 const std::vector<std::string>& free_active, size_t nlead, const std::string& env_key = {});

// The evaluator whose SOAC the host backend is planning on this thread, or
// null (exec::dispatch sets it): the flattener lowers jvp2/vjp2 inside a
// mapped function by generating the derivative function here, which needs
// the evaluator's prelude (its rules).
Evaluator* planning_evaluator();
struct PlanningEvaluator {
  explicit PlanningEvaluator(Evaluator& ev);
  ~PlanningEvaluator();
  PlanningEvaluator(const PlanningEvaluator&) = delete;
  PlanningEvaluator& operator=(const PlanningEvaluator&) = delete;
  Evaluator* prev;
};

}  // namespace thorn::eval::ad
