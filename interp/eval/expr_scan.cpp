// A syntactic scan of expressions (mentions_name), and the interruption
// flag (see evaluator.hpp).
#include "interp/util/cancel.hpp"

#include "interp/eval/evaluator.hpp"

namespace thorn::eval {

bool mentions_name(const Expr& e, const std::string& name) {
  bool named = e.kind == Expr::Kind::Var || e.kind == Expr::Kind::BinOp || e.kind == Expr::Kind::OpSection;
  if (named && e.name.qualifiers.empty() && e.name.name == name) return true;
  auto sub = [&](const ExprPtr& x) { return x && mentions_name(*x, name); };
  if (sub(e.a) || sub(e.b) || sub(e.c)) return true;
  for (const auto& x : e.list)
    if (sub(x)) return true;
  for (const auto& [f, x] : e.fields)
    if (sub(x)) return true;
  for (const auto& ix : e.indices)
    if (sub(ix.index) || sub(ix.start) || sub(ix.end) || sub(ix.stride)) return true;
  for (const auto& c : e.cases)
    if (sub(c.body)) return true;
  return false;
}

bool may_recurse(const std::string& name, const Expr& body, const EnvPtr& env) {
  return !name.empty() && !is_symbolic(name) && !lookup_value(env, std::string_view(name)) && mentions_name(body, name);
}

void request_interrupt() { request_cancel(); }
void clear_interrupt() { clear_cancel(); }
bool interrupt_requested() { return cancel_requested(); }

// The flag stays set (interp/util/cancel.hpp): the REPL clears it when the
// prompt is back, so parallel workers and fallback paths stop too.
void check_interrupt(const Loc& loc) { check_cancel(loc); }

}  // namespace thorn::eval
