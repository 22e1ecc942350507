// Binding forms: let, local functions, lambdas and match (loops: check_loop.cpp), and the
// checking of a function definition shared by top-level and local ones.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "interp/types/checker_impl.hpp"

namespace thorn::types {

namespace {
bool mentions_dim(const Ty& t0, const std::string& name);
}  // namespace

// Whether size n of a scheme's type is mentioned by a function-typed
// parameter (`f [n] (g: [n]i64 -> i64)`).
bool mentioned_in_function_param(const Ty& t0, const std::string& n) {
  for (Ty t = resolve(t0); t->kind == TyNode::Kind::Function; t = resolve(t->result))
    if (resolve(t->param)->kind == TyNode::Kind::Function && mentions_dim(t->param, n)) return true;
  return false;
}

namespace {

bool mentions_dim(const Ty& t0, const std::string& name) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array: {
      DimRef d = dim_resolve(t->dim);
      if (d->kind == DimNode::Kind::Name && d->name == name) return true;
      SizePoly p;
      if (d->kind == DimNode::Kind::Expr && dim_names(d).count(name)) return true;
      return mentions_dim(t->elem, name);
    }
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields)
        if (mentions_dim(f, name)) return true;
      return false;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps)
          if (mentions_dim(p, name)) return true;
      return false;
    case TyNode::Kind::Function:
      if (mentions_dim(t->param, name)) return true;
      if (t->param_name == name) return false;
      return mentions_dim(t->result, name);
    default: return false;
  }
}

// Makes every still-open size variable in t unknown.
void forget_size_vars(const Ty& t0) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array: {
      DimRef d = dim_resolve(t->dim);
      if (d->kind == DimNode::Kind::Var) d->link = dim_unknown();
      forget_size_vars(t->elem);
      return;
    }
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields) forget_size_vars(f);
      return;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps) forget_size_vars(p);
      return;
    case TyNode::Kind::Function:
      forget_size_vars(t->param);
      forget_size_vars(t->result);
      return;
    default: return;
  }
}

// Builds p1 -> p2 -> ... -> result, naming a parameter when a later
// parameter or the result mentions it as a size: (n: i64) -> [n]i32.
Ty curry(const std::vector<PatternPtr>& params, const std::vector<Ty>& ptys, Ty result) {
  Ty fn = std::move(result);
  for (size_t i = params.size(); i-- > 0;) {
    std::string name = CheckerImpl::pattern_name(*params[i]);
    if (!name.empty() && !mentions_dim(fn, name)) name.clear();
    fn = ty_function(ptys[i], fn, name);
  }
  return fn;
}

}  // namespace

namespace {
bool pattern_mentions(const Pattern& p, const std::string& n);

// The unbound size variables of t's arrays (not inside functions); `raw`:
// the size nodes written in t, linked or not.
void dim_vars(const Ty& t0, std::set<const DimNode*>& out, int depth = 0, bool raw = false) {
  if (!t0 || depth > 48) return;
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array: {
      DimRef d = raw ? t->dim : dim_resolve(t->dim);
      if (d->kind == DimNode::Kind::Var) out.insert(d.get());
      dim_vars(t->elem, out, depth + 1, raw);
      return;
    }
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields) dim_vars(f, out, depth + 1, raw);
      return;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps) dim_vars(p, out, depth + 1, raw);
      return;
    default: return;
  }
}
}  // namespace

// Whether a declared result has a `[]` that the body's type did not
// touch at all (a hole's type, say): not linked to any size, not even one
// thorn leaves to run time (it met none), and no parameter's size.
bool CheckerImpl::unsolved_result_size(const Ty& declared, const std::vector<Ty>& params) {
  std::set<const DimNode*> in_params, in_result;
  for (const auto& p : params) dim_vars(p, in_params);
  dim_vars(declared, in_result, 0, /*raw=*/true);
  for (const DimNode* d : in_result)
    if (!d->link && !d->met_unknown && !d->met && !d->met_self && !in_params.count(d)) return true;
  return false;
}

