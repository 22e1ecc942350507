#include "interp/types/unify.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace thorn::types {

namespace {

[[noreturn]] void fail(std::string detail) { throw UnifyFailure{std::move(detail)}; }

// Futhark's wording for constraint clashes (TySolve.hs).
std::string show_fields(const Fields& fs) {
  Ty r = std::make_shared<TyNode>();
  r->kind = TyNode::Kind::Record;
  r->fields = fs;
  return show(r);
}
std::string show_constrs(const Constrs& cs) {
  Ty r = std::make_shared<TyNode>();
  r->kind = TyNode::Kind::Sum;
  r->constrs = cs;
  return show(r);
}
std::string show_one_constr(const std::string& name, const std::vector<Ty>& payload) {
  return show_constrs({{name, payload}});
}
[[noreturn]] void arity_mismatch(const std::string& name, const std::vector<Ty>& a, const std::vector<Ty>& b) {
  fail(fmt::format("Cannot unify type with constructor\n  {}\nwith type of constructor\n  {}\nbecause they differ in arity.",
                   show_one_constr(name, a), show_one_constr(name, b)));
}
// The names in one list and not the other, both ways.
template <class L>
std::string unshared(const L& a, const L& b, const char* prefix) {
  std::vector<std::string> out;
  auto has = [](const L& l, const std::string& n) {
    for (const auto& [m, x] : l)
      if (m == n) return true;
    return false;
  };
  for (const auto& [n, x] : b)
    if (!has(a, n)) out.push_back(prefix + n);
  for (const auto& [n, x] : a)
    if (!has(b, n)) out.push_back(prefix + n);
  std::string r;
  for (const auto& n : out) r += (r.empty() ? "" : ", ") + n;
  return r;
}
std::string constraint_text(const TyNode& v) {
  switch (v.constraint) {
    case Constraint::Overloaded: return fmt::format("type that must be one of\n  {}", describe_prims(v.prims));
    case Constraint::HasFields: return fmt::format("record type\n  {}", show_fields(v.fields));
    case Constraint::HasConstrs: return fmt::format("type with constructors\n  {}", show_constrs(v.constrs));
    default: return "type";
  }
}

// Whether t has a part of the given kind (arrays, records and sums looked into).
bool contains_kind(const Ty& t0, TyNode::Kind kind) {
  Ty t = resolve(t0);
  if (t->kind == kind) return true;
  switch (t->kind) {
    case TyNode::Kind::Array: return contains_kind(t->elem, kind);
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields)
        if (contains_kind(f, kind)) return true;
      return false;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps)
          if (contains_kind(p, kind)) return true;
      return false;
    default: return false;
  }
}

bool contains_function(const Ty& t) { return contains_kind(t, TyNode::Kind::Function); }

// A type parameter or abstract type: Futhark has no equality on those.
bool contains_param(const Ty& t) { return contains_kind(t, TyNode::Kind::Param); }

}  // namespace

std::string describe_prims(PrimMask m) {
  if (m == numeric_mask()) return "a numeric type";
  if (m == integral_mask()) return "an integral type";
  if (m == float_mask()) return "a floating-point type";
  if (m == all_prims_mask()) return "a primitive type";
  std::string out;
  for (int i = 0; i < kNumPrims; ++i)
    if (m & prim_bit(static_cast<Prim>(i))) {
      if (!out.empty()) out += ", ";
      out += std::string(prim_name(static_cast<Prim>(i)));
    }
  return "one of " + out;
}

Ty Unifier::fresh(Loc loc) {
  auto t = std::make_shared<TyNode>();
  t->kind = TyNode::Kind::Var;
  t->var = next_var_id();
  t->level = level;
  t->constraint_loc = loc;
  return t;
}

Ty Unifier::fresh_overloaded(PrimMask prims, Loc loc) {
  Ty t = fresh(loc);
  t->constraint = Constraint::Overloaded;
  t->prims = prims;
  return t;
}

Ty Unifier::fresh_equality(Loc loc) {
  Ty t = fresh(loc);
  t->constraint = Constraint::Equality;
  return t;
}

Ty Unifier::fresh_with_field(const std::string& field, Ty field_type, Loc loc) {
  Ty t = fresh(loc);
  t->constraint = Constraint::HasFields;
  t->fields = {{field, std::move(field_type)}};
  return t;
}

