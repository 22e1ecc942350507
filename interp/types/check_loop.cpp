// Loops: the loop parameters' types and sizes, decided against the
// initial value's and the body's as Futhark's checkLoop does (a size the
// body keeps is the initial one; one it changes is loop-variant).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "interp/types/checker_impl.hpp"

namespace thorn::types {

namespace {

// Clears what t's size variables met (DimNode::met), through bound type
// variables.
void forget_met(const Ty& t0, int depth = 0) {
  if (!t0 || depth > 48) return;
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array:
      for (DimRef d = t->dim; d; d = d->kind == DimNode::Kind::Var ? d->link : nullptr) d->met = nullptr;
      forget_met(t->elem, depth + 1);
      return;
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields) forget_met(f, depth + 1);
      return;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps) forget_met(p, depth + 1);
      return;
    case TyNode::Kind::Function:
      forget_met(t->param, depth + 1);
      forget_met(t->result, depth + 1);
      return;
    default: return;
  }
}

// Gives loop parameters fresh sizes: they may change from one iteration to
// the next (Futhark generalises them the same way).
Ty fresh_dims(const Ty& t0) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array: return ty_with_unique(ty_array(dim_var(), fresh_dims(t->elem)), t->unique);
    case TyNode::Kind::Record: {
      Fields fs;
      for (const auto& [n, f] : t->fields) fs.emplace_back(n, fresh_dims(f));
      return ty_record(std::move(fs));
    }
    default: return t;
  }
}

}  // namespace

