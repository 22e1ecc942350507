// jvp2 and vjp2 inside a mapped function (see lower.hpp): Jacobians are
// written `tabulate n (jvp f x <-< onehot)` or `map (\v -> vjp f x v) vs`,
// a map whose element is a derivative. Futhark differentiates before it
// flattens; thorn's lowering does the same per call site: when the
// differentiated function is known when the nest is planned (a closure
// value, or one partially applied to values that are not differentiated),
// its derivative function is generated as AST by the array-level AD's
// element transformations (ad_fwd.cpp: the tangent function; ad_rev.cpp:
// the vjp function) and a call of it is lowered in place, so the enclosing
// map flattens like any map whose element calls a function. A function
// defined inside the element (`let op' b a = op a b in vjp (op' y) x ȳ`,
// ifl23's scan adjoints) is made a closure value when everything it names
// from the element is known when the nest is planned (function values,
// constants). What they cannot differentiate stays a Fallback, with their
// reason.
#include <fmt/format.h>

#include <map>
#include <mutex>
#include <set>

#include "interp/eval/ad_fwd.hpp"
#include "interp/eval/ad_lambda.hpp"
#include "interp/eval/ad_nest_util.hpp"
#include "interp/eval/ad_rev.hpp"
#include "interp/eval/env.hpp"
#include "interp/flatten/lower.hpp"

