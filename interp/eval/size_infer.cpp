#include "interp/eval/size_infer.hpp"

#include <algorithm>

namespace thorn::eval {

namespace {

bool is_unbound_param(const QualName& name, const Evaluator::SizeScope& sizes) {
  return name.qualifiers.empty() &&
         std::find(sizes.to_bind.begin(), sizes.to_bind.end(), name.name) != sizes.to_bind.end() &&
         !sizes.is_bound(name.name);
}

void bind(const std::string& name, int64_t value, Evaluator::SizeScope& sizes) {
  Binding b;
  b.value = Value(Scalar::i64(value));
  sizes.frame->emplace_back(name, std::move(b));
}

void solve(const Expr& e, int64_t target, Evaluator::SizeScope& sizes, const EnvPtr& env);

// `ret` at array nesting depth `k` of `hint` (whose dims are flattened).
void match_result(const TypeExpr& ret, const Type& hint, size_t k, Evaluator::SizeScope& sizes, const EnvPtr& env) {
  switch (ret.kind) {
    case TypeExpr::Kind::Unique: match_result(*ret.elem, hint, k, sizes, env); return;
    case TypeExpr::Kind::Array: {
      if (hint.kind != Type::Kind::Array) return;
      if (k >= hint.dims.size()) return;  // a type parameter instantiated with an array
      const Dim& d = hint.dims[k];
      if (ret.size.kind == SizeExpr::Kind::Name && d.kind == Dim::Kind::Constant &&
          is_unbound_param(ret.size.name, sizes))
        bind(ret.size.name.name, d.value, sizes);
      if (ret.size.kind == SizeExpr::Kind::Expr && ret.size.expr && d.kind == Dim::Kind::Constant)
        solve(*ret.size.expr, d.value, sizes, env);
      if (k + 1 < hint.dims.size())
        match_result(*ret.elem, hint, k + 1, sizes, env);
      else if (hint.elem)
        match_result(*ret.elem, *hint.elem, 0, sizes, env);
      return;
    }
    case TypeExpr::Kind::Tuple:
      if (hint.kind != Type::Kind::Tuple || hint.elems.size() != ret.elems.size()) return;
      for (size_t i = 0; i < ret.elems.size(); ++i) match_result(*ret.elems[i], *hint.elems[i], 0, sizes, env);
      return;
    case TypeExpr::Kind::Record:
      if (hint.kind != Type::Kind::Record) return;
      for (const auto& [name, ft] : ret.fields)
        for (const auto& [hname, ht] : hint.fields)
          if (hname == name) match_result(*ft, *ht, 0, sizes, env);
      return;
    default: return;
  }
}

// Makes `e` equal `target` by binding its one unknown size parameter, if it
// has exactly one and the arithmetic allows it (+, -, and * by a divisor).
void solve(const Expr& e, int64_t target, Evaluator::SizeScope& sizes, const EnvPtr& env) {
  if (e.kind == Expr::Kind::Var) {
    if (is_unbound_param(e.name, sizes) && target >= 0) bind(e.name.name, target, sizes);
    return;
  }
  if (e.kind != Expr::Kind::BinOp || !e.name.qualifiers.empty()) return;
  auto x = size_expr_value(*e.a, sizes, env);
  auto y = size_expr_value(*e.b, sizes, env);
  if (x.has_value() == y.has_value()) return;  // nothing or more than one unknown side
  const std::string& op = e.name.name;
  if (op == "+") {
    solve(x ? *e.b : *e.a, target - (x ? *x : *y), sizes, env);
  } else if (op == "-") {
    if (x)
      solve(*e.b, *x - target, sizes, env);
    else
      solve(*e.a, target + *y, sizes, env);
  } else if (op == "*") {
    int64_t known = x ? *x : *y;
    if (known != 0 && target % known == 0) solve(x ? *e.b : *e.a, target / known, sizes, env);
  }
}

void solve_type(const TypeExpr& te, const Value& v, Evaluator::SizeScope& sizes, const EnvPtr& env) {
  switch (te.kind) {
    case TypeExpr::Kind::Unique: solve_type(*te.elem, v, sizes, env); return;
    case TypeExpr::Kind::Array: {
      if (v.kind != Value::Kind::Array) return;
      const TypeExpr* cur = &te;
      size_t k = 0;
      while (cur->kind == TypeExpr::Kind::Array || cur->kind == TypeExpr::Kind::Unique) {
        if (cur->kind == TypeExpr::Kind::Array) {
          if (k < v.array->shape.size() && cur->size.kind == SizeExpr::Kind::Expr && cur->size.expr)
            solve(*cur->size.expr, v.array->shape[k], sizes, env);
          ++k;
        }
        cur = cur->elem.get();
      }
      return;
    }
    case TypeExpr::Kind::Tuple:
      if (v.kind != Value::Kind::Tuple || v.elems->size() != te.elems.size()) return;
      for (size_t i = 0; i < te.elems.size(); ++i) solve_type(*te.elems[i], (*v.elems)[i], sizes, env);
      return;
    default: return;
  }
}

}  // namespace

void bind_size_hints(const std::vector<std::pair<std::string, int64_t>>& hints, Evaluator::SizeScope& sizes) {
  for (const auto& [name, v] : hints)
    if (std::find(sizes.to_bind.begin(), sizes.to_bind.end(), name) != sizes.to_bind.end() && !sizes.is_bound(name))
      bind(name, v, sizes);
}

void bind_sizes_from_result(const TypeExpr& ret, const Type& hint, Evaluator::SizeScope& sizes, const EnvPtr& env) {
  match_result(ret, hint, 0, sizes, env);
}

void solve_param_sizes(const Pattern& p, const Value& v, Evaluator::SizeScope& sizes, const EnvPtr& env) {
  switch (p.kind) {
    case Pattern::Kind::Ascribed:
      if (p.ascription) solve_type(*p.ascription, v, sizes, env);
      if (p.inner) solve_param_sizes(*p.inner, v, sizes, env);
      return;
    case Pattern::Kind::Tuple:
      if (v.kind != Value::Kind::Tuple || v.elems->size() != p.elems.size()) return;
      for (size_t i = 0; i < p.elems.size(); ++i) solve_param_sizes(*p.elems[i], (*v.elems)[i], sizes, env);
      return;
    default: return;
  }
}

bool has_unbound_sizes(const Evaluator::SizeScope& sizes) {
  for (const auto& n : sizes.to_bind)
    if (!sizes.is_bound(n)) return true;
  return false;
}

}  // namespace thorn::eval
