#include "interp/exec/host_work.hpp"

#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "interp/eval/callable.hpp"
#include "interp/eval/env.hpp"
#include "interp/exec/closure_rewrite.hpp"

namespace thorn::exec {

namespace {

// A syntactic walk with a node budget; named functions are followed once.
struct Walk {
  int budget = kHeavyNodes;
  bool heavy = false;
  std::unordered_set<const Expr*> seen;

  void value(const Value& v) {
    if (v.kind == Value::Kind::Function && v.fn) callable(*v.fn);
  }

  void callable(const Callable& c) {
    if (heavy) return;
    if (c.kind == Callable::Kind::Closure) {
      if (c.body && seen.insert(c.body).second) expr(*c.body, c.env);
      return;
    }
    if (c.fn) callable(*c.fn);
    for (const Value& a : c.args) value(a);
  }

  void expr(const Expr& e, const eval::EnvPtr& env) {
    if (heavy) return;
    if (--budget < 0 || e.kind == Expr::Kind::Loop) {
      heavy = true;
      return;
    }
    if (e.kind == Expr::Kind::Var || e.kind == Expr::Kind::BinOp) {
      // A parameter or local of the body may shadow what this finds; the
      // answer is an estimate either way.
      const eval::Binding* b = eval::lookup_value(env, e.name);
      if (b && b->value.kind == Value::Kind::Function && b->value.fn) callable(*b->value.fn);
    }
    auto sub = [&](const ExprPtr& x) {
      if (x) expr(*x, env);
    };
    sub(e.a);
    sub(e.b);
    sub(e.c);
    for (const auto& x : e.list) sub(x);
    for (const auto& [f, x] : e.fields) sub(x);
    for (const auto& ix : e.indices) {
      sub(ix.index);
      sub(ix.start);
      sub(ix.end);
      sub(ix.stride);
    }
    for (const auto& c : e.cases) sub(c.body);
  }
};

// Answers per function value: the same call site asks again on every call
// (a small map inside a sequential loop), and the walk may cost more than
// the call. Keyed by the callable, checked through a weak reference, since
// a dead callable's address (and its AST's) may be reused by another one
// (a REPL input, a test's next session); emptied when it grows large, as a
// lambda evaluated in a loop is a new callable each time.
struct Cached {
  std::weak_ptr<const Callable> fn;
  bool heavy = false;
};
std::mutex g_mutex;
std::unordered_map<const Callable*, Cached> g_cache;
constexpr size_t kMaxCached = 4096;

bool heavy_function(const Value& fn) {
  if (fn.kind != Value::Kind::Function || !fn.fn) return false;
  const Callable* key = fn.fn.get();
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (auto it = g_cache.find(key); it != g_cache.end() && it->second.fn.lock() == fn.fn) return it->second.heavy;
  }
  Walk w;
  w.value(fn);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_cache.size() >= kMaxCached) g_cache.clear();
  g_cache[key] = Cached{fn.fn, w.heavy};
  return w.heavy;
}

}  // namespace

bool heavy_elements(const SoacCall& call) {
  for (const Value& a : call.args)
    if (heavy_function(a)) return true;
  // A map whose elements hold parallel work of their own (an inner SOAC,
  // also in a function it calls): the flattener distributes it over the
  // whole nest (exec/map_distribute.hpp).
  if (call.kind == SoacKind::Map && !call.args.empty()) {
    const Value& f = call.args[0];
    if (f.kind == Value::Kind::Function && f.fn && f.fn->kind == Callable::Kind::Closure && f.fn->body &&
        !f.fn->intrinsic_alias() && !rewrite::inner_parallelism(*f.fn->body, f.fn->env).empty())
      return true;
  }
  return false;
}

}  // namespace thorn::exec