namespace thorn::flatten {

namespace {

bool has_ascription(const Pattern& p) {
  if (p.kind == Pattern::Kind::Ascribed) return true;
  if (p.inner && has_ascription(*p.inner)) return true;
  for (const auto& e : p.elems)
    if (has_ascription(*e)) return true;
  for (const auto& [f, e] : p.fields)
    if (has_ascription(*e)) return true;
  return false;
}

bool has_type_syntax(const Expr& e) {
  if (e.kind == Expr::Kind::Ascribe || e.kind == Expr::Kind::Coerce || e.kind == Expr::Kind::Lambda ||
      e.kind == Expr::Kind::LetFun || (e.pattern && has_ascription(*e.pattern)))
    return true;
  for (const ExprPtr* x : {&e.a, &e.b, &e.c})
    if (*x && has_type_syntax(**x)) return true;
  for (const auto& x : e.list)
    if (has_type_syntax(*x)) return true;
  for (const auto& [f, x] : e.fields)
    if (has_type_syntax(*x)) return true;
  for (const auto& ix : e.indices)
    for (const ExprPtr* x : {&ix.index, &ix.start, &ix.end, &ix.stride})
      if (*x && has_type_syntax(**x)) return true;
  for (const auto& c : e.cases)
    if (c.body && has_type_syntax(*c.body)) return true;
  return false;
}

// A local function as a closure over the root environment with what it
// names from the element's scopes bound on top: each must be known when
// the nest is planned. `key` gets what distinguishes its environment
// (the derivative code generated for it depends on the functions it calls).
CallablePtr local_closure(const SymFn& fn, std::string& key, int depth) {
  auto refuse = [](const std::string& why) { return Fallback("a function defined inside the mapped function: " + why); };
  if (depth > 4) throw refuse("local functions nested too deep");
  // Without the type environment of the element, no type syntax.
  for (const PatternPtr& p : *fn.params)
    if (has_ascription(*p)) throw refuse("a parameter with a type ascription");
  if (has_type_syntax(*fn.body)) throw refuse("type ascriptions, lambdas or local functions in its body");
  std::set<std::string> names;
  eval::ad::nest::mentioned(*fn.body, names);
  for (const PatternPtr& p : *fn.params) {
    std::vector<std::string> own;
    eval::ad::nest::bound(*p, own);
    for (const auto& n : own) names.erase(n);
  }
  std::vector<std::pair<std::string, eval::Binding>> frame;
  std::set<std::string> seen;
  const Scope* s = fn.scope.get();
  for (; s && s->parent; s = s->parent.get()) {
    if (s->opened) throw refuse("a local open around it");
    for (auto it = s->vars.rbegin(); it != s->vars.rend(); ++it) {
      const auto& [n, sym] = *it;
      if (!names.count(n) || !seen.insert(n).second) continue;
      eval::Binding b;
      if (sym.kind == Sym::Kind::Scalar && sym.known) {
        b.value = Value(*sym.known);
        key += fmt::format("{}={};", n, sym.known->as_f64());
      } else if (sym.kind == Sym::Kind::Function && sym.fn->args.empty() && sym.fn->kind == SymFn::Kind::Value) {
        b.value = Value::function(sym.fn->value);
        key += fmt::format("{}@{};", n, static_cast<const void*>(sym.fn->value.get()));
      } else if (sym.kind == Sym::Kind::Function && sym.fn->args.empty() && sym.fn->kind == SymFn::Kind::Ast) {
        std::string inner;
        b.value = Value::function(local_closure(*sym.fn, inner, depth + 1));
        key += fmt::format("{}{{{}}};", n, inner);
      } else {
        throw refuse(fmt::format("it uses `{}`, computed in the element", n));
      }
      frame.push_back({n, std::move(b)});
    }
  }
  if (!s) throw refuse("no environment");
  auto c = std::make_shared<Callable>();
  c->kind = Callable::Kind::Closure;
  c->name = fn.name;
  c->loc = fn.body->loc;
  c->params = fn.params;
  c->body = fn.body;
  c->type_params = fn.type_params;
  c->env = frame.empty() ? s->env : eval::extend(s->env, std::move(frame));
  return c;
}

// The closures made by local_closure, kept for good: the derivative code
// generated for one is memoised by its code and `key`, which names the
// captured function values by address; keeping them keeps the addresses
// from being reused.
void keep_closure(const std::string& key, CallablePtr c) {
  static std::mutex mu;
  static std::map<std::string, CallablePtr> kept;
  std::lock_guard<std::mutex> lock(mu);
  kept.emplace(key, std::move(c));
}

}  // namespace

Sym Lowerer::lower_ad(const std::string& name, std::vector<Sym> args, const Loc& loc) {
  if (args.size() != 3) throw Fallback(fmt::format("intrinsic {} with {} arguments", name, args.size()));
  const bool forward = name == "jvp2";
  auto refuse = [&](const std::string& why) {
    return Fallback(fmt::format("{} inside a mapped function: {}", name, why));
  };
  eval::Evaluator* ev = eval::ad::planning_evaluator();
  if (!ev) throw refuse("no evaluator to generate the derivative with");
  const Sym& f = args[0];
  if (f.kind != Sym::Kind::Function || (f.fn->kind != SymFn::Kind::Value && f.fn->kind != SymFn::Kind::Ast))
    throw refuse("a function defined inside the mapped function (only one known when the nest is planned)");
  // The closure differentiated and the arguments it is partially applied
  // to (constants of the derivative: jvp/vjp differentiate with respect to
  // x only).
  std::string env_key;
  CallablePtr local;
  if (f.fn->kind == SymFn::Kind::Ast) {
    try {
      local = local_closure(*f.fn, env_key, 0);
    } catch (const Fallback& e) {
      throw refuse(e.what());
    }
    // Its environment is the element's: a cached plan could not find the
    // functions it captured again.
    if (cap_) cap_->refuse("a derivative of a function defined inside the mapped function");
    keep_closure(env_key + fmt::format("|{}", static_cast<const void*>(f.fn->body)), local);
  }
  const Callable* target = local ? local.get() : f.fn->value.get();
  std::vector<Sym> lead = f.fn->args;
  if (!local && target->kind == Callable::Kind::Partial && f.fn->args.empty()) {
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
  if (!local && source_of(*f.fn->value) != -1 && cap_)
    cap_->refuse("a derivative of a function captured from a local environment");
  std::vector<bool> mask(lead.size(), false);
  mask.push_back(true);
  Value gen;
  try {
    gen = forward ? eval::ad::fwd_lambda(*ev, *target, mask, {}, lead.size(), env_key)
                  : eval::ad::rev_lambda(*ev, *target, mask, {}, env_key);
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