Ty CheckerImpl::infer_loop(Expr& e) {
  Ty init;
  std::vector<std::pair<std::string, Loc>> names;  // `loop x for ...` means `loop x = x for ...`
  std::vector<Ty> outer;
  if (e.a) {
    init = infer(e.a);
  } else {
    collect_pattern_names(*e.params.at(0), names);
    for (const auto& [n, l] : names) {
      QualName q;
      q.name = n;
      outer.push_back(instantiate(*lookup_value(q, l), nullptr));
    }
  }
  // The bound or array of a for loop is evaluated outside the loop.
  Ty c_type;
  if (e.loop_form != Expr::LoopForm::While) c_type = infer(e.c);
  FrameGuard g(*this);
  bind_type_params(e.type_params, g.frame());
  loosen_sizes(e.type_params, g.frame());
  // `[]` in a loop parameter's ascription is a size to infer (Futhark's
  // checkTypeExpNonrigid), like the size of an unannotated parameter.
  Ty p;
  {
    CounterGuard anon(anonymous_as_vars_);
    p = bind_pattern(e.params.at(0), g.frame(), false);
  }
  if (init) {
    // Sizes the pattern names must be the initial value's (shapes/loop2).
    if (ascribed_pattern(*e.params.at(0)))
      expect_sized(e.a->loc, open_dims_fresh(p), init, "Initial loop values do not have expected type.");
    expect(e.a->loc, p, fresh_dims(init), "in loop initial value");
  } else {
    for (size_t i = 0; i < names.size(); ++i)
      expect(names[i].second, g.frame().values.at(names[i].first)->type, fresh_dims(outer[i]),
             "in loop parameter");
  }
  switch (e.loop_form) {
    case Expr::LoopForm::For: {
      expect(e.c->loc, u.fresh_overloaded(integral_mask(), e.c->loc), c_type, "in loop bound");
      auto s = std::make_shared<Scheme>();
      s->type = c_type;
      g.frame().values[e.loop_var] = s;
      break;
    }
    case Expr::LoopForm::ForIn: {
      Ty elem = u.fresh(e.c->loc);
      expect(e.c->loc, ty_array(dim_var(), elem), c_type, "in for-in loop");
      Ty ep = bind_pattern(e.pattern, g.frame(), false);
      expect(e.pattern->loc, ep, elem, "in for-in loop pattern");
      break;
    }
    case Expr::LoopForm::While: {
      Ty ct = infer(e.c);
      expect(e.c->loc, ty_prim(Prim::Bool), ct, "in while-loop condition");
      break;
    }
  }
  Ty body = infer(e.b);
  const Pattern& pat = *e.params.at(0);
  // `loop (b, d) for ...` means `loop (b, d) = (b, d)`: the initial value
  // has the outer variables' types, in the pattern's shape.
  std::function<Ty(const Pattern&)> implicit_init = [&](const Pattern& q) -> Ty {
    switch (q.kind) {
      case Pattern::Kind::Id:
        for (size_t i = 0; i < names.size(); ++i)
          if (names[i].first == q.name) return outer[i];
        return nullptr;
      case Pattern::Kind::Ascribed: return q.inner ? implicit_init(*q.inner) : nullptr;
      case Pattern::Kind::Tuple: {
        std::vector<Ty> elems;
        for (const auto& x : q.elems) {
          Ty t = implicit_init(*x);
          if (!t) return nullptr;
          elems.push_back(t);
        }
        return elems.empty() ? nullptr : ty_tuple(std::move(elems));
      }
      default: return nullptr;
    }
  };
  Ty init_type = init ? init : implicit_init(pat);
  if (init_type) {
    // Sizes of two parameters that the body made one (issue869:
    // `matmult x[1:, :] x[:, 1:]` makes x square) cannot both be their
    // initial sizes when those certainly differ (Futhark's "dim handling
    // (4)": the parameter type must admit the initial value).
    std::map<const DimNode*, std::vector<DimRef>> shared;
    loop_initial_sizes(p, init_type, shared);
    auto rigid = [&](const DimRef& d) {
      return d->kind == DimNode::Kind::Constant || (d->kind == DimNode::Kind::Name && d->binding && u.binding_in_scope(*d));
    };
    for (const auto& [r, ids] : shared)
      for (size_t i = 0; i < ids.size(); ++i)
        for (size_t j = i + 1; j < ids.size(); ++j) {
          const DimRef &x = ids[i], &y = ids[j];
          bool differ = rigid(x) && rigid(y) &&
                        (x->kind == DimNode::Kind::Constant && y->kind == DimNode::Kind::Constant ? x->value != y->value
                                                                                                 : x->kind != y->kind || x->name != y->name);
          if (differ)
            error(e.a ? e.a->loc : e.loc,
                  fmt::format("Initial loop values do not have expected type.\nExpected: {}\nActual:   {}\n"
                              "Sizes \"{}\" and \"{}\" do not match: the loop body requires them to be equal.",
                              show(p), show(init_type), show_size(x), show_size(y)));
        }
  }
  // Sizes the pattern declares (`loop (xs: [n]t) = ...`) are checked
  // statically. A parameter without an ascription takes whatever the body
  // gives, existential sizes included (accelerate/pagerank's `loop ranks =
  // ranks_in` whose body returns a `*[]f32`): checked at run time.
  {
    // One parameter size shared by several parameters (the body made them
    // equal) that the body returns as itself in one place and as a new
    // size in another cannot be loop-variant in one and not the other
    // (Futhark's "dim handling (3)": shapes/loop12).
    std::map<const DimNode*, std::vector<DimRef>> returned;
    loop_initial_sizes(p, body, returned);
    for (const auto& [r, bds] : returned) {
      if (bds.size() < 2) continue;
      bool itself = false, other = false;
      for (const DimRef& bd : bds) {
        if (bd.get() == r) itself = true;
        else if (bd->kind == DimNode::Kind::Unknown && bd->existential)
          other = true;  // computed in the body (a known size may be the initial one)
      }
      if (itself && other)
        error(e.b->loc, fmt::format("Loop body does not have expected type.\nExpected: {}\nActual:   {}\n"
                                    "The body returns a parameter's size unchanged and a new size for another "
                                    "parameter of the same size.",
                                    show(p), show(body)));
    }
  }
  {
    CounterGuard growing(u.loop_result);
    if (ascribed_pattern(*e.params.at(0)))
      expect_sized(e.b->loc, p, body, "Loop body does not have expected type");
    else
      expect(e.b->loc, p, body, "Loop body does not have expected type");
  }
  // The loop's result (Futhark's checkLoop): a parameter size the body
  // left alone is the initial value's; one the body changed is
  // loop-variant, a fresh existential size computed by the loop.
  Ty result = p;
  if (init_type) {
    // Parameters the body exchanges (`(b, a)`) share a size variable: it is
    // invariant only if all their initial sizes are the same.
    std::map<const DimNode*, std::vector<DimRef>> initial;
    loop_initial_sizes(p, init_type, initial);
    std::map<const DimNode*, std::vector<DimRef>> returned;  // the body's sizes, per parameter size
    loop_initial_sizes(p, body, returned);
    result = loop_result(p, init_type, e.loc, initial, returned);
  }
  // A size the body computes is the parameter's next size, not one it
  // needs before: Futhark makes such sizes loop-variant (fresh per
  // iteration), so the causality check must not follow them.
  forget_met(p);
  return result;
}

