// Forward-mode transformation of element functions (ad_lambda.hpp).
//
// The generated body keeps the original let-names for primal values (so
// original subexpressions that name them can be reused as they are) and
// binds every intermediate and every tangent to a fresh `__ad…` name, so no
// expression is duplicated. A tangent that is known to be zero is null and
// generates no code (constants, integer and boolean expressions).
#include "interp/eval/ad_lambda_gen.hpp"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>
#include <memory>
#include <optional>
#include <set>

#include "interp/eval/env.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/eval/scalar_ops.hpp"
#include "interp/types/type.hpp"

namespace thorn::eval::ad::detail {


PatternPtr id_pattern(const std::string& name, const TypePtr& type, const Loc& loc) {
  auto p = std::make_shared<Pattern>();
  p->kind = Pattern::Kind::Id;
  p->name = name;
  p->type = type;
  p->loc = loc;
  return p;
}

Value make_closure(const Callable& f, std::shared_ptr<Generated> g, EnvPtr env) {
  auto c = std::make_shared<Callable>();
  c->kind = Callable::Kind::Closure;
  c->loc = f.loc;
  c->params = &g->params;
  c->body = g->body.get();
  c->env = std::move(env);
  c->tenv = f.tenv;
  c->keep = g;
  return Value::function(c);
}

// A parameter's scalar variables: x, or those of a tuple pattern (a, b).
void flatten_param(const Pattern& p, std::vector<const Pattern*>& out) {
  if (p.kind == Pattern::Kind::Ascribed && p.inner) return flatten_param(*p.inner, out);
  if (p.kind == Pattern::Kind::Tuple) {
    for (const auto& e : p.elems) flatten_param(*e, out);
    return;
  }
  const Pattern* id = param_id(p);
  if (!id || !id->type || id->type->kind != Type::Kind::Prim)
    throw Unsupported("a mapped function whose parameters are not scalar variables or tuples of them");
  out.push_back(id);
}

// Checks the shape of f and returns its parameters' Id patterns, tuple
// parameters flattened (the caller passes one scalar per Id).
std::vector<const Pattern*> scalar_params(const Callable& f) {
  if (f.kind != Callable::Kind::Closure || !f.params || !f.body) throw Unsupported("a mapped function that is not a closure");
  if (f.type_params && !f.type_params->empty()) throw Unsupported("a mapped function with size parameters");
  std::vector<const Pattern*> ps;
  for (const auto& p : *f.params) flatten_param(*p, ps);
  if (!scalar_float_result(f)) throw Unsupported("a mapped function whose result is not a float or a tuple of floats");
  return ps;
}

ExprPtr body_ptr(const Callable& f) {
  // The body is AST-owned; an aliasing shared_ptr lets generated nodes point
  // at it (the closure keeps the program alive while it exists).
  return ExprPtr(std::shared_ptr<Expr>{}, const_cast<Expr*>(f.body));
}

ExprPtr tuple_of(Gen& g, std::vector<ExprPtr> elems) {
  if (elems.size() == 1) return elems[0];
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Tuple;
  e->loc = g.loc;
  std::vector<TypePtr> ts;
  for (auto& x : elems) ts.push_back(x->type);
  e->type = tuple_type(ts);
  e->list = std::move(elems);
  return e;
}

// Generated code is memoised per source function and variant. Besides
// saving the transformation, this is what makes the plan cache safe: its
// keys name AST nodes by address, so generated AST must never be freed and
// its address reused by other generated code while a plan may name it.
// An entry is used only when the source closure has the very parameter
// nodes it was made from (the entry keeps them alive, so their addresses
// cannot have been reused by a freed REPL input); a stale entry's code is
// kept (never freed), so memory grows with the number of distinct
// differentiated functions, not with the number of calls.
struct MemoEntry {
  std::vector<PatternPtr> source_params;
  std::shared_ptr<Generated> gen;
};

std::shared_ptr<Generated> memoised(const std::string& key, const Callable* f,
                                    const std::function<std::shared_ptr<Generated>()>& make) {
  static std::mutex mu;
  static std::unordered_map<std::string, MemoEntry> memo;
  static std::vector<std::shared_ptr<Generated>> retired;
  std::lock_guard<std::mutex> g(mu);
  auto it = memo.find(key);
  if (it != memo.end() && (!f || (f->params && it->second.source_params == *f->params))) return it->second.gen;
  auto gen = make();
  if (it != memo.end()) retired.push_back(std::move(it->second.gen));
  memo[key] = MemoEntry{f && f->params ? *f->params : std::vector<PatternPtr>{}, gen};
  return gen;
}

int seed_params(Gen& g, Generated& gen, const std::vector<const Pattern*>& ps, const std::vector<bool>& active,
                const Loc& loc) {
  int d = 0;
  for (size_t j = 0; j < ps.size(); ++j) {
    gen.params.push_back(id_pattern(ps[j]->name, ps[j]->type, loc));
    g.locals.insert(ps[j]->name);
    Tans t = g.zeros();
    if (active[j]) t[size_t(d++)] = g.lit(1, ps[j]->type);
    g.tan[ps[j]->name] = t;
  }
  return d;
}

std::string variant_key(const char* mode, const Callable& f, const std::vector<bool>& active,
                        const std::vector<FreeActive>& free, bool tangent_only) {
  std::string k = fmt::format("{}|{}|{}|", mode, static_cast<const void*>(f.body), tangent_only);
  for (bool a : active) k += a ? '1' : '0';
  for (const auto& fa : free) k += (fa.array ? "|[]" : "|") + fa.name;
  return k;
}

}  // namespace thorn::eval::ad::detail

