// Parametric module types (`(X: S) -> T`): the abstract functor one
// describes, and matching a parametric module against one.
//
// Futhark's matchMods for two parametric modules: the module type's
// parameter must match the module's parameter (contravariantly), and the
// module's body, for that parameter, must match the module type's result.
// Here the module is applied to the environment the module type's parameter
// describes (abstract types as rigid types), which checks the first, and
// its result is ascribed the module type's result, which checks the second.
#include <fmt/format.h>

#include "interp/types/checker_impl.hpp"

namespace thorn::types {

ModPtr CheckerImpl::sig_module(const SigExprPtr& sig) {
  // Follow module type names to what they stand for, in the environment
  // each was declared in.
  SigExprPtr s = sig;
  EnvPtr closure;
  for (int depth = 0; s->kind == SigExpr::Kind::Name && depth < 100; ++depth) {
    SigPtr found;
    if (s->name.qualifiers.empty()) {
      found = find_sig(s->name.name);
    } else {
      const Env& env = module_path(s->name.qualifiers, s->loc);
      if (auto it = env.sigs.find(s->name.name); it != env.sigs.end()) found = it->second;
    }
    if (!found) error(s->loc, fmt::format("Unknown module type \"{}\"", s->name.str()));
    if (found->expr->kind != SigExpr::Kind::Name && found->expr->kind != SigExpr::Kind::Arrow) break;
    s = found->expr;
    closure = found->closure;
  }
  if (s->kind != SigExpr::Kind::Arrow) {
    auto m = std::make_shared<ModBinding>();
    m->env = sig_env(sig);
    return m;
  }
  // An abstract functor: no body; an application gives its result module
  // type's module, with the parameter bound to the argument.
  auto f = std::make_shared<ModBinding>();
  f->params = {{s->arrow_param, s->base}};
  f->result_sig = s->arrow_result;
  f->closure = closure ? closure : std::make_shared<Env>(visible());
  return f;
}

void CheckerImpl::match_functor(const ModPtr& have, const SigExprPtr& sig, Loc loc, const std::string& prefix) {
  ModPtr want = sig_module(sig);
  if (want->env) error(loc, "Cannot match parametric module with non-parametric module type.");
  if (have->env) error(loc, "Cannot match non-parametric module with parametric module type.");
  // The module type's parameter, as a module (read where it was declared).
  ModScope ps;
  ps.visible = *want->closure;
  ModPtr param;
  with_scope(ps, [&] { param = sig_module(want->params[0].second); });
  // A parametric parameter (`(F: (X: S) -> T) -> U`) is not matched here (a
  // lenient approximation): applying the module to it would need its body
  // checked against an abstract functor.
  if (!param->env) return;
  ModExpr at;  // the application's checked copy of the body is not needed
  at.loc = loc;
  ModPtr result = apply_functor(have, param, at, prefix);
  ModScope rs;
  rs.visible = *want->closure;
  if (!want->params[0].first.empty()) rs.visible.mods[want->params[0].first] = param;
  with_scope(rs, [&] {
    if (result->env) {
      if (is_functor_sig(want->result_sig))
        error(loc, "Cannot match non-parametric module with parametric module type.");
      ascribe(result->env, want->result_sig, loc, prefix);
    } else {
      match_functor(result, want->result_sig, loc, prefix);
    }
  });
}

}  // namespace thorn::types