namespace {

// Whether an inferred type uses the size named n.
bool ty_mentions_size(const Ty& t0, const std::string& n, int depth = 0) {
  if (!t0 || depth > 48) return false;
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array: {
      DimRef d = dim_resolve(t->dim);
      if (d && d->kind == DimNode::Kind::Name && d->name == n) return true;
      if (d && d->kind == DimNode::Kind::Expr && dim_names(d).count(n)) return true;
      return ty_mentions_size(t->elem, n, depth + 1);
    }
    case TyNode::Kind::Record:
      for (const auto& [f, ft] : t->fields)
        if (ty_mentions_size(ft, n, depth + 1)) return true;
      return false;
    case TyNode::Kind::Sum:
      for (const auto& [c, ps] : t->constrs)
        for (const Ty& p : ps)
          if (ty_mentions_size(p, n, depth + 1)) return true;
      return false;
    case TyNode::Kind::Function:
      return ty_mentions_size(t->param, n, depth + 1) || ty_mentions_size(t->result, n, depth + 1);
    default: return false;
  }
}

// Whether t has an existential size (a function's `[]` result).
bool has_existential(const Ty& t0) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array: {
      DimRef d = dim_resolve(t->dim);
      if (d->kind == DimNode::Kind::Unknown && (d->existential || d->declared)) return true;
      if (d->kind == DimNode::Kind::Var && d->met) return true;
      return has_existential(t->elem);
    }
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields)
        if (has_existential(f)) return true;
      return false;
    default: return false;
  }
}
}  // namespace

namespace {
bool type_mentions(const TypeExprPtr& te, const std::string& n);
}  // namespace

