// Helpers of the nest rewrites (see closure_rewrite.hpp).
#include "interp/exec/closure_rewrite.hpp"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "interp/exec/host_gpu.hpp"
#include "interp/exec/host_pool.hpp"

namespace thorn::exec::rewrite {

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

namespace {

// Calls f with each name node x itself refers to, until f returns true: a
// variable, or the parameters of `loop arr for ...` (no initial value),
// which start from the variable arr. The one rule mentions() and
// mentioned_names() share.
template <class F>
bool names_at(const Expr& x, F&& f) {
  if (x.kind == Expr::Kind::Var) return x.name.qualifiers.empty() && f(x.name.name);
  if (x.kind == Expr::Kind::Loop && !x.a && !x.params.empty()) {
    std::set<std::string> bound;
    pattern_names(*x.params[0], bound);
    for (const std::string& n : bound)
      if (f(n)) return true;
  }
  return false;
}

}  // namespace

bool mentions(const Expr& e, const std::set<std::string>& names) {
  return any_subexpr(e, [&](const Expr& x) {
    return names_at(x, [&](const std::string& n) { return names.count(n) > 0; });
  });
}

std::set<std::string> mentioned_names(const Expr& e) {
  std::set<std::string> used;
  any_subexpr(e, [&](const Expr& x) {
    names_at(x, [&](const std::string& n) {
      used.insert(n);
      return false;
    });
    return false;
  });
  return used;
}

bool mentions_any(const std::set<std::string>& used, const std::set<std::string>& names) {
  for (const std::string& n : names)
    if (used.count(n)) return true;
  return false;
}

std::string inner_parallelism(const Expr& e, bool loops) {
  static const std::set<std::string> soacs = {
      "map",  "map2",    "map3",    "map4",    "map5",    "reduce", "reduce_comm", "scan",  "reduce_by_index",
      "hist", "scatter", "filter",  "partition", "sum",   "product", "maximum",    "minimum", "all", "any",
      "iota", "replicate", "zip",   "zip3",    "unzip", "tabulate", "foldl", "foldr"};
  std::string found;
  any_subexpr(e, [&](const Expr& x) {
    if (x.kind == Expr::Kind::Var && soacs.count(x.name.name)) found = x.name.name;
    else if (loops && x.kind == Expr::Kind::Loop) found = "an inner loop";
    return !found.empty();
  });
  return found;
}

namespace {

std::string called_parallelism(const Expr& e, const eval::EnvPtr& env, int depth, std::set<const Expr*>& seen,
                               bool loops) {
  std::string found = inner_parallelism(e, loops);
  if (!found.empty() || depth == 0) return found;
  any_subexpr(e, [&](const Expr& x) {
    if (x.kind != Expr::Kind::Apply || !x.a || x.a->kind != Expr::Kind::Var || !x.a->name.qualifiers.empty())
      return false;
    const eval::Binding* b = eval::lookup_value(env, std::string_view(x.a->name.name));
    if (!b || b->value.kind != Value::Kind::Function || !b->value.fn) return false;
    const Callable& f = *b->value.fn;
    if (f.kind != Callable::Kind::Closure || !f.body || f.intrinsic_alias() || !seen.insert(f.body).second) return false;
    std::string inner = called_parallelism(*f.body, f.env, depth - 1, seen, loops);
    if (!inner.empty()) found = inner + " in " + x.a->name.name;
    return !found.empty();
  });
  return found;
}

}  // namespace

std::string inner_parallelism(const Expr& e, const eval::EnvPtr& env, bool loops) {
  std::set<const Expr*> seen;
  return called_parallelism(e, env, 4, seen, loops);
}

const Expr* strip_attrs(const Expr* e) {
  while (e && e->kind == Expr::Kind::Attr) e = e->a.get();
  return e;
}

std::shared_ptr<const std::vector<PatternPtr>> stable_params(const void* anchor, const std::vector<PatternPtr>& params) {
  static std::mutex mu;
  static std::map<const void*, std::shared_ptr<const std::vector<PatternPtr>>> lists;
  std::lock_guard<std::mutex> g(mu);
  auto& slot = lists[anchor];
  if (slot && *slot == params) return slot;
  if (lists.size() > 4096) {
    lists.clear();
    auto fresh = std::make_shared<const std::vector<PatternPtr>>(params);
    lists[anchor] = fresh;
    return fresh;
  }
  slot = std::make_shared<const std::vector<PatternPtr>>(params);
  return slot;
}

Value closure(const Callable& of, const std::vector<PatternPtr>* params, const Expr* body, eval::EnvPtr env,
              std::shared_ptr<const void> keep) {
  auto c = std::make_shared<Callable>();
  c->keep = keep ? std::move(keep) : of.keep;
  c->kind = Callable::Kind::Closure;
  c->loc = body->loc;
  c->params = params;
  c->body = body;
  c->env = std::move(env);
  c->tenv = of.tenv;
  c->type_params = of.type_params;
  c->size_hints = of.size_hints;
  return Value::function(c);
}

Value closure_over(const Callable& of, const void* anchor, const std::vector<PatternPtr>& params, const Expr* body,
                   eval::EnvPtr env) {
  std::shared_ptr<const std::vector<PatternPtr>> list = stable_params(anchor, params);
  auto keep = std::make_shared<std::pair<std::shared_ptr<const void>, std::shared_ptr<const void>>>(list, of.keep);
  return closure(of, list.get(), body, std::move(env), std::move(keep));
}

const Pattern& unascribed(const Pattern& p) {
  const Pattern* q = &p;
  while (q->kind == Pattern::Kind::Ascribed) q = q->inner.get();
  return *q;
}

bool irregular_array_error(const Error& e) {
  return e.kind == ErrorKind::Runtime && e.message.find("irregular") != std::string::npos;
}

void materialise(const Value& v) {
  if (v.kind != Value::Kind::Array) return;
  const ArrayValue& a = v.arr();
  if (a.buffer) a.buffer->host();
  for (const ArrayPtr& c : a.components)
    if (c && c->buffer) c->buffer->host();
}

Mode mode_from_env(const char* variable) {
  const char* env = std::getenv(variable);
  if (!env) return Mode::Auto;
  if (std::strcmp(env, "always") == 0 || std::strcmp(env, "1") == 0) return Mode::Always;
  if (std::strcmp(env, "never") == 0 || std::strcmp(env, "0") == 0) return Mode::Never;
  return Mode::Auto;
}

int64_t parallel_width(const eval::Evaluator& ev, int64_t per_thread, std::string* what) {
  if (ev.options().backend == "gpu")
    if (int64_t threads = exec::host_gpu::gpu_resident_threads()) {
      if (what) *what = fmt::format("{} resident GPU threads", threads);
      return threads;
    }
  int64_t threads = int64_t(host::ThreadPool::instance().size());
  if (what)
    *what = per_thread == 1 ? fmt::format("{} host threads", threads)
                            : fmt::format("{} lanes of {} threads", threads * per_thread, threads);
  return threads * per_thread;
}

}  // namespace thorn::exec::rewrite
