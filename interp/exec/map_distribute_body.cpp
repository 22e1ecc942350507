// The mapped function's body opened up for map distribution (see
// map_distribute_body.hpp).
#include "interp/exec/map_distribute_body.hpp"

#include <map>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "interp/exec/closure_rewrite.hpp"

namespace thorn::exec {

using namespace rewrite;

namespace {

// Whether a size kept as syntax (DimFormula::syntax) names one of `names`.
bool syntax_names(const SizeSyntax& s, const std::set<std::string>& names) {
  if (s.op == SizeSyntax::Op::Name) return names.count(s.name) > 0;
  for (const auto& a : s.args)
    if (a && syntax_names(*a, names)) return true;
  return false;
}

}  // namespace

// Whether a type mentions, as a size, one of `names` (sizes bound inside
// the element: such an intermediate array may differ in size from element
// to element, and an array of them would be irregular).
bool sized_by(const TypePtr& t, const std::set<std::string>& names) {
  return any_part(t, [&](const Type& x) {
    if (x.kind != Type::Kind::Array) return false;
    for (const Dim& d : x.dims) {
      if (d.kind == Dim::Kind::Name && names.count(d.name)) return true;
      if (d.kind == Dim::Kind::Unknown && d.formula && d.formula->syntax && syntax_names(*d.formula->syntax, names))
        return true;
      if (d.kind == Dim::Kind::Unknown && d.formula)
        for (const auto& [factors, coef] : d.formula->terms)
          for (const std::string& f : factors)
            if (names.count(f)) return true;
    }
    return false;
  });
}

// `e |> f` with the prelude's name.
bool is_pipe(const Expr* e) {
  return e && e->kind == Expr::Kind::BinOp && e->name.qualifiers.empty() && e->name.name == "|>" && e->a && e->b;
}

// A local function as the evaluator binds a LetFun (eval_expr.cpp), in env.
eval::Binding local_function(const Expr& letfun, eval::EnvPtr env, eval::TypeEnvPtr tenv) {
  auto c = std::make_shared<Callable>();
  c->kind = Callable::Kind::Closure;
  c->name = letfun.name.name;
  c->params = &letfun.params;
  c->body = letfun.a.get();
  c->ret_type = letfun.ret_type.get();
  c->type_params = &letfun.type_params;
  c->env = std::move(env);
  c->tenv = std::move(tenv);
  c->loc = letfun.loc;
  eval::Binding b;
  b.value = Value::function(c);
  if (!letfun.quantified.empty()) b.quantified = &letfun.quantified;
  return b;
}

// `let f1 .. in .. let fk .. in value`: value with the local functions it
// reads defined again around it, for a step that runs in each element
// (functions that name the element's values differ per element, so they
// cannot be bound once). Built once per value and functions, and kept for
// good: the steps' closures point into it, and the parts it holds keep
// their addresses from being reused by other syntax.
const Expr* with_local_functions(const ExprPtr& value, const std::vector<const Expr*>& funs) {
  thread_local std::map<std::vector<const void*>, ExprPtr> built;
  std::vector<const void*> key{value.get()};
  for (const Expr* f : funs) key.push_back(f->a.get());
  ExprPtr& e = built[key];
  if (e) return e.get();
  ExprPtr body = value;
  for (size_t k = funs.size(); k-- > 0;) {
    auto node = std::make_shared<Expr>(*funs[k]);
    node->b = body;
    node->type = value->type;
    body = std::move(node);
  }
  e = body;
  return e.get();
}

// A partial application of a named function (`map (sort_by key nbits) xss`)
// as a closure over the parameters it still takes, the given arguments
// bound in its environment, so that the rules below can look into it.
// Null for anything else.
std::optional<Value> closure_of_partial(const Value& fv, eval::Evaluator& ev) {
  if (fv.kind != Value::Kind::Function || !fv.fn || fv.fn->kind != Callable::Kind::Partial) return std::nullopt;
  const CallablePtr& callee = fv.fn->fn;
  if (!callee || callee->kind != Callable::Kind::Closure || !callee->params || !callee->body ||
      callee->intrinsic_alias() || callee->self.lock())
    return std::nullopt;
  const size_t given = fv.fn->args.size();
  if (given == 0 || given >= callee->params->size()) return std::nullopt;
  // A size parameter that a given argument's shape gives (`sobolIndR [k]
  // (dirs: [k]i32) (n: i32)` applied to dirs) would have nothing to be
  // solved from in the closure's call: such a partial is left as it is.
  if (callee->type_params) {
    std::set<std::string> sizes;
    for (const TypeParam& tp : *callee->type_params)
      if (tp.is_size) sizes.insert(tp.name);
    for (size_t k = 0; k < given && !sizes.empty(); ++k)
      if (!(*callee->params)[k]->type || sized_by((*callee->params)[k]->type, sizes)) return std::nullopt;
  }
  std::vector<std::pair<std::string, eval::Binding>> fixed;
  for (size_t k = 0; k < given; ++k)
    if (!ev.bind_pattern(*(*callee->params)[k], fv.fn->args[k], fixed, nullptr, eval::Ctx{callee->env, callee->tenv}))
      return std::nullopt;
  std::vector<PatternPtr> rest(callee->params->begin() + std::ptrdiff_t(given), callee->params->end());
  return closure_over(*callee, &(*callee->params)[given], rest, callee->body, eval::extend(callee->env, std::move(fixed)));
}

// `e0 |> f1 |> ... |> fk` as lets: t1 = e0 |> f1, t2 = t1 |> f2, ..., with
// t(k-1) |> fk as the result, so that each stage with a SOAC becomes its own
// segmented step like a let's. The stages after the first are copies of
// the pipeline's nodes reading the previous stage's name; they live as long
// as the cache entry, which a distribution holds while it runs.

std::shared_ptr<const PipelineLets> pipeline_lets(const Expr* body) {
  static std::mutex mu;
  static std::unordered_map<const Expr*, std::shared_ptr<const PipelineLets>> cache;
  std::lock_guard lk(mu);
  if (auto it = cache.find(body); it != cache.end()) {
    if (it->second->last_a.get() == body->a.get() && it->second->last_b.get() == body->b.get()) return it->second;
    cache.erase(it);
  }
  std::vector<const Expr*> stages;  // innermost first
  for (const Expr* e = body; is_pipe(e); e = strip_attrs(e->a.get())) stages.insert(stages.begin(), e);
  if (stages.size() < 2) return nullptr;
  for (const Expr* st : stages)
    if (!st->type || !st->a->type) return nullptr;
  auto out = std::make_shared<PipelineLets>();
  out->last_a = body->a;
  out->last_b = body->b;
  auto first = std::make_shared<Expr>(*stages[0]);
  out->nodes.push_back(first);
  const Expr* prev = first.get();
  for (size_t k = 1; k < stages.size(); ++k) {
    const std::string name = fmt::format("(pipeline stage {})", k);
    auto pat = std::make_shared<Pattern>();
    pat->kind = Pattern::Kind::Id;
    pat->name = name;
    pat->loc = prev->loc;
    pat->type = prev->type;
    out->patterns.push_back(pat);
    out->values.push_back(prev);
    auto var = std::make_shared<Expr>();
    var->kind = Expr::Kind::Var;
    var->name.name = name;
    var->loc = prev->loc;
    var->type = prev->type;
    auto stage = std::make_shared<Expr>(*stages[k]);
    stage->a = var;
    out->nodes.push_back(var);
    out->nodes.push_back(stage);
    prev = stage.get();
  }
  out->result = prev;
  if (cache.size() > 4096) cache.clear();
  cache[body] = out;
  return out;
}

// Local functions defined at the head of a mapped function's body that
// name nothing of the element (radix_sort_step's `num`, radix_sort_float's
// `get_bit'`, given what the call fixes) are the same for every element:
// bound once in the function's environment, so that the rules below see
// the lets after them. A local function that names the element's values or
// sizes stops the peeling (its closure would differ per element).
std::optional<Value> without_invariant_local_functions(const Value& fv) {
  const Callable& fn = *fv.fn;
  std::set<std::string> element;
  for (const PatternPtr& p : *fn.params) pattern_names(*p, element);
  if (fn.type_params)
    for (const TypeParam& tp : *fn.type_params) element.insert(tp.name);
  const Expr* body = strip_attrs(fn.body);
  eval::EnvPtr env = fn.env;
  bool peeled = false;
  while (body && body->kind == Expr::Kind::LetFun && body->a && body->b && !mentions(*body->a, element)) {
    bool sized = false;
    for (const PatternPtr& p : body->params) sized |= p->type && sized_by(p->type, element);
    if (sized) break;
    std::vector<std::pair<std::string, eval::Binding>> frame;
    frame.emplace_back(body->name.name, local_function(*body, env, fn.tenv));
    env = eval::extend(env, std::move(frame));
    body = strip_attrs(body->b.get());
    peeled = true;
  }
  if (!peeled) return std::nullopt;
  return closure_over(fn, body, *fn.params, body, std::move(env));
}

}  // namespace thorn::exec