CheckerImpl::FunResult CheckerImpl::check_function(const std::vector<TypeParam>& tparams,
                                                   std::vector<PatternPtr>& params, const TypeExprPtr& ret_type,
                                                   ExprPtr& body, Loc loc, bool generalise_it,
                                                   const std::string* self) {
  FunResult r;
  {
    std::vector<const Pattern*> ps;
    for (const auto& p : params) ps.push_back(p.get());
    check_duplicate_names(tparams, ps);
  }
  // A size parameter is bound from the shapes of the arguments, so some
  // parameter's type must mention it (Futhark: "Size [n] unused in pattern.").
  // Futhark also allows a size only in the return type (`rep`,
  // `unflatten`), the inferred one included (`{size = witness m, ...}`):
  // those are checked once the body's type is known.
  std::vector<const TypeParam*> in_result_only;
  for (const auto& tp : tparams) {
    if (!tp.is_size) continue;
    bool used = false;
    for (const auto& p : params) used = used || pattern_mentions(*p, tp.name);
    // A constant (`def foo [n] = iota n`) gets n from its instantiation.
    if (!used && !type_mentions(ret_type, tp.name) && !params.empty()) in_result_only.push_back(&tp);
  }
  check_hidden_param_sizes(tparams, params, ret_type);
  ++u.level;
  Ty fn;
  {
    FrameGuard g(*this);
    std::vector<int> ids = bind_type_params(tparams, g.frame());
    for (size_t i = 0; i < tparams.size(); ++i)
      if (!tparams[i].is_size && i < ids.size()) u.param_levels[ids[i]] = u.level;
    std::vector<Ty> ptys;
    {
      // `[]` in a parameter's type is a size to infer (Futhark's
      // checkTypeExpNonrigid; generalised into a size parameter), so both
      // uses of `xs: []i32` in `(xs, xs) : ([1]i32, [2]i32)` are one size.
      CounterGuard anon(anonymous_as_vars_);
      CounterGuard stamped(stamp_param_types_);
      for (auto& p : params) ptys.push_back(bind_pattern(p, g.frame(), false));
    }
    // `[]` in a declared return type is a size to infer from the body
    // (Futhark's checkBinding: checkTypeExpNonrigid): `: [][]f64` of a body
    // [n][3]f64 is [n][3]f64; n, bound inside the body, is existential at
    // each use (freshen_result_sizes: Futhark's unscopeUnknown). What the
    // body leaves unknown is existential too (marked below). thorn's
    // prelude (checked while `prelude` is still null) writes `[]` where
    // Futhark's has size expressions (`drop`: [n - i]), so its `[]` stay
    // unknown, and of its functions only those existential in Futhark's
    // prelude are marked.
    Ty declared;
    if (ret_type) {
      std::optional<CounterGuard> anon;
      if (prelude) anon.emplace(anonymous_as_vars_);
      declared = eval_type(ret_type);
    }
    static const std::set<std::string> prelude_existential = {"filter", "partition", "partition2"};
    bool mark_existential = declared && (prelude || (self && prelude_existential.count(*self)));
    if (mark_existential && !prelude) declared = mark_result_existentials(declared);
    // [recursion] A function is in scope in its own body, monomorphically,
    // as in Futhark (parameters of the same name shadow it). Only a name
    // that means nothing yet: an operator defined through the built-in one
    // at another type (`def (+) (a: v) (b: v) = (a.0 + b.0, ...)`), or a
    // function defined through an outer one of the same name, keeps
    // referring to that (the evaluator's may_recurse makes the same choice).
    Ty self_result;
    if (self && !self->empty() && !is_symbolic(*self) && !params.empty() && !find_value(*self)) {
      self_result = declared ? declared : u.fresh(loc);
      auto s = std::make_shared<Scheme>();
      s->type = curry(params, ptys, self_result);
      // Futhark's twist on monomorphic recursion: size parameters are
      // instantiated afresh at each recursive use.
      for (const auto& tp : tparams)
        if (tp.is_size) s->size_params.push_back(tp.name);
      g.frame().values[*self] = s;
    }
    Ty bt = infer(body);
    // Futhark checks once the body is inferred: `[]` in a parameter's type
    // that the body unified with the size (`argmin [n] (xs: []f64)` zipping
    // xs with `iota n`) uses it too.
    for (const TypeParam* tp : in_result_only) {
      bool used = ty_mentions_size(bt, tp->name);
      for (const Ty& pt : ptys) used = used || ty_mentions_size(pt, tp->name);
      if (!used) error(tp->loc, fmt::format("Size [{}] unused in pattern.", tp->name));
    }
    if (params.empty() && std::any_of(tparams.begin(), tparams.end(), [](const TypeParam& tp) { return tp.is_size; }) &&
        has_existential(declared ? declared : bt))
      error(loc, fmt::format("A size-polymorphic value binding may not have a type with an existential size.\n"
                             "Type of this binding is:\n  {}",
                             show(declared ? declared : bt)));
    if (declared) {
      expect_sized(body->loc, declared, bt, "Function body does not have expected type (the declared return type)");
      if (prelude) r.size_polymorphic_result = unsolved_result_size(declared, ptys);
      if (mark_existential && prelude) {
        // A `[]` the body gave a parameter's size is that size (Futhark
        // makes it a size parameter of both), not a fresh one per call.
        std::set<const DimNode*> in_params;
        for (const auto& pt : ptys) dim_vars(pt, in_params);
        declared = mark_result_existentials(declared, &in_params);
      }
      // Futhark's unification of function types (Unify.hs, Arrow): a
      // function that consumes its argument is not one that only observes
      // it (`entry g : []f32 -> f32 = f` with `f (xs: *[]f32)`).
      for (Ty d = resolve(declared), a = resolve(bt); d->kind == TyNode::Kind::Function && a->kind == TyNode::Kind::Function;
           d = resolve(d->result), a = resolve(a->result))
        if (!resolve(d->param)->unique && resolve(a->param)->unique)
          error(body->loc, fmt::format("Function body does not have expected type (the declared return type).\n"
                                       "Expected: {}\nActual:   {}\nParameters\n  {}\nand\n  {}\n"
                                       "are incompatible regarding consuming their arguments.",
                                       show(declared), show(bt), show(d->param), show(a->param)));
    }
    if (!declared) check_unknown_param_sizes(bt, self ? *self : std::string(), curry(params, ptys, bt), loc);
    if (!declared && self_result)
      expect(body->loc, self_result, bt, "Function body does not have the type of its recursive uses");
    fn = curry(params, ptys, declared ? declared : ty_with_unique(bt, false));
    for (size_t i = 0; i < tparams.size(); ++i) {
      if (tparams[i].is_size) {
        r.size_params.push_back(tparams[i].name);
      } else {
        r.quantified.push_back(ids[i]);
        if (!tparams[i].lifted) r.nonlifted.emplace_back(ids[i], tparams[i].name);
      }
    }
    // Futhark's letGeneralise (closeOverSizes): a size variable of a
    // parameter's type that is still unconstrained when the definition is
    // generalised becomes an implicit size parameter, so that the result
    // keeps it (`def exscan op ne xs = ...` : [d]a -> *[d]a). One that only
    // the result has stays existential. The name cannot be written by a
    // user, so it cannot clash with a size written in the type. Only the
    // checker knows these parameters: the evaluator gets the sizes from
    // the arguments, as for any unannotated parameter.
    if (generalise_it && prelude) {
      std::set<const DimNode*> seen;
      for (const Ty& pt : ptys) {
        std::set<const DimNode*> vars;
        dim_vars(pt, vars);
        for (const DimNode* dn : vars) {
          if (!seen.insert(dn).second) continue;
          auto* d = const_cast<DimNode*>(dn);
          if (d->link || d->met || d->met_unknown || d->met_self || d->bound_inside) continue;
          std::string name = fmt::format("d#{}", inferred_size_counter_++);
          d->link = dim_name(name);
          r.size_params.push_back(name);
        }
      }
    }
  }
  --u.level;
  if (generalise_it) {
    std::vector<std::string> taken;
    for (const auto& tp : tparams) taken.push_back(tp.name);
    for (int id : generalise(fn, taken, loc)) r.quantified.push_back(id);
  }
  r.type = fn;
  return r;
}