Ty Unifier::fresh_with_constr(const std::string& name, std::vector<Ty> payload, Loc loc) {
  Ty t = fresh(loc);
  t->constraint = Constraint::HasConstrs;
  t->constrs = {{name, std::move(payload)}};
  return t;
}

void Unifier::require_prims(const Ty& t, PrimMask prims, Loc loc) {
  unify(fresh_overloaded(prims, loc), t);
}

void Unifier::require_equality(const Ty& t, Loc loc) { unify(fresh_equality(loc), t); }

bool Unifier::occurs(const TyNode* var, const Ty& t0) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Var:
      if (t.get() == var) return true;
      for (const auto& [n, f] : t->fields)
        if (occurs(var, f)) return true;
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps)
          if (occurs(var, p)) return true;
      return false;
    case TyNode::Kind::Array: return occurs(var, t->elem);
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields)
        if (occurs(var, f)) return true;
      return false;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps)
          if (occurs(var, p)) return true;
      return false;
    case TyNode::Kind::Function: return occurs(var, t->param) || occurs(var, t->result);
    default: return false;
  }
}

// Futhark's scopeCheck (TySolve.hs): a type variable may not stand for a
// type that mentions a type parameter bound in a deeper scope than the
// variable (`def f x = let g 'b (y: b) = if true then y else x in g`).
void Unifier::scope_check(const Ty& var, const Ty& t) {
  if (param_levels.empty()) return;
  std::function<const TyNode*(const Ty&)> deeper = [&](const Ty& t0) -> const TyNode* {
    Ty x = resolve(t0);
    switch (x->kind) {
      case TyNode::Kind::Param: {
        auto it = param_levels.find(x->param_id);
        return it != param_levels.end() && it->second > var->level ? x.get() : nullptr;
      }
      case TyNode::Kind::Var:
        for (const auto& [n, f] : x->fields)
          if (const TyNode* b = deeper(f)) return b;
        for (const auto& [n, ps] : x->constrs)
          for (const auto& q : ps)
            if (const TyNode* b = deeper(q)) return b;
        return nullptr;
      case TyNode::Kind::Array: return deeper(x->elem);
      case TyNode::Kind::Record:
        for (const auto& [n, f] : x->fields)
          if (const TyNode* b = deeper(f)) return b;
        return nullptr;
      case TyNode::Kind::Sum:
        for (const auto& [n, ps] : x->constrs)
          for (const auto& q : ps)
            if (const TyNode* b = deeper(q)) return b;
        return nullptr;
      case TyNode::Kind::Function: {
        if (const TyNode* b = deeper(x->param)) return b;
        return deeper(x->result);
      }
      default: return nullptr;
    }
  };
  if (const TyNode* b = deeper(t)) {
    UnifyFailure f{fmt::format("Cannot unify type\n  {}\nwith \"{}\" (scope violation).\nThis is because \"{}\" is rigidly "
                               "bound in a deeper scope.\n\nFor more information, see:\n  "
                               "https://futhark.readthedocs.io/en/latest/error-index.html#scope-violation",
                               show(t), show(var), b->param_var_name)};
    f.whole = true;
    throw f;
  }
}

// Whether an unsolved variable of t comes from a function's parameter or
// a `[]` annotation (it has a stamp).
bool Unifier::stamped_leaf(const SizeTreePtr& t) {
  if (!t) return false;
  if (t->op == SizeTree::Op::Leaf) {
    DimRef d = dim_resolve(t->leaf);
    if (d->kind == DimNode::Kind::Var) return d->stamp >= 0;
    return d->kind == DimNode::Kind::Expr && !d->poly && stamped_leaf(d->tree);
  }
  for (const auto& x : t->args)
    if (stamped_leaf(x)) return true;
  return stamped_leaf(t->a) || stamped_leaf(t->b);
}

void Unifier::lower_stamp(int& stamp, int to) {
  if (to >= 0 && (stamp < 0 || to < stamp)) stamp = to;
}