// A copy of t's array/record structure whose open size variables are
// fresh ones (other sizes kept): compares the sizes a pattern names without
// binding those it leaves to inference. With `every_dim`, every size is
// fresh (a record update's field may change its sizes).
Ty CheckerImpl::open_dims_fresh(const Ty& t0, bool every_dim) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array: {
      DimRef d = dim_resolve(t->dim);
      bool fresh = every_dim || d->kind == DimNode::Kind::Var;
      return ty_with_unique(ty_array(fresh ? dim_var() : d, open_dims_fresh(t->elem, every_dim)), t->unique);
    }
    case TyNode::Kind::Record: {
      Fields fs;
      for (const auto& [n, f] : t->fields) fs.emplace_back(n, open_dims_fresh(f, every_dim));
      return ty_with_unique(ty_record(std::move(fs)), t->unique);
    }
    default: return t;
  }
}

// Futhark's letGeneralise (closeOver, "unknown-param-def"): a size that
// went out of scope inside the body (`let (n, _) = ... in \(_: [n]bool) ->
// true`) is unknown to callers; it may appear in a parameter of the
// inferred result only where the result also produces it as an array size.
void CheckerImpl::check_unknown_param_sizes(const Ty& result, const std::string& name, const Ty& whole, Loc loc) {
  std::set<const DimNode*> produced;
  std::vector<DimRef> in_params;
  std::vector<std::string> bound;  // named parameters of enclosing function types
  std::function<void(const Ty&, bool, int)> walk = [&](const Ty& t0, bool in_param, int depth) {
    if (depth > 64) return;
    Ty t = resolve(t0);
    switch (t->kind) {
      case TyNode::Kind::Array: {
        DimRef d = dim_resolve(t->dim);
        if (d->kind == DimNode::Kind::Name && escaped_size_ && escaped_size_(*d) &&
            std::find(bound.begin(), bound.end(), d->name) == bound.end()) {
          if (in_param)
            in_params.push_back(d);
          else
            produced.insert(d.get());
        }
        walk(t->elem, in_param, depth + 1);
        return;
      }
      case TyNode::Kind::Record:
        for (const auto& [n, f] : t->fields) walk(f, in_param, depth + 1);
        return;
      case TyNode::Kind::Sum:
        for (const auto& [n, ps] : t->constrs)
          for (const auto& q : ps) walk(q, in_param, depth + 1);
        return;
      case TyNode::Kind::Function:
        walk(t->param, true, depth + 1);
        if (!t->param_name.empty()) bound.push_back(t->param_name);
        walk(t->result, in_param, depth + 1);
        if (!t->param_name.empty()) bound.pop_back();
        return;
      default: return;
    }
  };
  walk(result, false, 0);
  for (const DimRef& d : in_params) {
    bool made = false;
    for (const DimNode* p : produced) made = made || (p->name == d->name && p->binding == d->binding) || p == d.get();
    if (!made)
      error(loc, fmt::format("Unknown size \"{}\" in parameter of \"{}\", which is inferred as:\n  {}\n\n"
                             "For more information, see:\n  https://futhark.readthedocs.io/en/latest/error-index.html#unknown-param-def",
                             d->name, name, show(whole)));
  }
}

bool CheckerImpl::ascribed_pattern(const Pattern& q) {
  if (q.kind == Pattern::Kind::Ascribed) return true;
  for (const auto& x : q.elems)
    if (x && ascribed_pattern(*x)) return true;
  for (const auto& [f, x] : q.fields)
    if (x && ascribed_pattern(*x)) return true;
  return false;
}

