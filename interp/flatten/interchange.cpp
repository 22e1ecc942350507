// Loop interchange of a map around a loop (see interchange.hpp).
#include "interp/flatten/interchange.hpp"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "interp/eval/callable.hpp"
#include "interp/eval/scalar_ops.hpp"
#include "interp/exec/host_pool.hpp"
#include "interp/exec/host_program.hpp"

namespace thorn::flatten {

namespace {

void pattern_names(const Pattern& p, std::set<std::string>& out) {
  switch (p.kind) {
    case Pattern::Kind::Id: out.insert(p.name); return;
    case Pattern::Kind::Tuple:
      for (const auto& e : p.elems) pattern_names(*e, out);
      return;
    case Pattern::Kind::Record:
      for (const auto& [field, sub] : p.fields) {
        if (sub) pattern_names(*sub, out);
        else out.insert(field);
      }
      return;
    case Pattern::Kind::Ascribed: pattern_names(*p.inner, out); return;
    default:
      for (const auto& e : p.elems) pattern_names(*e, out);
      return;
  }
}

// Every sub-expression of e, pre-order; stops when visit returns true.
bool any_subexpr(const Expr& e, const std::function<bool(const Expr&)>& visit) {
  if (visit(e)) return true;
  auto go = [&](const ExprPtr& x) { return x && any_subexpr(*x, visit); };
  if (go(e.a) || go(e.b) || go(e.c)) return true;
  for (const ExprPtr& x : e.list)
    if (go(x)) return true;
  for (const auto& f : e.fields)
    if (go(f.second)) return true;
  for (const IndexArg& ix : e.indices)
    if (go(ix.index) || go(ix.start) || go(ix.end) || go(ix.stride)) return true;
  for (const Case& c : e.cases)
    if (go(c.body)) return true;
  return false;
}

// Whether e may name one of `names` (shadowing ignored: an over-approximation).
bool mentions(const Expr& e, const std::set<std::string>& names) {
  return any_subexpr(e, [&](const Expr& x) {
    return x.kind == Expr::Kind::Var && x.name.qualifiers.empty() && names.count(x.name.name);
  });
}

// A SOAC (or a loop) in the body: work that, inside one element, runs
// sequentially. Names only: a user function called `map` counts too.
std::string inner_parallelism(const Expr& body) {
  static const std::set<std::string> soacs = {
      "map",  "map2",    "map3",    "map4",    "map5",    "reduce", "reduce_comm", "scan",  "reduce_by_index",
      "hist", "scatter", "filter",  "partition", "sum",   "product", "maximum",    "minimum", "all", "any",
      "iota", "replicate", "zip",   "zip3",    "unzip", "tabulate", "foldl", "foldr"};
  std::string found;
  any_subexpr(body, [&](const Expr& x) {
    if (x.kind == Expr::Kind::Var && soacs.count(x.name.name)) found = x.name.name;
    else if (x.kind == Expr::Kind::Loop) found = "an inner loop";
    return !found.empty();
  });
  return found;
}

// `loop pat = init for i < n do body`, possibly under attributes.
const Expr* loop_of(const Expr* body) {
  while (body && body->kind == Expr::Kind::Attr) body = body->a.get();
  if (!body || body->kind != Expr::Kind::Loop || body->loop_form != Expr::LoopForm::For || body->params.empty())
    return nullptr;
  return body;
}

// `loop x for ...` (no initial value) where x is parameter k of the
// lambda: the initial states are input k itself. -1 otherwise.
int shorthand_input(const std::vector<PatternPtr>& params, const Expr& loop) {
  const Pattern* lp = loop.params[0].get();
  while (lp->kind == Pattern::Kind::Ascribed) lp = lp->inner.get();
  if (lp->kind != Pattern::Kind::Id) return -1;
  for (size_t k = 0; k < params.size(); ++k) {
    const Pattern* p = params[k].get();
    while (p->kind == Pattern::Kind::Ascribed) p = p->inner.get();
    if (p->kind == Pattern::Kind::Id && p->name == lp->name) return int(k);
  }
  return -1;
}

// Parameter lists for the step function (the lambda's parameters, then the
// loop pattern, which shadows them as in the original). Cached per loop; an
// entry is used only when it holds the very pattern nodes given (it keeps
// them alive, so their addresses cannot have been reused by a freed REPL
// input), and each step closure holds its list (Callable::keep). Bounded.
std::shared_ptr<const std::vector<PatternPtr>> step_params(const std::vector<PatternPtr>& lambda, const Expr& loop) {
  static std::mutex mu;
  static std::map<const Expr*, std::shared_ptr<const std::vector<PatternPtr>>> lists;
  std::lock_guard<std::mutex> g(mu);
  auto& slot = lists[&loop];
  bool fits = slot && slot->size() == lambda.size() + 1 && slot->back() == loop.params[0];
  for (size_t k = 0; fits && k < lambda.size(); ++k) fits = (*slot)[k] == lambda[k];
  if (!fits) {
    if (lists.size() > 1024) {
      lists.clear();
      return step_params(lambda, loop);
    }
    auto fresh = std::make_shared<std::vector<PatternPtr>>(lambda);
    fresh->push_back(loop.params[0]);
    slot = std::move(fresh);
  }
  return slot;
}

Value closure(const Callable& of, const std::vector<PatternPtr>* params, const Expr* body, eval::EnvPtr env,
              std::shared_ptr<const void> keep = nullptr) {
  auto c = std::make_shared<Callable>();
  c->keep = keep ? std::move(keep) : of.keep;
  c->kind = Callable::Kind::Closure;
  c->loc = body->loc;
  c->params = params;
  c->body = body;
  c->env = std::move(env);
  c->tenv = of.tenv;
  return Value::function(c);
}

void materialise(const Value& v) {
  if (v.kind != Value::Kind::Array) return;
  const ArrayValue& a = v.arr();
  if (a.buffer) a.buffer->host();
  for (const ArrayPtr& c : a.components)
    if (c && c->buffer) c->buffer->host();
}

enum class Mode { Auto, Always, Never };

Mode mode() {
  const char* env = std::getenv("THORN_INTERCHANGE");
  if (!env) return Mode::Auto;
  if (std::strcmp(env, "always") == 0 || std::strcmp(env, "1") == 0) return Mode::Always;
  if (std::strcmp(env, "never") == 0 || std::strcmp(env, "0") == 0) return Mode::Never;
  return Mode::Auto;
}

}  // namespace

Interchange try_interchange(const exec::SoacCall& call, eval::Evaluator& ev, int64_t n) {
  Interchange out;
  const Value& fv = call.args.at(0);
  if (fv.kind != Value::Kind::Function || !fv.fn || fv.fn->kind != Callable::Kind::Closure || !fv.fn->params ||
      !fv.fn->body || fv.fn->intrinsic_alias())
    return out;
  const Callable& fn = *fv.fn;
  size_t nin = call.args.size() - 1;
  if (fn.params->size() != nin) return out;
  const Expr* loop = loop_of(fn.body);
  if (!loop) return out;
  int init_input = loop->a ? -1 : shorthand_input(*fn.params, *loop);
  if (!loop->a && init_input < 0) return out;
  std::set<std::string> elem_names;
  for (const PatternPtr& p : *fn.params) pattern_names(*p, elem_names);
  std::string where = fmt::format("map-around-loop at {}", call.loc.str());
  if (mentions(*loop->c, elem_names)) {
    out.note = where + ": loop kept sequential inside each element (its trip count depends on the element)\n";
    return out;
  }
  if (elem_names.count(loop->loop_var)) return out;  // the loop variable shadows a parameter: keep it simple
  Mode m = mode();
  int64_t lanes = int64_t(host::ThreadPool::instance().size()) * host::kLanes;
  std::string inner = inner_parallelism(*loop->b);
  std::string why;
  bool interchange = false;
  if (m == Mode::Never) {
    why = "THORN_INTERCHANGE=never";
  } else if (m == Mode::Always) {
    interchange = true;
    why = "THORN_INTERCHANGE=always";
  } else if (inner.empty()) {
    why = "the loop body has no inner parallelism";
  } else if (n >= lanes) {
    why = fmt::format("outer size {} fills the {} lanes of {} threads", n, lanes, lanes / host::kLanes);
  } else {
    interchange = true;
    why = fmt::format("outer size {} < {} lanes and the loop body has inner parallelism ({})", n, lanes, inner);
  }
  if (!interchange) {
    out.note = where + ": loop kept sequential inside each element (" + why + ")\n";
    return out;
  }
  // The trip count, in the closure's environment (it names no parameter).
  Value bound = ev.eval(*loop->c, eval::Ctx{fn.env, fn.tenv});
  if (bound.kind != Value::Kind::Scalar || !is_integral(bound.scalar.type)) return Interchange{};
  int64_t trips = bound.scalar.as_i64();
  auto run_map = [&](Value f, std::vector<Value> arrays) {
    exec::SoacCall c;
    c.kind = exec::SoacKind::Map;
    c.loc = call.loc;
    c.result_type = call.result_type;  // the loop state's array type, as the map's own
    c.args.push_back(std::move(f));
    for (Value& a : arrays) c.args.push_back(std::move(a));
    Value r = exec::dispatch(c, ev);
    materialise(r);  // else each step would inline the previous one's producer
    return r;
  };
  std::vector<Value> xs(call.args.begin() + 1, call.args.end());
  Value accs = loop->a ? run_map(closure(fn, fn.params, loop->a.get(), fn.env), xs) : xs.at(size_t(init_input));
  std::shared_ptr<const std::vector<PatternPtr>> params = step_params(*fn.params, *loop);
  for (int64_t t = 0; t < trips; ++t) {
    eval::Binding b;
    b.value = Value(eval::scalar_convert(Scalar::i64(t), bound.scalar.type));
    eval::EnvPtr env = eval::extend(fn.env, {{loop->loop_var, std::move(b)}});
    std::vector<Value> args = xs;
    args.push_back(accs);
    accs = run_map(closure(fn, params.get(), loop->b.get(), env, params), std::move(args));
  }
  out.note = fmt::format("{}: loop interchanged ({}): {} iterations, each one flattened map over {} elements\n", where,
                         why, trips, n);
  out.value = std::move(accs);
  return out;
}

}  // namespace thorn::flatten