void Unifier::check_size_scope(int stamp, const DimNode& name) const {
  if (stamp < stamp_floor || !binding_stamp) return;
  if (binding_stamp(name) <= stamp) return;
  UnifyFailure f{fmt::format("Cannot link a size to \"{}\" (scope violation).\nThis is because \"{}\" is not in scope "
                             "when the size is introduced.\n\nFor more information, see:\n  "
                             "https://futhark.readthedocs.io/en/latest/error-index.html#scope-violation",
                             name.name, name.name)};
  f.whole = true;
  throw f;
}

bool Unifier::names_deeper_binding(const DimRef& d0, int stamp) const {
  if (stamp < stamp_floor || !binding_stamp) return false;
  DimRef d = dim_resolve(d0);
  if (d->kind == DimNode::Kind::Name) return binding_stamp(*d) > stamp;
  if (d->kind != DimNode::Kind::Expr) return false;
  std::function<bool(const SizeTreePtr&)> walk = [&](const SizeTreePtr& t) {
    if (!t) return false;
    if (t->op == SizeTree::Op::Leaf) return names_deeper_binding(t->leaf, stamp);
    for (const auto& x : t->args)
      if (walk(x)) return true;
    return walk(t->a) || walk(t->b);
  };
  return walk(d->tree);
}

// A type variable with a stamp bound to t: t's size variables belong to
// the variable's scope, and its names must be in scope there.
void Unifier::lower_stamps(const Ty& t0, int stamp) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Var: lower_stamp(t->stamp, stamp); return;
    case TyNode::Kind::Array: {
      DimRef d = dim_resolve(t->dim);
      if (d->kind == DimNode::Kind::Var) lower_stamp(d->stamp, stamp);
      if (d->kind == DimNode::Kind::Name) check_size_scope(stamp, *d);
      lower_stamps(t->elem, stamp);
      return;
    }
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields) lower_stamps(f, stamp);
      return;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps) lower_stamps(p, stamp);
      return;
    default: return;  // not into functions: their sizes are their own
  }
}

void Unifier::lower_levels(const Ty& t0, int lvl) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Var:
      if (t->level > lvl) {
        t->level = lvl;
        for (const auto& [n, f] : t->fields) lower_levels(f, lvl);
        for (const auto& [n, ps] : t->constrs)
          for (const auto& p : ps) lower_levels(p, lvl);
      }
      return;
    case TyNode::Kind::Array: lower_levels(t->elem, lvl); return;
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields) lower_levels(f, lvl);
      return;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps) lower_levels(p, lvl);
      return;
    case TyNode::Kind::Function:
      lower_levels(t->param, lvl);
      lower_levels(t->result, lvl);
      return;
    default: return;
  }
}

// Checks that the concrete type t satisfies var's constraint.
void Unifier::apply_constraint(const Ty& var, const Ty& t) {
  switch (var->constraint) {
    case Constraint::None: return;
    case Constraint::Equality:
      if (contains_function(t)) fail(fmt::format("{} is a function type, which has no equality", show(t)));
      if (contains_param(t))
        fail(fmt::format("Comparing equality of values of type {}, which does not support equality.", show(t)));
      return;
    case Constraint::Overloaded:
      if (t->kind != TyNode::Kind::Prim || !(var->prims & prim_bit(t->prim)))
        fail(fmt::format("{} is not {}", show(t), describe_prims(var->prims)));
      return;
    case Constraint::HasFields:
      if (t->kind != TyNode::Kind::Record)
        fail(fmt::format("Cannot unify record type with fields\n  {}\nwith type\n  {}", show_fields(var->fields),
                         show(t)));
      for (const auto& [name, ft] : var->fields) {
        const Ty* have = find_field(t->fields, name);
        if (!have)
          fail(fmt::format("Cannot unify record type with fields\n  {}\nwith record type\n  {}\n({} has no field {})",
                           show_fields(var->fields), show(t), show(t), name));
        unify(ft, *have);
      }
      return;
    case Constraint::HasConstrs:
      if (t->kind != TyNode::Kind::Sum)
        fail(fmt::format("Cannot unify type with constructors\n  {}\nwith type\n  {}", show_constrs(var->constrs),
                         show(t)));
      for (const auto& [name, payload] : var->constrs) {
        const auto* have = find_constr(t->constrs, name);
        if (!have)
          fail(fmt::format("{} has no constructor #{}.\nUnshared constructors: {}.", show(t), name,
                           unshared(var->constrs, t->constrs, "#")));
        if (have->size() != payload.size()) arity_mismatch(name, payload, *have);
        for (size_t i = 0; i < payload.size(); ++i) unify((*have)[i], payload[i]);
      }
      return;
  }
}

