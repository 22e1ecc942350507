#include "interp/exec/host_work.hpp"

#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "interp/eval/callable.hpp"
#include "interp/eval/env.hpp"

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

// Answers per function body: the same call site asks again on every call
// (a small map inside a sequential loop), and the walk may cost more than
// the call. A body freed and its address reused only misleads the estimate.
std::mutex g_mutex;
std::unordered_map<const Expr*, bool> g_cache;

bool heavy_function(const Value& fn) {
  if (fn.kind != Value::Kind::Function || !fn.fn) return false;
  const Callable* key = fn.fn.get();
  while (key->kind != Callable::Kind::Closure && key->fn) key = key->fn.get();
  const Expr* body = key->kind == Callable::Kind::Closure ? key->body : nullptr;
  if (body && fn.fn->kind == Callable::Kind::Closure) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (auto it = g_cache.find(body); it != g_cache.end()) return it->second;
  }
  Walk w;
  w.value(fn);
  if (body && fn.fn->kind == Callable::Kind::Closure) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_cache.emplace(body, w.heavy);
  }
  return w.heavy;
}

}  // namespace

bool heavy_elements(const SoacCall& call) {
  for (const Value& a : call.args)
    if (heavy_function(a)) return true;
  return false;
}

}  // namespace thorn::exec
