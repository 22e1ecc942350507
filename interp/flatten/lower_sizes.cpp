// Size parameters of an inlined function that no parameter's plain size
// name gave (`unflatten 't [n] [m] (xs: [n * m]t)`): found the way the
// evaluator's call_closure finds them (interp/eval/size_infer.cpp), from
// the parameters' checked types, from the call's checked result type, and
// by solving the parameters' size expressions against the arguments'
// lengths. A size the lowering cannot find is left unbound: the body's use
// of it falls back, saying that the size cannot be determined when the
// nest is planned (typically a size that differs between elements).
#include <algorithm>

#include <fmt/format.h>

#include "interp/flatten/lower.hpp"

namespace thorn::flatten {

namespace {

struct Unbound {
  const std::vector<TypeParam>& tps;
  std::vector<std::pair<std::string, Sym>>& vars;

  bool is(const std::string& name) const {
    bool size_param = std::any_of(tps.begin(), tps.end(), [&](const TypeParam& t) { return t.is_size && t.name == name; });
    bool bound = std::any_of(vars.begin(), vars.end(), [&](const auto& v) { return v.first == name; });
    return size_param && !bound;
  }
  bool any() const {
    return std::any_of(tps.begin(), tps.end(), [&](const TypeParam& t) { return t.is_size && is(t.name); });
  }
};

// The value of a size expression whose names are all bound to constants.
std::optional<int64_t> size_value(const Expr& e, const std::vector<std::pair<std::string, Sym>>& vars) {
  switch (e.kind) {
    case Expr::Kind::IntLit: return int64_t(e.int_value);
    case Expr::Kind::Var: {
      if (!e.name.qualifiers.empty()) return std::nullopt;
      for (auto it = vars.rbegin(); it != vars.rend(); ++it)
        if (it->first == e.name.name) {
          if (it->second.is_scalar() && it->second.known) return it->second.known->as_i64();
          return std::nullopt;
        }
      return std::nullopt;
    }
    case Expr::Kind::BinOp: {
      auto x = size_value(*e.a, vars), y = size_value(*e.b, vars);
      if (!x || !y || !e.name.qualifiers.empty()) return std::nullopt;
      if (e.name.name == "+") return *x + *y;
      if (e.name.name == "-") return *x - *y;
      if (e.name.name == "*") return *x * *y;
      return std::nullopt;
    }
    case Expr::Kind::Ascribe:
    case Expr::Kind::Coerce: return size_value(*e.a, vars);
    default: return std::nullopt;
  }
}

}  // namespace

void Lowerer::solve_sizes(const std::vector<TypeParam>& tps, const std::vector<PatternPtr>& params,
                          const std::vector<Sym>& args, const TypeExpr* ret, const CallHint& hint,
                          std::vector<std::pair<std::string, Sym>>& vars) {
  Unbound unbound{tps, vars};
  if (!unbound.any()) return;
  auto bind_const = [&](const std::string& name, int64_t v) {
    if (v >= 0 && unbound.is(name)) vars.emplace_back(name, constant(Scalar::i64(v)));
  };
  // 0. The sizes the checker instantiated the size parameters with.
  for (const auto& [name, v] : hint.sizes) bind_const(name, v);
  // 1. The parameters' checked types (sizes behind type abbreviations).
  for (size_t k = 0; k < params.size() && k < args.size(); ++k) {
    const Type* t = params[k]->type.get();
    const Sym& a = args[k];
    if (!t || t->kind != Type::Kind::Array || a.kind != Sym::Kind::Array) continue;
    for (size_t d = 0; d < t->dims.size() && d < a.arr->dims.size(); ++d) {
      if (t->dims[d].kind != Dim::Kind::Name || !unbound.is(t->dims[d].name)) continue;
      if (a.arr->len_of(d) != kir::kNoReg)
        vars.emplace_back(t->dims[d].name, dim_size(a, d));
      else
        bind_const(t->dims[d].name, a.arr->dims[d]);
    }
  }
  // 2. The call's result type: `[n][m]t` against what the checker knew there.
  if (ret && !hint.dims.empty() && unbound.any()) {
    const TypeExpr* te = ret;
    size_t d = 0;
    while (te && d < hint.dims.size()) {
      if (te->kind == TypeExpr::Kind::Unique) {
        te = te->elem.get();
        continue;
      }
      if (te->kind != TypeExpr::Kind::Array) break;
      if (te->size.kind == SizeExpr::Kind::Name && te->size.name.qualifiers.empty() && hint.dims[d])
        bind_const(te->size.name.name, *hint.dims[d]);
      te = te->elem.get();
      ++d;
    }
  }
  // 3. Size expressions of the parameters: `[n * m]` with one side known.
  std::function<void(const Expr&, int64_t)> solve = [&](const Expr& e, int64_t target) {
    if (e.kind == Expr::Kind::Var) {
      if (e.name.qualifiers.empty()) bind_const(e.name.name, target);
      return;
    }
    if (e.kind != Expr::Kind::BinOp || !e.name.qualifiers.empty()) return;
    auto x = size_value(*e.a, vars), y = size_value(*e.b, vars);
    if (x.has_value() == y.has_value()) return;
    const std::string& op = e.name.name;
    if (op == "+") {
      solve(x ? *e.b : *e.a, target - (x ? *x : *y));
    } else if (op == "-") {
      if (x)
        solve(*e.b, *x - target);
      else
        solve(*e.a, target + *y);
    } else if (op == "*") {
      int64_t known = x ? *x : *y;
      if (known != 0 && target % known == 0) solve(x ? *e.b : *e.a, target / known);
    }
  };
  std::function<void(const Pattern&, const Sym&)> on_param = [&](const Pattern& p, const Sym& a) {
    if (p.kind == Pattern::Kind::Tuple && a.kind == Sym::Kind::Tuple && a.elems.size() == p.elems.size()) {
      for (size_t i = 0; i < p.elems.size(); ++i) on_param(*p.elems[i], a.elems[i]);
      return;
    }
    if (p.kind != Pattern::Kind::Ascribed || !p.ascription || a.kind != Sym::Kind::Array) return;
    const TypeExpr* te = p.ascription.get();
    size_t d = 0;
    while (te && (te->kind == TypeExpr::Kind::Array || te->kind == TypeExpr::Kind::Unique)) {
      if (te->kind == TypeExpr::Kind::Array) {
        bool fixed = a.arr->len_of(d) == kir::kNoReg;
        if (fixed && d < a.arr->dims.size() && te->size.kind == SizeExpr::Kind::Expr && te->size.expr)
          solve(*te->size.expr, a.arr->dims[d]);
        ++d;
      }
      te = te->elem.get();
    }
  };
  for (int round = 0; round < 2 && unbound.any(); ++round)  // a size found may solve another
    for (size_t k = 0; k < params.size() && k < args.size(); ++k) on_param(*params[k], args[k]);
  for (const TypeParam& t : tps)
    if (t.is_size && unbound.is(t.name)) unsolved_sizes_.insert(t.name);
}

// A checked dimension's value where its names are bound to constants in
// the caller's scope.
std::optional<int64_t> Lowerer::dim_value(const Dim& d, const ScopePtr& sc, const Loc& loc) {
  auto name_value = [&](const std::string& name) -> std::optional<int64_t> {
    try {
      QualName q;
      q.name = name;
      Sym s = lookup(q, sc, loc);
      if (s.is_scalar() && s.known && is_integral(s.prim)) return s.known->as_i64();
    } catch (const Fallback&) {
      // a size the checker invented: nothing to learn from it
    }
    return std::nullopt;
  };
  if (d.kind == Dim::Kind::Constant) return d.value;
  if (d.kind == Dim::Kind::Name) return name_value(d.name);
  if (!d.formula) return std::nullopt;
  return d.formula->value(name_value);
}

Sym Lowerer::coerce(const Sym& v, const Expr& e, const ScopePtr& sc) {
  if (v.kind != Sym::Kind::Array || !dynamic(v) || !e.type || e.type->kind != Type::Kind::Array) return v;
  const SymArr& a = *v.arr;
  const std::vector<Dim>& dims = e.type->dims;
  auto out = std::make_shared<SymArr>(a);
  std::vector<Dim> shown;  // the type with its known sizes, for the message
  std::string shape;
  kir::Reg len = kir::kNoReg, fixed = kir::kNoReg;
  for (size_t k = 0; k < a.dims.size(); ++k) {
    std::optional<int64_t> n = k < dims.size() ? dim_value(dims[k], sc, e.loc) : std::nullopt;
    if (k < dims.size()) shown.push_back(n ? Dim{Dim::Kind::Constant, *n, {}, nullptr} : dims[k]);
    kir::Reg l = a.len_of(k);
    if (l == kir::kNoReg) {
      if (n && *n != a.dims[k]) throw Fallback("a coercion to another shape");  // the reference reports it
      shape += fmt::format("[{}]", a.dims[k]);
      continue;
    }
    if (!n || len != kir::kNoReg) {
      shape += "[n]";
      continue;  // left as it is: no size known, or a second one (a Check reports one value here)
    }
    if (a.dims[k] >= 0 && *n > a.dims[k]) throw Fallback("a coercion to a length past the array's bound");
    shape += "[{}]";
    len = l;
    fixed = b_.i64(*n);
    out->dims[k] = *n;
    if (k == 0) out->len = kir::kNoReg;
    else out->inner_len[k - 1] = kir::kNoReg;
  }
  if (len == kir::kNoReg) return v;
  out->set_inner_len(out->inner_len);
  std::string type = to_string(*array_type(e.type->elem, shown));
  b_.check(b_.compare(kir::CmpOp::Eq, len, fixed),
           fmt::format("Value of shape {} cannot match shape of type \"{}\".", shape, type), e.loc, len);
  return array_sym(out);
}

// What the checker knew of a call's result: its outer dims where constant
// (or bound to constants in the caller's scope).
Lowerer::CallHint Lowerer::call_hint(const Expr& call, const ScopePtr& sc) {
  CallHint h;
  const Type* t = call.type.get();
  while (t && t->kind == Type::Kind::Array) {
    for (const Dim& d : t->dims) h.dims.push_back(dim_value(d, sc, call.loc));
    t = t->elem.get();
  }
  // The callee's instantiated sizes travel on its SymFn (the Var case of
  // Lowerer::lower), which apply() adds to this hint.
  return h;
}

}  // namespace thorn::flatten