namespace {
bool type_mentions(const TypeExprPtr& te, const std::string& n);
bool size_mentions(const SizeExpr& s, const std::string& n) {
  // A size expression (`[n + m]`) is taken to mention every name: lenient.
  if (s.kind == SizeExpr::Kind::Expr) return true;
  return s.kind == SizeExpr::Kind::Name && s.name.qualifiers.empty() && s.name.name == n;
}
bool type_mentions(const TypeExprPtr& te, const std::string& n) {
  if (!te) return false;
  if (size_mentions(te->size, n) || type_mentions(te->elem, n) || type_mentions(te->param, n) ||
      type_mentions(te->result, n))
    return true;
  for (const auto& a : te->args)
    if ((a.is_size && size_mentions(a.size, n)) || type_mentions(a.type, n)) return true;
  for (const auto& x : te->elems)
    if (type_mentions(x, n)) return true;
  for (const auto& [f, x] : te->fields)
    if (type_mentions(x, n)) return true;
  for (const auto& [c, xs] : te->constructors)
    for (const auto& x : xs)
      if (type_mentions(x, n)) return true;
  return false;
}
// Whether n is the size of an array in te (not inside a size expression or
// a function type): Futhark's determineSizeWitnesses, as far as the syntax
// shows it. A size argument of a named type counts (its definition may use
// it constructively).
bool witnesses(const TypeExprPtr& te, const std::string& n) {
  if (!te) return false;
  auto is_n = [&](const SizeExpr& s) {
    return s.kind == SizeExpr::Kind::Name && s.name.qualifiers.empty() && s.name.name == n;
  };
  switch (te->kind) {
    case TypeExpr::Kind::Array: return is_n(te->size) || witnesses(te->elem, n);
    case TypeExpr::Kind::Function: return false;
    case TypeExpr::Kind::Existential:
      for (const auto& m : te->existentials)
        if (m == n) return false;
      return witnesses(te->elem, n);
    default: break;
  }
  if (witnesses(te->elem, n)) return true;
  for (const auto& a : te->args)
    if ((a.is_size && is_n(a.size)) || witnesses(a.type, n)) return true;
  for (const auto& x : te->elems)
    if (witnesses(x, n)) return true;
  for (const auto& [f, x] : te->fields)
    if (witnesses(x, n)) return true;
  for (const auto& [c, xs] : te->constructors)
    for (const auto& x : xs)
      if (witnesses(x, n)) return true;
  return false;
}
bool pattern_witnesses(const Pattern& p, const std::string& n) {
  if (p.kind == Pattern::Kind::Ascribed && witnesses(p.ascription, n)) return true;
  if (p.inner && pattern_witnesses(*p.inner, n)) return true;
  for (const auto& x : p.elems)
    if (pattern_witnesses(*x, n)) return true;
  for (const auto& [f, x] : p.fields)
    if (pattern_witnesses(*x, n)) return true;
  return false;
}
bool pattern_mentions(const Pattern& p, const std::string& n) {
  if (p.kind == Pattern::Kind::Ascribed && type_mentions(p.ascription, n)) return true;
  if (p.inner && pattern_mentions(*p.inner, n)) return true;
  for (const auto& x : p.elems)
    if (pattern_mentions(*x, n)) return true;
  for (const auto& [f, x] : p.fields)
    if (pattern_mentions(*x, n)) return true;
  return false;
}
}  // namespace

