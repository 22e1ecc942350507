#pragma once
// The mapped function's body opened up for map distribution
// (map_distribute.hpp): partial applications as closures, pipelines as
// lets, local functions bound once or defined again around each step.
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "interp/eval/evaluator.hpp"

namespace thorn::exec {

// Whether a type mentions, as a size, one of `names` (sizes bound inside
// the element: such an intermediate array may differ in size from element
// to element, and an array of them would be irregular).
bool sized_by(const TypePtr& t, const std::set<std::string>& names);

// `e |> f` with the prelude's name.
bool is_pipe(const Expr* e);

// A local function as the evaluator binds a LetFun (eval_expr.cpp), in env.
eval::Binding local_function(const Expr& letfun, eval::EnvPtr env, eval::TypeEnvPtr tenv);

// `let f1 .. in .. let fk .. in value`: value with the local functions it
// reads defined again around it (see the definition).
const Expr* with_local_functions(const ExprPtr& value, const std::vector<const Expr*>& funs);

// A partial application of a named function (`map (sort_by key nbits)
// xss`) as a closure over the parameters it still takes; null for
// anything else.
std::optional<Value> closure_of_partial(const Value& fv, eval::Evaluator& ev);

// `e0 |> f1 |> ... |> fk` as lets (see the definition).
struct PipelineLets {
  // The pipeline's last two operands, owned: while cached they cannot be
  // freed, so a body at a reused address (a later REPL input) is told apart.
  ExprPtr last_a, last_b;
  std::vector<ExprPtr> nodes;  // copies of the stages (the first as it is), and the Vars they read
  std::vector<PatternPtr> patterns;
  std::vector<const Expr*> values;  // of the lets
  const Expr* result = nullptr;
};
std::shared_ptr<const PipelineLets> pipeline_lets(const Expr* body);

// fv (a closure) with the local functions at the head of its body that
// name nothing of the element bound in its environment; null when there
// are none.
std::optional<Value> without_invariant_local_functions(const Value& fv);

}  // namespace thorn::exec