void Unifier::bind(const Ty& var, const Ty& t) {
  if (occurs(var.get(), t))
    fail(fmt::format("Occurs check: cannot instantiate {} with {}: it would be an infinite type", show(var), show(t)));
  scope_check(var, t);
  lower_levels(t, var->level);
  if (var->stamp >= 0) lower_stamps(t, var->stamp);
  // Bind first, so that recursive unification of constraint payloads sees it.
  auto constraint_holder = std::make_shared<TyNode>(*var);
  // A type variable stands for a type without uniqueness: instantiating
  // map's `a` from a lambda `\(r: *[]f64) -> ...` must not make map's
  // parameter consuming (the consumption checker compares the two).
  var->link = ty_nonunique(t);
  try {
    apply_constraint(constraint_holder, t);
  } catch (const UnifyFailure&) {
    var->link = nullptr;  // keep the variable as it was, for the error message
    throw;
  }
}

// Both unbound: `a` is linked to `b`, which takes the combined constraint.
void Unifier::merge_vars(const Ty& a, const Ty& b) {
  Constraint ca = a->constraint, cb = b->constraint;
  bool trivial_a = ca == Constraint::None || ca == Constraint::Equality;
  bool trivial_b = cb == Constraint::None || cb == Constraint::Equality;
  // Clashes are found before anything is linked, so the error message shows
  // both variables as they were.
  if (!trivial_a && !trivial_b &&
      (ca != cb || (ca == Constraint::Overloaded && !(a->prims & b->prims))))
  {
    // Futhark puts the primitive-type constraint first.
    bool swap = cb == Constraint::Overloaded && ca != Constraint::Overloaded;
    const TyNode& x = swap ? *b : *a;
    const TyNode& y = swap ? *a : *b;
    std::string second = y.constraint == Constraint::HasFields    ? "type that must be a record."
                         : y.constraint == Constraint::HasConstrs ? "type that must be sum."
                                                                  : constraint_text(y);
    fail(fmt::format("Cannot unify {}\nwith {}", constraint_text(x), x.constraint == Constraint::Overloaded ? second : constraint_text(y)));
  }

  if (b->level > a->level) b->level = a->level;
  lower_stamp(b->stamp, a->stamp);
  auto a_copy = std::make_shared<TyNode>(*a);
  a->link = b;
  auto adopt = [&] {  // b takes a's (stronger) constraint
    b->constraint = ca;
    b->prims = a_copy->prims;
    b->fields = a_copy->fields;
    b->constrs = a_copy->constrs;
    b->constraint_loc = a_copy->constraint_loc;
  };
  if (ca == Constraint::None) {
    // nothing to add
  } else if (cb == Constraint::None || (cb == Constraint::Equality && !trivial_a)) {
    adopt();
  } else if (ca == Constraint::Equality) {
    // every other constraint implies it (for non-functions)
  } else if (ca == Constraint::Overloaded) {
    b->prims &= a_copy->prims;
  } else if (ca == Constraint::HasFields) {
    for (const auto& [name, ft] : a_copy->fields) {
      if (const Ty* have = find_field(b->fields, name)) {
        Ty h = *have;
        unify(h, ft);
      } else {
        b->fields.emplace_back(name, ft);
      }
    }
  } else if (ca == Constraint::HasConstrs) {
    for (const auto& [name, payload] : a_copy->constrs) {
      if (const auto* have = find_constr(b->constrs, name)) {
        if (have->size() != payload.size()) arity_mismatch(name, payload, *have);
        auto have_copy = *have;
        for (size_t i = 0; i < payload.size(); ++i) unify(have_copy[i], payload[i]);
      } else {
        b->constrs.emplace_back(name, payload);
      }
    }
    std::sort(b->constrs.begin(), b->constrs.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
  }
  // The constraint's component types now live at b's level.
  for (const auto& [n, f] : b->fields) lower_levels(f, b->level);
  for (const auto& [n, ps] : b->constrs)
    for (const auto& p : ps) lower_levels(p, b->level);
  if (b->stamp >= 0) {
    for (const auto& [n, f] : b->fields) lower_stamps(f, b->stamp);
    for (const auto& [n, ps] : b->constrs)
      for (const auto& p : ps) lower_stamps(p, b->stamp);
  }
}

std::string show_size(const DimRef& d0) {
  DimRef d = dim_resolve(d0);
  switch (d->kind) {
    case DimNode::Kind::Constant: return std::to_string(d->value);
    case DimNode::Kind::Name:
    case DimNode::Kind::Expr: return d->name;
    default: return "?";
  }
}

bool Unifier::known_name(const DimRef& d) const {
  return d->kind == DimNode::Kind::Name && d->binding && binding_in_scope && binding_in_scope(*d);
}

// Whether two resolved, non-variable sizes certainly differ. A name whose
// binding is no longer in scope (it escaped a let, or comes from a module
// type) may stand for anything, and so may an unknown size.
bool Unifier::sizes_differ(const DimRef& a, const DimRef& b) const {
  using K = DimNode::Kind;
  // An application (`[length xs]`) equals only the same application
  // (Futhark compares size expressions syntactically): it differs from a
  // constant or a name in scope.
  auto app = [](const DimRef& d) {
    return d->kind == K::Expr && !d->poly && d->tree && d->tree->op == SizeTree::Op::Apply && !tree_pending(d->tree);
  };
  auto rigid = [&](const DimRef& d) { return d->kind == K::Constant || known_name(d); };
  if ((app(a) && rigid(b)) || (app(b) && rigid(a))) return true;
  if (a->kind == K::Expr || b->kind == K::Expr) {
    // Size expressions: only a difference that is a nonzero constant over
    // the same bindings (`n + 1` and `n + 2`) is certain. An escaped binding
    // is still one value here: Futhark would have made both sides distinct
    // unknown sizes, which it rejects as well.
    SizePoly pa, pb;
    return dim_poly(a, pa) && dim_poly(b, pb) && poly_certainly_differ(pa, pb);
  }
  if (a->kind == K::Constant && b->kind == K::Constant) return a->value != b->value;
  if (a->kind == K::Name && b->kind == K::Name) return a->name != b->name && known_name(a) && known_name(b);
  if (a->kind == K::Constant && b->kind == K::Name) return known_name(b);
  if (a->kind == K::Name && b->kind == K::Constant) return known_name(a);
  return false;
}

void Unifier::unify_dims(const DimRef& a0, const DimRef& b0) {
  if (ignore_dims > 0) return;
  DimRef a = dim_resolve(a0), b = dim_resolve(b0);
  if (a == b) return;
  // A variable is not bound to an unknown size (the run-time check
  // decides), but remembers the first existential one it met, which
  // Futhark would have bound it to (for the causality check). A variable
  // bound to another passes that on.
  auto link = [this](const DimRef& var, const DimRef& to) {
    if (to->kind == DimNode::Kind::Unknown) {
      if (to->existential && !var->met && joining_branches == 0) var->met = to;
      var->met_unknown = true;
      return;
    }
    // Futhark's unifyMostCommon: branches' sizes that cannot be linked (a
    // parameter's `[]` against `2 ** (d + 1)`, d local to a branch) become
    // an existential size of the result (join_sizes), not an error.
    if (joining_branches > 0 && names_deeper_binding(to, var->stamp)) return;
    // Futhark's linkVarToDim: a size introduced in one scope may not
    // become a name bound later, in a deeper scope (`\(n: i64) (xs: [n]i32)
    // -> zip xs ys`, ys a parameter of the enclosing function).
    if (to->kind == DimNode::Kind::Name) check_size_scope(var->stamp, *to);
    if (to->kind == DimNode::Kind::Var) {
      // The two are one size now: it belongs to the outer scope.
      lower_stamp(to->stamp, var->stamp);
      if (var->met && !to->met) to->met = var->met;
      to->met_unknown = to->met_unknown || var->met_unknown;
      to->met_self = to->met_self || var->met_self;
    }
    // Occurs check: `acc ++ x` as a loop's next `acc` would make the size
    // of acc `acc + m`. Such a size is left to the run-time check.
    // Elsewhere, where sizes are checked statically, Futhark rejects it
    // (`ap (\xs -> xs ++ xs)` for `ap 'a (f: a -> a)`).
    if (to->kind == DimNode::Kind::Expr && tree_mentions(to->tree, var)) {
      if (strict_sizes > 0 && loop_result == 0) {
        UnifyFailure f{fmt::format("Occurs check: cannot instantiate a size with \"{}\".", show_tree(to->tree))};
        f.whole = true;
        throw f;
      }
      var->met_self = true;
      return;
    }
    var->link = to;
  };
  if (a->kind == DimNode::Kind::Var) {
    link(a, b);
    return;
  }
  if (b->kind == DimNode::Kind::Var) {
    link(b, a);
    return;
  }
  // Structural unification of size expressions, as Futhark's unifySizes:
  // `[n * m]` (n and m being solved) against `[k * (j + 1)]` gives n = k and
  // m = j + 1. What does not match operator for operator is left to the
  // run-time check.
  auto pending = [](const DimRef& d) { return d->kind == DimNode::Kind::Expr && !d->poly && tree_pending(d->tree); };
  if (pending(a) || pending(b)) {
    if (pending(a))
      match_size_tree(a->tree, b);
    else
      match_size_tree(b->tree, a);
    SizePoly pa, pb;
    if (!dim_poly(a, pa) || !dim_poly(b, pb)) {
      // `xs ++ ys : [10]i32` with xs and ys parameters of unannotated
      // sizes: a sum of the function's own sizes can be no constant or
      // name (Futhark unifies only a variable with an expression).
      const DimRef& open = pending(a) ? a : b;
      const DimRef& other = pending(a) ? b : a;
      if (strict_sizes > 0 && dim_resolve(open)->kind == DimNode::Kind::Expr && tree_pending(open->tree) &&
          stamped_leaf(open->tree) && (other->kind == DimNode::Kind::Constant || known_name(other)))
        throw UnifyFailure{fmt::format("Sizes \"{}\" and \"{}\" do not match.", show_size(a), show_size(b)), true};
      return;
    }
  }
  // An existential size (a function's `[]` result, differing branches)
  // against a known one where sizes are checked statically: Futhark gives
  // the existential a fresh name, which no other size equals (the program
  // must say `:>`).
  if (strict_sizes > 0) {
    auto rigid = [&](const DimRef& d) { return d->kind == DimNode::Kind::Constant || known_name(d); };
    auto ext = [](const DimRef& d) { return d->kind == DimNode::Kind::Unknown && d->existential; };
    if ((ext(a) && rigid(b)) || (ext(b) && rigid(a))) {
      const DimRef& e = ext(a) ? a : b;
      std::string why = e->origin.empty() ? "" : "\nThe size " + e->origin;
      throw UnifyFailure{fmt::format("Sizes \"{}\" and \"{}\" do not match.{}", ext(a) ? "[]" : show_size(a),
                                     ext(b) ? "[]" : show_size(b), why),
                         true};
    }
  }
  // Two rigid sizes: an error only where sizes are checked statically;
  // otherwise a mismatch is left to the run-time check.
  if (strict_sizes > 0 && sizes_differ(a, b))
    throw UnifyFailure{fmt::format("Sizes \"{}\" and \"{}\" do not match.", show_size(a), show_size(b)), true};
}

void Unifier::match_size_tree(const SizeTreePtr& p, const DimRef& target0) {
  DimRef target = dim_resolve(target0);
  if (p->op == SizeTree::Op::Leaf) {
    DimRef leaf = dim_resolve(p->leaf);
    if (leaf->kind == DimNode::Kind::Var) {
      if (leaf == target || (target->kind == DimNode::Kind::Expr && tree_mentions(target->tree, leaf))) return;
      unify_dims(leaf, target);
    } else if (leaf->kind == DimNode::Kind::Expr && !leaf->poly && leaf->tree) {
      match_size_tree(leaf->tree, target);
    }
    return;
  }
  if (!target->tree || target->tree->op != p->op) return;  // an Expr, or a constant written as one
  if (p->op == SizeTree::Op::Apply) {
    if (p->fn != target->tree->fn || p->args.size() != target->tree->args.size()) return;
    for (size_t i = 0; i < p->args.size(); ++i) match_size_tree(p->args[i], dim_of_tree(target->tree->args[i]));
    return;
  }
  match_size_tree(p->a, dim_of_tree(target->tree->a));
  if (p->b) match_size_tree(p->b, dim_of_tree(target->tree->b));
}

void Unifier::unify(const Ty& expected0, const Ty& actual0) {
  Ty a = resolve(expected0), b = resolve(actual0);
  if (a == b) return;
  if (a->kind == TyNode::Kind::Var && b->kind == TyNode::Kind::Var) {
    merge_vars(a, b);
    return;
  }
  if (a->kind == TyNode::Kind::Var) {
    bind(a, b);
    return;
  }
  if (b->kind == TyNode::Kind::Var) {
    bind(b, a);
    return;
  }
  auto mismatch = [&] { fail(fmt::format("{} and {} do not match", show(a), show(b))); };
  if (a->kind != b->kind) mismatch();
  switch (a->kind) {
    case TyNode::Kind::Prim:
      if (a->prim != b->prim) mismatch();
      return;
    case TyNode::Kind::Param:
      if (a->param_id != b->param_id) mismatch();
      return;
    case TyNode::Kind::Array:
      unify_dims(a->dim, b->dim);
      unify(a->elem, b->elem);
      return;
    case TyNode::Kind::Record: {
      bool same = a->fields.size() == b->fields.size();
      for (size_t i = 0; same && i < a->fields.size(); ++i) same = a->fields[i].first == b->fields[i].first;
      if (!same) {
        if (is_tuple_fields(a->fields) && is_tuple_fields(b->fields))
          fail(fmt::format("{} and {} do not match: tuples have {} and {} elements respectively.", show(a), show(b),
                           a->fields.size(), b->fields.size()));
        fail(fmt::format("{} and {}: unshared fields: {}.", show(a), show(b), unshared(a->fields, b->fields, "")));
      }
      for (size_t i = 0; i < a->fields.size(); ++i) unify(a->fields[i].second, b->fields[i].second);
      return;
    }
    case TyNode::Kind::Sum: {
      bool same = a->constrs.size() == b->constrs.size();
      for (size_t i = 0; same && i < a->constrs.size(); ++i) same = a->constrs[i].first == b->constrs[i].first;
      if (!same)
        fail(fmt::format("{} and {}: Unshared constructors: {}.", show(a), show(b), unshared(a->constrs, b->constrs, "#")));
      for (size_t i = 0; i < a->constrs.size(); ++i)
        if (a->constrs[i].second.size() != b->constrs[i].second.size())
          arity_mismatch(a->constrs[i].first, a->constrs[i].second, b->constrs[i].second);
      for (size_t i = 0; i < a->constrs.size(); ++i)
        for (size_t j = 0; j < a->constrs[i].second.size(); ++j)
          unify(a->constrs[i].second[j], b->constrs[i].second[j]);
      return;
    }
    case TyNode::Kind::Function: {
      unify(a->param, b->param);
      // A named parameter's size in the result means "whatever the argument
      // is"; compared against another function it is just some size.
      Ty ra = a->result, rb = b->result;
      if (!a->param_name.empty() && !b->param_name.empty()) {
        // Both parameters named (`(n: i64) -> [n]i64` against the lambda
        // `\n -> iota (n + 1)`): one rigid size for both, so that their
        // results must agree on it as in Futhark (shapes/error6: Sizes "n"
        // and "n + 1" do not match).
        DimRef d = dim_name(a->param_name, std::make_shared<int>(0));
        Substitution sa, sb;
        sa.dims[a->param_name] = d;
        sb.dims[b->param_name] = d;
        ra = substitute(ra, sa);
        rb = substitute(rb, sb);
      } else if (!a->param_name.empty() || !b->param_name.empty()) {
        DimRef d = dim_var();
        d->bound_inside = true;
        Substitution sa, sb;
        if (!a->param_name.empty()) sa.dims[a->param_name] = d;
        if (!b->param_name.empty()) sb.dims[b->param_name] = d;
        ra = substitute(ra, sa);
        rb = substitute(rb, sb);
      }
      unify(ra, rb);
      return;
    }
    case TyNode::Kind::Var: return;  // unreachable
  }
}

}  // namespace thorn::types
