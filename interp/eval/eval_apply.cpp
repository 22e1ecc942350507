// Function application: closures, partial application, sections, operators.
#include <new>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "interp/eval/evaluator.hpp"
#include "interp/eval/intrinsics.hpp"
#include "interp/eval/scalar_ops.hpp"
#include "interp/eval/size_infer.hpp"
#include "interp/eval/value_ops.hpp"
#include "interp/util/cancel.hpp"
#include "interp/util/resources.hpp"

namespace thorn {

int Callable::param_count() const {
  switch (kind) {
    case Kind::Closure: return params ? int(params->size()) : 0;
    case Kind::Partial: return fn->param_count() - int(args.size());
    case Kind::Operator: return 2;
    case Kind::RightSection:
    case Kind::Projection:
    case Kind::IndexSection: return 1;
    case Kind::Intrinsic: return arity - int(args.size());
  }
  return 0;
}

std::optional<std::string> Callable::intrinsic_alias() const {
  if (kind == Kind::Intrinsic && args.empty()) return name;
  if (kind != Kind::Closure || !body || !params || body->kind != Expr::Kind::Intrinsic) return std::nullopt;
  if (body->list.size() != params->size()) return std::nullopt;
  for (size_t k = 0; k < params->size(); ++k) {
    const Pattern* p = (*params)[k].get();
    while (p->kind == Pattern::Kind::Ascribed) p = p->inner.get();
    const Expr& arg = *body->list[k];
    if (p->kind != Pattern::Kind::Id || arg.kind != Expr::Kind::Var || !arg.name.qualifiers.empty() ||
        arg.name.name != p->name)
      return std::nullopt;
  }
  return body->text;
}

std::string Callable::describe() const {
  switch (kind) {
    case Kind::Closure: return name.empty() ? "lambda" : "function " + name;
    case Kind::Partial: return "partial application of " + fn->describe();
    case Kind::Operator: return "operator " + name;
    case Kind::RightSection: return "section of " + fn->describe();
    case Kind::Projection: return "projection section";
    case Kind::IndexSection: return "index section";
    case Kind::Intrinsic: return "intrinsic " + name;
  }
  return "function";
}

namespace eval {

Value builtin_operator(BuiltinOp op, const Value& x, const Value& y);  // eval_expr.cpp

namespace {
// Sets Evaluator::user_call_loc for the duration of an application written
// in user code (not in a "[prelude]/..." file). [thorn wiring]
struct UserCallLoc {
  Loc& slot;
  Loc saved;
  bool set;
  UserCallLoc(Loc& s, const Loc& loc)
      : slot(s), set(loc.known() && !loc.in_prelude()) {
    if (set) saved = slot, slot = loc;
  }
  ~UserCallLoc() {
    if (set) slot = saved;
  }
};

// Arguments for parameters of one type parameter (`pair 't (x: t) (y: t)`)
// have one type, sizes included (Futhark's shapes/polymorphic1): arrays of
// different shapes are an error. Size-lifted parameters ('~t) are exempt.
void check_type_param_shapes(const Callable& c, const std::vector<Value>& args, const Loc& loc) {
  std::vector<std::pair<const std::string*, const Value*>> seen;
  for (size_t k = 0; k < c.params->size() && k < args.size(); ++k) {
    if (args[k].kind != Value::Kind::Array) continue;
    const Pattern& p = *(*c.params)[k];
    if (p.kind != Pattern::Kind::Ascribed || !p.ascription) continue;
    const TypeExpr& te = *p.ascription;
    if (te.kind != TypeExpr::Kind::Name || !te.name.qualifiers.empty() || !te.args.empty()) continue;
    const TypeParam* tp = nullptr;
    for (const auto& q : *c.type_params)
      if (!q.is_size && !q.lifted && q.name == te.name.name) tp = &q;
    if (!tp) continue;
    for (const auto& [name, v] : seen)
      if (*name == tp->name && v->array->shape != args[k].array->shape)
        throw Error(ErrorKind::Runtime, loc,
                    fmt::format("Arguments of type `{}` differ in shape: {} and {}.", tp->name, shape_of(*v),
                                shape_of(args[k])));
    seen.emplace_back(&tp->name, &args[k]);
  }
}
}  // namespace

Value Evaluator::apply(const Value& fnv, std::vector<Value> args, const Loc& loc) {
  try {
    return apply_curried(fnv, std::move(args), loc);
  } catch (const std::bad_alloc&) {
    // An allocation check missed (a container of boxed values, say): still
    // the program's resource error, located at this call.
    throw out_of_memory_error(loc);
  } catch (const std::length_error&) {
    throw out_of_memory_error(loc);
  } catch (OutOfMemory& e) {
    // Raised where no location is known (a buffer allocation): the
    // innermost call is where it happened.
    if (!e.loc.known() && loc.known()) e.loc = loc;
    if (e.loc.in_prelude() && loc.known() && !loc.in_prelude()) {
      e.notes.push_back(fmt::format("(raised in the prelude at {})", e.loc.str()));
      e.loc = loc;
    }
    throw;
  } catch (const Interrupted&) {
    throw;  // keeps its type: `thorn run` exits with 130 for it
  } catch (Error& e) {
    // A run-time error inside a prelude function (`head []`) is reported at
    // the user's call, which is what the user can act on.
    if (e.kind == ErrorKind::Runtime && e.loc.in_prelude() && loc.known() && !loc.in_prelude()) {
      std::vector<std::string> notes = e.notes;
      notes.push_back(fmt::format("(raised in the prelude at {})", e.loc.str()));
      throw Error(e.kind, loc, e.message, std::move(notes));
    }
    if (e.kind == ErrorKind::Runtime && !loc.in_prelude()) e.add_call_site(loc);
    throw;
  }
}

Value Evaluator::apply_curried(const Value& fnv, std::vector<Value> args, const Loc& loc) {
  UserCallLoc user_loc_scope(user_call_loc, loc);
  if (fnv.kind != Value::Kind::Function) throw Error(ErrorKind::Internal, loc, "application of a non-function");
  CallablePtr fn = fnv.fn;
  for (;;) {
    int n = fn->param_count();
    // A left section `(x op)` of an operator defined with one parameter
    // (`def (*>) = scale`, scale returning a function) is a Partial with
    // nothing left to take: it is the operator applied to all of them.
    if (n <= 0 && fn->kind == Callable::Kind::Partial && !args.empty()) {
      std::vector<Value> all = fn->args;
      for (auto& a : args) all.push_back(std::move(a));
      args = std::move(all);
      fn = fn->fn;
      continue;
    }
    if (int(args.size()) < n || n <= 0) {
      if (args.empty()) return Value::function(fn);
      // Too few arguments: remember them. Partials of partials are flattened
      // so that a consumer sees the original function and all arguments.
      auto c = std::make_shared<Callable>();
      c->kind = Callable::Kind::Partial;
      c->loc = loc;
      if (fn->kind == Callable::Kind::Partial) {
        c->fn = fn->fn;
        c->args = fn->args;
      } else {
        c->fn = fn;
      }
      for (auto& a : args) c->args.push_back(std::move(a));
      return Value::function(c);
    }
    if (int(args.size()) == n) return apply_exact(*fn, args, loc);
    std::vector<Value> first, rest;
    for (int k = 0; k < int(args.size()); ++k) (k < n ? first : rest).push_back(std::move(args[size_t(k)]));
    Value r = apply_exact(*fn, first, loc);
    if (r.kind != Value::Kind::Function) throw Error(ErrorKind::Internal, loc, "too many arguments in application");
    fn = r.fn;
    args = std::move(rest);
  }
}

Value Evaluator::apply_exact(const Callable& c, std::vector<Value>& args, const Loc& loc) {
  switch (c.kind) {
    case Callable::Kind::Closure: return call_closure(c, args, loc);
    case Callable::Kind::Partial: {
      std::vector<Value> all;
      all.reserve(c.args.size() + args.size());
      for (const auto& a : c.args) all.push_back(a);
      for (auto& a : args) all.push_back(std::move(a));
      if (c.fn->param_count() != int(all.size())) return apply_curried(Value::function(c.fn), std::move(all), loc);
      return apply_exact(*c.fn, all, loc);
    }
    case Callable::Kind::Operator: {
      auto op = builtin_op_from_name(c.name);
      if (!op) throw Error(ErrorKind::Internal, loc, "unknown operator " + c.name);
      return with_loc(loc, [&] { return builtin_operator(*op, args[0], args[1]); });
    }
    case Callable::Kind::RightSection: {
      std::vector<Value> both;
      both.reserve(2);
      both.push_back(std::move(args[0]));
      both.push_back(c.args[0]);
      // An operator defined with one parameter takes the second in turn.
      if (c.fn->param_count() != 2) return apply_curried(Value::function(c.fn), std::move(both), loc);
      return apply_exact(*c.fn, both, loc);
    }
    case Callable::Kind::Projection: {
      Value v = std::move(args[0]);
      for (const auto& f : c.path) {
        const Value* x = v.field(f);
        if (!x) throw Error(ErrorKind::Internal, loc, "projection of a missing field " + f);
        v = Value(*x);
      }
      return v;
    }
    case Callable::Kind::IndexSection: {
      const Value& arr = args[0];
      if (arr.kind != Value::Kind::Array) throw Error(ErrorKind::Internal, loc, "index section on a non-array");
      return with_loc(loc, [&] { return index_array(*arr.array, c.index_args); });
    }
    case Callable::Kind::Intrinsic: {
      std::vector<Value> all = c.args;
      for (auto& a : args) all.push_back(std::move(a));
      IntrinsicCall call{c.name, loc, std::move(all), nullptr, Ctx{}, *this};
      return call_intrinsic(call);
    }
  }
  throw Error(ErrorKind::Internal, loc, "unknown function kind");
}

Value Evaluator::call_closure(const Callable& c, std::vector<Value>& args, const Loc& loc) {
  const Expr* call = std::exchange(pending_call, nullptr);
  if (std::exchange(pending_callee, nullptr) != &c) call = nullptr;  // left over from a failed call
  Ctx call_ctx;
  if (call) call_ctx = std::move(pending_call_ctx);
  check_interrupt(loc);
  std::vector<std::pair<std::string, Binding>> frame;
  frame.reserve(args.size() + 3);
  if (auto me = c.self.lock()) {
    // Recursion: first in the frame, so that parameters shadow it. A copy
    // made by instantiation (other type environment) refers to itself.
    Binding self;
    self.value = Value::function(me.get() == &c ? me : std::make_shared<const Callable>(c));
    frame.emplace_back(c.name, std::move(self));
  }
  SizeScope sizes;
  sizes.frame = &frame;
  if (c.type_params)
    for (const auto& tp : *c.type_params)
      if (tp.is_size) sizes.to_bind.push_back(tp.name);
  Ctx outer{c.env, c.tenv};
  const auto& params = *c.params;
  if (c.type_params) check_type_param_shapes(c, args, loc);
  if (sizes.to_bind.empty()) {
    for (size_t k = 0; k < params.size(); ++k) bind_pattern(*params[k], std::move(args[k]), frame, &sizes, outer, false, &loc);
  } else {
    // Size parameters hidden behind type abbreviations are found through the
    // checked types afterwards, which needs the arguments once more.
    std::vector<Value> kept = args;
    for (size_t k = 0; k < params.size(); ++k) bind_pattern(*params[k], std::move(args[k]), frame, &sizes, outer, false, &loc);
    bind_hidden_sizes(c, kept, sizes, [&] {
      if (call && call->type && c.ret_type)
        if (TypePtr hint = resolve_type(call->type, call_ctx.tenv, call_ctx.env))
          bind_sizes_from_result(*c.ret_type, *hint, sizes, c.env);
    });
  }
  Ctx inner{extend(c.env, std::move(frame)), c.tenv};
  Value result = eval(*c.body, inner);
  if (c.ret_type) {
    SizeScope ret;
    check_type_sizes(*c.ret_type, result, ret, inner, loc, "return");
  }
  return result;
}

void Evaluator::bind_hidden_sizes(const Callable& c, const std::vector<Value>& args, SizeScope& sizes,
                                  const std::function<void()>& from_result) {
  const auto& params = *c.params;
  const size_t n = std::min(params.size(), args.size());
  for (size_t k = 0; k < n; ++k)
    if (params[k]->type) bind_sizes_from_type(*params[k]->type, args[k], sizes);
  // The sizes the checker instantiated the size parameters with where the
  // function was named (structural unification), computed there.
  if (has_unbound_sizes(sizes)) bind_size_hints(c.size_hints, sizes);
  if (has_unbound_sizes(sizes) && from_result) from_result();
  if (has_unbound_sizes(sizes))
    for (size_t k = 0; k < n; ++k) solve_param_sizes(*params[k], args[k], sizes, c.env);
}

}  // namespace eval
}  // namespace thorn
