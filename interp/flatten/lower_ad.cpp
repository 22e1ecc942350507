// jvp2 and vjp2 inside a mapped function (see lower.hpp): Jacobians are
// written `tabulate n (jvp f x <-< onehot)` or `map (\v -> vjp f x v) vs`,
// a map whose element is a derivative. Futhark differentiates before it
// flattens; thorn's lowering does the same per call site: when the
// differentiated function is known when the nest is planned (a closure
// value, or one partially applied to values that are not differentiated),
// its derivative function is generated as AST by the array-level AD's
// element transformations (ad_fwd.cpp: the tangent function; ad_rev.cpp:
// the vjp function) and a call of it is lowered in place, so the enclosing
// map flattens like any map whose element calls a function. What they
// cannot differentiate stays a Fallback, with their reason.
#include <fmt/format.h>

#include "interp/eval/ad_fwd.hpp"
#include "interp/eval/ad_lambda.hpp"
#include "interp/eval/ad_rev.hpp"
#include "interp/flatten/lower.hpp"

namespace thorn::flatten {

Sym Lowerer::lower_ad(const std::string& name, std::vector<Sym> args, const Loc& loc) {
  if (args.size() != 3) throw Fallback(fmt::format("intrinsic {} with {} arguments", name, args.size()));
  const bool forward = name == "jvp2";
  auto refuse = [&](const std::string& why) {
    return Fallback(fmt::format("{} inside a mapped function: {}", name, why));
  };
  eval::Evaluator* ev = eval::ad::planning_evaluator();
  if (!ev) throw refuse("no evaluator to generate the derivative with");
  const Sym& f = args[0];
  if (f.kind != Sym::Kind::Function || f.fn->kind != SymFn::Kind::Value)
    throw refuse("a function defined inside the mapped function (only one known when the nest is planned)");
  // The closure differentiated and the arguments it is partially applied
  // to (constants of the derivative: jvp/vjp differentiate with respect to
  // x only).
  const Callable* target = f.fn->value.get();
  std::vector<Sym> lead = f.fn->args;
  if (target->kind == Callable::Kind::Partial && f.fn->args.empty()) {
    if (!target->fn || target->fn->kind != Callable::Kind::Closure)
      throw refuse("a partial application of something other than a named function");
    for (size_t k = 0; k < target->args.size(); ++k) lead.push_back(held_arg(*target, k));
    target = target->fn.get();
  }
  if (target->kind != Callable::Kind::Closure || target->intrinsic_alias() || !target->params || !target->body)
    throw refuse(fmt::format("differentiating {}", target->describe()));
  if (target->params->size() != lead.size() + 1)
    throw refuse("a function of other than one argument left to apply");
  // A closure found through a capture source (a local function value) has
  // an environment a cached plan would have to find again; the generated
  // function's helpers are not in it.
  if (source_of(*f.fn->value) != -1 && cap_) cap_->refuse("a derivative of a function captured from a local environment");
  std::vector<bool> mask(lead.size(), false);
  mask.push_back(true);
  Value gen;
  try {
    gen = forward ? eval::ad::fwd_lambda(*ev, *target, mask, {}, lead.size()) : eval::ad::rev_lambda(*ev, *target, mask, {});
  } catch (const eval::ad::Unsupported& u) {
    throw refuse(u.what());
  }
  Sym primal = apply(f, {args[1]}, loc);
  std::vector<Sym> call = lead;
  call.push_back(args[1]);
  call.push_back(args[2]);
  Sym fn = from_value(gen);
  // A derivative whose code loops (an inner reduction, a loop) is stored
  // once per element, as a costly map's element is: a consumer that reads
  // it by index (flatten, a sum over the Jacobian) would otherwise run the
  // loops again for every entry (n times the work of a forward Jacobian).
  // Private storage also makes the planner build such rows once each.
  bool made_locals = false;
  kir::Block code = probe_block([&] {
    apply(fn, call, loc);
    return std::vector<kir::Reg>{};
  }, &made_locals);
  bool costly = made_locals || kir::has_loop(f_, code);
  Sym derivative = apply(fn, std::move(call), loc);
  if (costly && derivative.kind == Sym::Kind::Array && !dynamic(derivative) && fits_private(derivative, loc))
    derivative = materialise(derivative, loc);
  return Sym::tuple({primal, derivative});
}

}  // namespace thorn::flatten