void size_witnesses(const Ty& t0, bool in_function, std::set<std::string>& witnessed, std::set<std::string>& other) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array: {
      DimRef d = dim_resolve(t->dim);
      if (d->kind == DimNode::Kind::Name) (in_function ? other : witnessed).insert(d->name);
      else for (const auto& n : dim_names(d)) other.insert(n);
      size_witnesses(t->elem, in_function, witnessed, other);
      return;
    }
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields) size_witnesses(f, in_function, witnessed, other);
      return;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps) size_witnesses(p, in_function, witnessed, other);
      return;
    case TyNode::Kind::Function:
      size_witnesses(t->param, true, witnessed, other);
      size_witnesses(t->result, true, witnessed, other);
      return;
    default: return;
  }
}

void CheckerImpl::check_size_binders_witnessed(const std::vector<TypeParam>& sizes, const Ty& pattern_type) {
  // Futhark's checkPat: `let [n] (f: [n]bool -> [n]bool) = ...` cannot
  // take n from the value.
  std::set<std::string> witnessed, other;
  size_witnesses(pattern_type, false, witnessed, other);
  for (const auto& tp : sizes)
    if (tp.is_size && other.count(tp.name) && !witnessed.count(tp.name))
      error(tp.loc, fmt::format("Cannot bind [{}] as it is never used as the size of a concrete (non-function) value.",
                                tp.name));
}

Ty CheckerImpl::infer_let(Expr& e) {
  // `let [n] xs = ...` binds n from the type of the pattern, so the pattern
  // must mention it (Futhark: "Size [n] unused in pattern").
  check_duplicate_names(e.type_params, {e.pattern.get()});
  for (const auto& tp : e.type_params)
    if (tp.is_size && !pattern_mentions(*e.pattern, tp.name))
      error(tp.loc, fmt::format("Size [{}] unused in pattern.", tp.name));
  Ty v = infer(e.a);
  FrameGuard g(*this);
  bind_type_params(e.type_params, g.frame());
  loosen_sizes(e.type_params, g.frame());
  Ty p = bind_pattern(e.pattern, g.frame(), false);
  check_size_binders_witnessed(e.type_params, p);
  // `let [n] xs: [n]t = e` binds n to e's size: no static check then.
  if (e.type_params.empty()) {
    expect_sized(e.a->loc, p, v, "in let binding (the pattern cannot match the value)");
  } else {
    // Each size parameter is one size, whatever its uses: Futhark makes it a
    // size variable that the value's sizes must agree on (shapes/letshape2:
    // `[k][k]` against `[n][m]`).
    Substitution sub;
    for (const auto& tp : e.type_params)
      if (tp.is_size) {
        sub.dims[tp.name] = dim_var();
      }
    expect_sized(e.a->loc, substitute(p, sub), v, "in let binding (the pattern cannot match the value)");
    // A size the value does not determine (`let [n][m] (xss: [n][m]i64) =
    // []`) is ambiguous unless something later in the definition does
    // (Futhark's "Ambiguous size"): it is kept apart from the name.
    Substitution open;
    for (const auto& [name, var] : sub.dims)
      if (DimRef r = dim_resolve(var); r->kind == DimNode::Kind::Var && !r->met && !r->met_unknown && !r->met_self) {
        open.dims[name] = dim_var();
        for (const auto& tp : e.type_params)
          if (tp.is_size && tp.name == name) pending().ambiguous.push_back({r, name, "", tp.loc});
      }
    expect(e.a->loc, open.dims.empty() ? p : substitute(p, open), v,
           "in let binding (the pattern cannot match the value)");
  }
  // A let-bound function value is not generalised; its still-open sizes
  // become unknown so that uses at different sizes are not errors.
  if (resolve(v)->kind == TyNode::Kind::Function) forget_size_vars(v);
  return infer(e.b);
}

Ty CheckerImpl::infer_letfun(Expr& e) {
  check_not_redefined(e.name.name, e.loc);
  // Futhark does not generalise a local function over the types it
  // infers (Unsized.hs, LetFun: only its declared type parameters are
  // quantified): `let apply f x = f x` has one type at all its uses.
  FunResult r = check_function(e.type_params, e.params, e.ret_type, e.a, e.loc, false, &e.name.name);
  e.quantified = r.quantified;
  // Open size variables of a local function would be shared by all its
  // uses (`let f x = map g x in (f as, f bs)`); Futhark generalises them.
  // Forgetting them (unknown sizes) is the lenient equivalent.
  forget_size_vars(r.type);
  Frame f;
  auto s = std::make_shared<Scheme>();
  s->type = r.type;
  s->quantified = r.quantified;
  s->size_params = r.size_params;
  s->nonlifted = r.nonlifted;
  s->arity = static_cast<int>(e.params.size());
  f.values[e.name.name] = s;
  FrameGuard g(*this, std::move(f));
  return infer(e.b);
}

