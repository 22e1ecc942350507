#pragma once
// AST helpers shared by the element transformations over arrays: forward
// mode (ad_fwd.cpp, tangent functions) and reverse mode (ad_rev.cpp, vjp
// functions). Both emit the source's bindings again in order and then drop
// those nothing needs, so both need the same views of types, names and
// liveness.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "interp/eval/ad_lambda.hpp"
#include "interp/eval/env.hpp"
#include "interp/syntax/ast.hpp"
#include "interp/types/type.hpp"

namespace thorn::eval::ad::nest {

// 0 for a float, the rank of an array of floats (up to 3); Unsupported otherwise.
inline int rank_of(const TypePtr& t) {
  if (!t) throw Unsupported("an untyped expression in a mapped function");
  if (t->kind == Type::Kind::Prim && is_float(t->prim)) return 0;
  if (t->kind == Type::Kind::Array && t->elem && t->elem->kind == Type::Kind::Prim && is_float(t->elem->prim) &&
      t->dims.size() <= 3)
    return int(t->dims.size());
  throw Unsupported("a value in a mapped function that is not a float or an array of floats (up to 3 dimensions)");
}
inline bool float_valued(const TypePtr& t) {
  if (!t) return false;
  if (t->kind == Type::Kind::Prim) return is_float(t->prim);
  return t->kind == Type::Kind::Array && t->elem && t->elem->kind == Type::Kind::Prim && is_float(t->elem->prim);
}
inline Prim prim_of(const TypePtr& t) { return t->kind == Type::Kind::Prim ? t->prim : t->elem->prim; }

// t with one more (outer) dimension.
inline TypePtr rows_of(const TypePtr& t) {
  auto r = std::make_shared<Type>();
  r->kind = Type::Kind::Array;
  if (t->kind == Type::Kind::Array) {
    r->elem = t->elem;
    r->dims = t->dims;
  } else {
    r->elem = t;
  }
  r->dims.insert(r->dims.begin(), Dim{});
  return r;
}

inline bool literal(const Expr& e) {
  return e.kind == Expr::Kind::IntLit || e.kind == Expr::Kind::FloatLit || e.kind == Expr::Kind::BoolLit;
}
inline const Expr& strip(const Expr& e) {
  if ((e.kind == Expr::Kind::Attr || e.kind == Expr::Kind::Ascribe) && e.a) return strip(*e.a);
  return e;
}

// Names an expression mentions (every variable, bound inside or not: an
// over-approximation of its free variables, which is safe for liveness).
inline void mentioned(const Expr& e, std::set<std::string>& out) {
  if (e.kind == Expr::Kind::Var && e.name.qualifiers.empty()) out.insert(e.name.name);
  for (const ExprPtr* x : {&e.a, &e.b, &e.c})
    if (*x) mentioned(**x, out);
  for (const auto& x : e.list) mentioned(*x, out);
  for (const auto& [f, x] : e.fields) mentioned(*x, out);
  for (const auto& ix : e.indices)
    for (const ExprPtr* x : {&ix.index, &ix.start, &ix.end, &ix.stride})
      if (*x) mentioned(**x, out);
  for (const auto& c : e.cases)
    if (c.body) mentioned(*c.body, out);
}
inline void bound(const Pattern& p, std::vector<std::string>& out) {
  if (p.kind == Pattern::Kind::Id) out.push_back(p.name);
  if (p.inner) bound(*p.inner, out);
  for (const auto& e : p.elems) bound(*e, out);
  for (const auto& [f, e] : p.fields) bound(*e, out);
}

// A use of variable `n` in e (for its type), or null.
inline const Expr* find_var(const Expr& e, const std::string& n) {
  if (e.kind == Expr::Kind::Var && e.name.qualifiers.empty() && e.name.name == n) return &e;
  auto sub = [&](const ExprPtr& x) { return x ? find_var(*x, n) : nullptr; };
  for (const ExprPtr* x : {&e.a, &e.b, &e.c})
    if (auto r = sub(*x)) return r;
  for (const auto& x : e.list)
    if (auto r = sub(x)) return r;
  for (const auto& ix : e.indices)
    for (const ExprPtr* x : {&ix.index, &ix.start, &ix.end, &ix.stride})
      if (auto r = sub(*x)) return r;
  for (const auto& [f, x] : e.fields)
    if (auto r = sub(x)) return r;
  return nullptr;
}

using Bindings = std::vector<std::pair<PatternPtr, ExprPtr>>;

// `let`s of `bindings` around `result`, those nothing needs dropped: the
// generated code binds every primal value, but a tangent or an adjoint
// needs only some, and a delayed row read by index recomputes whatever its
// element computes.
inline ExprPtr wrap_live(const Bindings& bindings, ExprPtr result, const Loc& loc) {
  std::set<std::string> live;
  mentioned(*result, live);
  std::vector<bool> keep(bindings.size(), false);
  for (size_t k = bindings.size(); k-- > 0;) {
    std::vector<std::string> names;
    bound(*bindings[k].first, names);
    bool used = bindings[k].first->kind == Pattern::Kind::Wildcard;
    for (const auto& n : names) used = used || live.count(n);
    if (!used) continue;
    keep[k] = true;
    for (const auto& n : names) live.erase(n);
    mentioned(*bindings[k].second, live);
  }
  for (size_t k = bindings.size(); k-- > 0;) {
    if (!keep[k]) continue;
    auto l = std::make_shared<Expr>();
    l->kind = Expr::Kind::Let;
    l->loc = loc;
    l->pattern = bindings[k].first;
    l->a = bindings[k].second;
    l->b = result;
    l->type = result->type;
    result = l;
  }
  return result;
}

// Whether memoised derivative code, generated where its names resolved to
// `lookups` (the functions its environment gave), is valid in env: each
// name resolves to the same function there.
inline bool same_functions(const std::vector<std::pair<QualName, CallablePtr>>& lookups, const EnvPtr& env) {
  for (const auto& [name, fn] : lookups) {
    const Binding* b = lookup_value(env, name);
    if (!b || b->value.kind != Value::Kind::Function || b->value.fn != fn) return false;
  }
  return true;
}

}  // namespace thorn::eval::ad::nest