namespace {
bool trees_equal(const SizeTreePtr& a, const SizeTreePtr& b, int depth);

// Whether two sizes are the same size expression: the same constant, name
// (and binding) or polynomial, or, for expressions without a normal form
// (`k / 2 * 2 + k % 2`), the same operators over equal operands (Futhark
// compares size expressions syntactically).
bool sizes_equal(const DimRef& d0, const DimRef& e0, int depth = 0) {
  DimRef d = dim_resolve(d0), e = dim_resolve(e0);
  if (d == e) return true;
  if (depth > 48) return false;
  using K = DimNode::Kind;
  if (d->kind == K::Constant && e->kind == K::Constant) return d->value == e->value;
  if (d->kind == K::Name && e->kind == K::Name) return d->name == e->name && d->binding == e->binding;
  SizePoly pd, pe;
  if (dim_poly(d, pd) && dim_poly(e, pe)) return poly_same(pd, pe);
  SizeTreePtr a = d->kind == K::Expr ? d->tree : nullptr, b = e->kind == K::Expr ? e->tree : nullptr;
  if (a && a->op == SizeTree::Op::Leaf) return sizes_equal(a->leaf, e, depth + 1);
  if (b && b->op == SizeTree::Op::Leaf) return sizes_equal(d, b->leaf, depth + 1);
  return a && b && trees_equal(a, b, depth + 1);
}

bool trees_equal(const SizeTreePtr& a, const SizeTreePtr& b, int depth) {
  if (a == b) return true;
  if (!a || !b || depth > 48) return false;
  if (a->op == SizeTree::Op::Leaf || b->op == SizeTree::Op::Leaf)
    return sizes_equal(a->op == SizeTree::Op::Leaf ? a->leaf : dim_of_tree(a),
                       b->op == SizeTree::Op::Leaf ? b->leaf : dim_of_tree(b), depth + 1);
  if (a->op != b->op) return false;
  if (a->op == SizeTree::Op::Apply) {
    if (a->fn != b->fn || a->args.size() != b->args.size()) return false;
    for (size_t i = 0; i < a->args.size(); ++i)
      if (!trees_equal(a->args[i], b->args[i], depth + 1)) return false;
    return true;
  }
  if (!trees_equal(a->a, b->a, depth + 1)) return false;
  return a->b ? trees_equal(a->b, b->b, depth + 1) : !b->b;
}
}  // namespace

// The loop's result type: p's structure, each size a loop parameter's
// inferred size decided against the initial value's (`init`) as Futhark
// does: a size variable the body left open keeps the initial size
// (shapes/loop1); one the body bound to the initial size too; one the body
// bound to a different known size, or that met a size computed in the body
// (an existential, `xs ++ xs`), is loop-variant: a fresh existential
// (shapes/loop3, loop8). A size thorn does not know on either side stays
// unknown (checked at run time).
void CheckerImpl::loop_initial_sizes(const Ty& p0, const Ty& i0, std::map<const DimNode*, std::vector<DimRef>>& out) {
  Ty p = resolve(p0), i = resolve(i0);
  if (p->kind == TyNode::Kind::Array && i->kind == TyNode::Kind::Array) {
    if (p->dim && p->dim->kind == DimNode::Kind::Var) out[dim_resolve(p->dim).get()].push_back(dim_resolve(i->dim));
    loop_initial_sizes(p->elem, i->elem, out);
  } else if (p->kind == TyNode::Kind::Record && i->kind == TyNode::Kind::Record && p->fields.size() == i->fields.size()) {
    for (size_t k = 0; k < p->fields.size(); ++k) loop_initial_sizes(p->fields[k].second, i->fields[k].second, out);
  }
}