Ty CheckerImpl::infer_lambda(Expr& e) {
  {
    std::vector<const Pattern*> ps;
    for (const auto& p : e.params) ps.push_back(p.get());
    check_duplicate_names({}, ps);
  }
  FrameGuard g(*this);
  std::vector<Ty> ptys;
  for (auto& p : e.params) ptys.push_back(bind_pattern(p, g.frame(), false));
  // A lambda's return sizes are "absorbable" in Futhark (Terms.hs, Lambda:
  // checkTypeExpNonrigid): `\n : []i64 -> iota (n + 1)` returns [n + 1].
  Ty declared;
  if (e.ret_type) {
    CounterGuard anon(anonymous_as_vars_);
    declared = eval_type(e.ret_type);
  }
  Ty bt = infer(e.a);
  if (declared)
    expect_sized(e.a->loc, declared, bt, "Lambda body does not have expected type (the declared return type)");
  return curry(e.params, ptys, declared ? declared : bt);
}

Ty CheckerImpl::infer_match(Expr& e) {
  Ty scrutinee = infer(e.a);
  Ty result;
  for (size_t i = 0; i < e.cases.size(); ++i) {
    Case& c = e.cases[i];
    FrameGuard g(*this);
    Ty p = bind_pattern(c.pattern, g.frame(), true);
    unify_or(c.pattern->loc, p, scrutinee, [&] {
      return fmt::format("pattern of type {} cannot match a value of type {}", show(p), show(scrutinee));
    });
    Ty b = infer(c.body);
    if (!result) {
      result = b;
      continue;
    }
    CounterGuard joining(u.joining_branches);
    unify_or(c.body->loc, result, b, [&] {
      return fmt::format("match cases have different types: {} (case 1) and {} (case {})", show(result), show(b),
                         i + 1);
    });
    result = join_sizes(result, b, true);
  }
  if (!result) error(e.loc, "match without cases");
  return result;
}

}  // namespace thorn::types

namespace thorn::types {

bool CheckerImpl::type_expr_mentions(const TypeExprPtr& te, const std::string& name) { return type_mentions(te, name); }

// Futhark's checkEntryPoint rules on size parameters: an entry point's
// caller supplies its arguments, whose shapes must give every size, and
// cannot pick a size that only its result mentions.
void CheckerImpl::check_entry_sizes(const Decl& d) {
  auto link = [](const char* href, const std::string& msg) {
    return fmt::format("{}\n\nFor more information, see:\n  https://futhark.readthedocs.io/en/latest/error-index.html#{}",
                       msg, href);
  };
  // The parameters of a function-typed result count as parameters
  // (`entry main [n] : [n]f32 -> f32 = f`).
  std::vector<TypeExprPtr> ret_params;
  TypeExprPtr ret = d.ret_type;
  while (ret && (ret->kind == TypeExpr::Kind::Function || ret->kind == TypeExpr::Kind::Unique)) {
    if (ret->kind == TypeExpr::Kind::Unique) {
      ret = ret->elem;
      continue;
    }
    ret_params.push_back(ret->param);
    ret = ret->result;
  }
  for (const auto& tp : d.type_params) {
    if (!tp.is_size) continue;
    bool in_params = false, witnessed = false;
    for (const auto& p : d.params) {
      in_params = in_params || pattern_mentions(*p, tp.name);
      witnessed = witnessed || pattern_witnesses(*p, tp.name);
    }
    for (const auto& p : ret_params) {
      in_params = in_params || type_mentions(p, tp.name);
      witnessed = witnessed || witnesses(p, tp.name);
    }
    if (!in_params && type_mentions(ret, tp.name))
      error(d.loc, link("size-polymorphic-entry", "Entry point functions must not be size-polymorphic in their return type."));
    if (!witnessed)
      error(tp.loc, link("nonconstructive-entry",
                         fmt::format("Entry point size parameter [{}] only used non-constructively.", tp.name)));
  }
}

}  // namespace thorn::types