namespace thorn::eval::ad {

using namespace detail;

std::optional<Value> operator_closure(Evaluator& ev, const Value& f, Prim t) {
  if (f.kind != Value::Kind::Function) return std::nullopt;
  const Callable& c = *f.fn;
  // (op), (op x) and (x op) of a built-in operator.
  const Callable* op = nullptr;
  const Value* operand = nullptr;
  bool operand_left = false;
  if (c.kind == Callable::Kind::Operator) op = &c;
  else if (c.kind == Callable::Kind::RightSection && c.fn && c.fn->kind == Callable::Kind::Operator && c.args.size() == 1)
    op = c.fn.get(), operand = &c.args[0];
  else if (c.kind == Callable::Kind::Partial && c.fn && c.fn->kind == Callable::Kind::Operator && c.args.size() == 1)
    op = c.fn.get(), operand = &c.args[0], operand_left = true;
  if (!op || !builtin_op_from_name(op->name)) return std::nullopt;
  if (operand && (operand->kind != Value::Kind::Scalar || operand->scalar.type != t)) return std::nullopt;
  const std::string name = op->name;
  std::string key = fmt::format("op|{}|{}|{}|{}", name, prim_name(t), operand != nullptr, operand_left);
  auto out = memoised(key, nullptr, [&] {
    Gen g(ev, ev.prelude_env, 0, c.loc);
    TypePtr ty = prim_type(t);
    auto gen = std::make_shared<Generated>();
    ExprPtr a = g.var("__ada", ty), b = g.var("__adb", ty);
    gen->params.push_back(id_pattern("__ada", ty, c.loc));
    if (!operand) gen->params.push_back(id_pattern("__adb", ty, c.loc));
    if (operand) b = g.var("__adc", ty);
    if (operand && operand_left) std::swap(a, b);
    bool comparison = name == "==" || name == "!=" || name == "<" || name == "<=" || name == ">" || name == ">=";
    gen->body = g.bin(name.c_str(), a, b, comparison ? prim_type(Prim::Bool) : ty);
    return gen;
  });
  auto cl = std::make_shared<Callable>();
  cl->kind = Callable::Kind::Closure;
  cl->loc = c.loc;
  cl->params = &out->params;
  cl->body = out->body.get();
  cl->env = ev.prelude_env;
  if (operand) {
    Binding bd;
    bd.value = *operand;
    cl->env = extend(ev.prelude_env, {{"__adc", bd}});
  }
  cl->keep = out;
  return Value::function(cl);
}

bool scalar_float_result(const Callable& f) {
  return f.kind == Callable::Kind::Closure && f.body && result_width(f) > 0;
}

int result_width(const Callable& f) {
  if (f.kind != Callable::Kind::Closure || !f.body || !f.body->type) return 0;
  const TypePtr& t = f.body->type;
  if (float_type(t)) return 1;
  if (t->kind != Type::Kind::Tuple) return 0;
  for (const auto& e : t->elems)
    if (!float_type(e)) return 0;
  return int(t->elems.size());
}

int param_width(const Callable& f) { return int(scalar_params(f).size()); }

Value jvp_lambda(Evaluator& ev, const Callable& f, const std::vector<bool>& active,
                 const std::vector<FreeActive>& free, bool tangent_only) {
  auto ps = scalar_params(f);
  auto out = memoised(variant_key("jvp", f, active, free, tangent_only), &f, [&] {
    Gen g(ev, f.env, 1, f.loc);
    auto gen = std::make_shared<Generated>();
    for (size_t j = 0; j < ps.size(); ++j) gen->params.push_back(id_pattern(ps[j]->name, ps[j]->type, f.loc));
    for (size_t j = 0; j < ps.size(); ++j) {
      g.locals.insert(ps[j]->name);
      if (!active[j]) continue;
      std::string tn = fmt::format("__adt{}", j);
      gen->params.push_back(id_pattern(tn, ps[j]->type, f.loc));
      g.tan[ps[j]->name] = {g.var(tn, ps[j]->type)};
    }
    for (size_t k = 0; k < free.size(); ++k) {
      if (free[k].array) g.free_array_tans[free[k].name] = fmt::format("__adf{}", k);
      else g.free_tans[free[k].name] = {g.var(fmt::format("__adf{}", k), prim_type(free[k].tangent.scalar.type))};
    }
    ExprPtr body = body_ptr(f);
    std::vector<Dual> rs = g.go_multi(body);
    std::vector<ExprPtr> ps_out, ts_out;
    for (const auto& r : rs) {
      ps_out.push_back(r.p);
      ts_out.push_back(r.t[0] ? r.t[0] : g.lit(0, r.p->type));
    }
    if (!tangent_only) ps_out.insert(ps_out.end(), ts_out.begin(), ts_out.end());
    gen->body = g.close(0, tuple_of(g, tangent_only ? ts_out : ps_out));
    gen->source = f.keep;
    return gen;
  });
  // The free actives' tangents are bound where the generated code finds them.
  std::vector<std::pair<std::string, Binding>> frame;
  for (size_t k = 0; k < free.size(); ++k) {
    Binding b;
    b.value = free[k].tangent;
    frame.push_back({fmt::format("__adf{}", k), b});
  }
  return make_closure(f, out, frame.empty() ? f.env : extend(f.env, std::move(frame)));
}

Value vjp_lambda(Evaluator& ev, const Callable& f, const std::vector<bool>& active,
                 const std::vector<FreeActive>& free, std::vector<std::string>* site_arrays) {
  auto ps = scalar_params(f);
  auto out = memoised(variant_key("vjp", f, active, free, false), &f, [&] {
    int ndirs = 0;
    for (bool a : active) ndirs += a ? 1 : 0;
    for (const auto& fa : free) ndirs += fa.array ? 0 : 1;
    Gen g(ev, f.env, ndirs, f.loc);
    auto gen = std::make_shared<Generated>();
    int d = seed_params(g, *gen, ps, active, f.loc);
    for (const auto& fa : free) {
      if (fa.array) {
        g.free_arrays.insert(fa.name);
        continue;
      }
      Tans t = g.zeros();
      t[size_t(d++)] = g.lit(1, f.body->type);
      g.free_tans[fa.name] = t;
    }
    ExprPtr body = body_ptr(f);
    // One adjoint parameter per component of the result.
    std::vector<ExprPtr> ybars;
    int m = result_width(f);
    for (int j = 0; j < m; ++j) {
      std::string yn = m == 1 ? "__adybar" : fmt::format("__adybar{}", j);
      TypePtr yt = m == 1 ? body->type : body->type->elems[size_t(j)];
      gen->params.push_back(id_pattern(yn, yt, f.loc));
      ybars.push_back(g.var(yn, yt));
    }
    std::vector<Dual> rs = g.go_multi(body);
    std::vector<ExprPtr> results;
    // The adjoint of direction k: the sum over the result's components of
    // ybar_j * d(component j)/d(direction k).
    auto adjoint = [&](int k) {
      ExprPtr sum;
      for (size_t j = 0; j < rs.size(); ++j)
        if (rs[j].t[size_t(k)]) sum = g.add(sum, g.atom(g.bin("*", ybars[j], rs[j].t[size_t(k)], rs[j].p->type)), rs[j].p->type);
      return sum ? sum : g.lit(0, rs[0].p->type);
    };
    for (int k = 0; k < ndirs; ++k) results.push_back(adjoint(k));
    // Each gather site: its adjoint and the index it read.
    for (const auto& site : g.sites) {
      results.push_back(adjoint(site.dir));
      results.push_back(site.index);
      gen->site_arrays.push_back(site.array);
    }
    gen->body = g.close(0, tuple_of(g, std::move(results)));
    gen->source = f.keep;
    return gen;
  });
  if (site_arrays) *site_arrays = out->site_arrays;
  return make_closure(f, out, f.env);
}

}  // namespace thorn::eval::ad