Ty CheckerImpl::loop_result(const Ty& p0, const Ty& i0, const Loc& loc,
                            const std::map<const DimNode*, std::vector<DimRef>>& initial,
                            const std::map<const DimNode*, std::vector<DimRef>>& returned) {
  Ty p = resolve(p0), i = resolve(i0);
  switch (p->kind) {
    case TyNode::Kind::Array: {
      if (i->kind != TyNode::Kind::Array) return p;
      Ty elem = loop_result(p->elem, i->elem, loc, initial, returned);
      DimRef raw = p->dim;
      if (!raw || raw->kind != DimNode::Kind::Var) {
        if (elem == p->elem) return p;
        return ty_with_unique(ty_array(raw, elem), p->unique);
      }
      bool met_new = false, met_unknown = false;
      for (DimRef d = raw; d; d = d->kind == DimNode::Kind::Var ? d->link : nullptr) {
        met_new = met_new || d->met || d->met_self;
        met_unknown = met_unknown || d->met_unknown;
      }
      DimRef r = dim_resolve(raw), id = dim_resolve(i->dim);
      auto known = [&](const DimRef& d) {
        return d->kind == DimNode::Kind::Constant || (d->kind == DimNode::Kind::Name && d->binding && u.binding_in_scope(*d)) ||
               (d->kind == DimNode::Kind::Expr && d->poly);
      };
      auto same = [&](const DimRef& a, const DimRef& b) {
        if (a == b) return true;
        if (a->kind == DimNode::Kind::Constant && b->kind == DimNode::Kind::Constant) return a->value == b->value;
        if (a->kind == DimNode::Kind::Name && b->kind == DimNode::Kind::Name)
          return a->name == b->name && a->binding == b->binding;
        SizePoly pa, pb;
        return a->kind == DimNode::Kind::Expr && b->kind == DimNode::Kind::Expr && dim_poly(a, pa) && dim_poly(b, pb) &&
               poly_same(pa, pb);
      };
      auto variant = [&] {
        DimRef d = dim_existential();
        d->origin = loc.end_col > loc.col ? fmt::format("is unknown size of value returned at {}:{}-{}.", loc.line, loc.col, loc.end_col)
                                          : fmt::format("is unknown size of value returned at {}:{}.", loc.line, loc.col);
        pending_.existentials.push_back(d);
        return d;
      };
      DimRef out;
      bool exchanged = false;  // with a parameter of another initial size
      // Initial sizes that are both still to be inferred (an enclosing
      // loop's parameters, `loop (R, S) = ... do loop (R, S) for ... do
      // step R S` with step taking [n] and [n]) are taken to be one size,
      // as Futhark's check of the body under the initial sizes finds them:
      // the loop is then invariant in it.
      auto open = [&](const DimRef& d) { return d->kind == DimNode::Kind::Var && !d->met && !d->met_self && !d->met_unknown; };
      //
      // An initial size that is this parameter's own size variable is no
      // other size: the initial value's type shares a type variable with the
      // parameter's, which the body decided (`loop (w, acc) = (ps, [])` whose
      // body returns `acc ++ w`: the element type of `[]` is w's row type,
      // whose size is a loop size variable). Futhark's unification of the
      // parameter with the initial value ("dim handling (4)") makes it
      // whatever the other initial sizes of that variable are (w's `[d]`).
      std::vector<DimRef> others;
      if (auto it = initial.find(r.get()); it != initial.end())
        for (const DimRef& other : it->second)
          if (dim_resolve(other) != r) others.push_back(other);
      if (id == r && !others.empty()) id = dim_resolve(others.front());
      for (const DimRef& other : others) {
        DimRef o = dim_resolve(other);
        if (!same(o, id) && open(o) && open(id)) u.unify_dims(o, id);
        exchanged = exchanged || !same(dim_resolve(other), dim_resolve(id));
      }
      id = dim_resolve(id);
      // A size the body gives as an expression over sizes still to be
      // solved (`step ys` with step taking `[n*m+r]`: the parameter's size
      // became `n*m+r`, n, m and r the call's) is matched against the
      // initial size, as Futhark's unification of the parameter with the
      // initial value ("dim handling (4)") does: `[k/2*2 + k%2]` gives n =
      // k/2, m = 2 and r = k%2, so the call's size arguments are known at
      // run time and the parameter keeps the initial size. Only where the
      // body returns that very expression (`[n*m+r]`, not `[n*m+r+1]`,
      // which Futhark rejects). A size that does not match operator for
      // operator stays unknown (checked at run time).
      bool body_keeps = true;
      if (auto it = returned.find(r.get()); it != returned.end())
        for (const DimRef& bd : it->second) body_keeps = body_keeps && sizes_equal(r, bd);
      if (r->kind == DimNode::Kind::Expr && r->tree && tree_pending(r->tree) && !met_new && !met_unknown && !exchanged &&
          body_keeps && id->kind != DimNode::Kind::Unknown && id->kind != DimNode::Kind::Var) {
        try {
          u.unify_dims(r, id);
        } catch (const UnifyFailure&) {
        }
        r = dim_resolve(raw);
        id = dim_resolve(id);
        if (!tree_pending(r->tree) && sizes_equal(r, id)) return ty_with_unique(ty_array(id, elem), p->unique);
      }
      if (r->kind == DimNode::Kind::Var) {
        if (met_new || exchanged)
          out = variant();
        else if (met_unknown)
          out = dim_unknown();
        else
          out = id;  // invariant
      } else if (same(r, id)) {
        out = id;
      } else if (known(r) && known(id)) {
        out = variant();
      } else {
        out = dim_unknown();
      }
      return ty_with_unique(ty_array(out, elem), p->unique);
    }
    case TyNode::Kind::Record: {
      if (i->kind != TyNode::Kind::Record || i->fields.size() != p->fields.size()) return p;
      Fields fs;
      bool changed = false;
      for (size_t k = 0; k < p->fields.size(); ++k) {
        if (p->fields[k].first != i->fields[k].first) return p;
        Ty f = loop_result(p->fields[k].second, i->fields[k].second, loc, initial, returned);
        changed = changed || f != p->fields[k].second;
        fs.emplace_back(p->fields[k].first, f);
      }
      if (!changed) return p;
      return ty_with_unique(ty_record(std::move(fs)), p->unique);
    }
    default: return p;
  }
}

}  // namespace thorn::types
