// Expressions: the dispatch, literals, data constructors (tuples, records,
// arrays, sums), projections, indexing and ranges.
#include <fmt/format.h>

#include <set>

#include "interp/types/checker_impl.hpp"

namespace thorn::types {

Ty CheckerImpl::infer(ExprPtr& ep) {
  Expr& e = *ep;
  Ty t;
  switch (e.kind) {
    case Expr::Kind::IntLit:
      t = e.suffix ? ty_prim(*e.suffix) : u.fresh_overloaded(numeric_mask(), e.loc);
      pending_.literals.emplace_back(&e, t);
      break;
    case Expr::Kind::FloatLit:
      t = e.suffix ? ty_prim(*e.suffix) : u.fresh_overloaded(float_mask(), e.loc);
      pending_.literals.emplace_back(&e, t);
      break;
    case Expr::Kind::BoolLit:
      e.prim = Prim::Bool;
      t = ty_prim(Prim::Bool);
      break;
    case Expr::Kind::StringLit:
      e.prim = Prim::U8;
      t = ty_array(dim_const(static_cast<int64_t>(e.text.size())), ty_prim(Prim::U8));
      break;
    case Expr::Kind::Var:
      t = infer_var(ep);
      break;
    case Expr::Kind::Apply: t = infer_apply(e); break;
    case Expr::Kind::BinOp: t = infer_binop(e); break;
    case Expr::Kind::Negate: {
      if (e.a && e.a->kind == Expr::Kind::IntLit) pending_.negated_literals.insert(e.a.get());
      t = infer(e.a);
      expect(e.a->loc, u.fresh_overloaded(numeric_mask(), e.loc), t, "in operand of unary -");
      break;
    }
    case Expr::Kind::Not: {
      t = infer(e.a);
      expect(e.a->loc, u.fresh_overloaded(integral_mask() | prim_bit(Prim::Bool), e.loc), t, "in operand of !");
      break;
    }
    case Expr::Kind::OpSection:
      // `(++)` naming a local binding (a parameter called `++`): a variable,
      // so that consuming and using it are tracked like any other.
      if (!e.a && !e.b && e.name.qualifiers.empty() && is_local_value(e.name.name)) {
        e.kind = Expr::Kind::Var;
        t = infer_var(ep);
        break;
      }
      t = infer_op_section(e);
      break;
    case Expr::Kind::ProjSection: {
      Ty x = u.fresh(e.loc);
      Ty cur = x;
      for (const auto& f : e.field_path) cur = field_of(e.loc, cur, f);
      t = ty_function(x, cur);
      break;
    }
    case Expr::Kind::IndexSection: {
      Ty x = u.fresh(e.loc);
      t = ty_function(x, index_result(e.loc, x, e.indices));
      break;
    }
    case Expr::Kind::Lambda: t = infer_lambda(e); break;
    case Expr::Kind::Let: t = infer_let(e); break;
    case Expr::Kind::LetFun: t = infer_letfun(e); break;
    case Expr::Kind::If: {
      Ty c = infer(e.a);
      expect(e.a->loc, ty_prim(Prim::Bool), c, "in if condition");
      Ty then_t = infer(e.b);
      Ty else_t = infer(e.c);
      CounterGuard joining(u.joining_branches);
      unify_or(e.loc, then_t, else_t, [&] {
        return fmt::format("if branches have types {} and {}", show(then_t), show(else_t));
      });
      t = join_sizes(then_t, else_t, true);
      break;
    }
    case Expr::Kind::Loop: t = infer_loop(e); break;
    case Expr::Kind::Match: t = infer_match(e); break;
    case Expr::Kind::Tuple: {
      std::vector<Ty> elems;
      for (auto& x : e.list) elems.push_back(infer(x));
      t = elems.empty() ? ty_unit() : ty_tuple(std::move(elems));
      break;
    }
    case Expr::Kind::Record: {
      Fields fs;
      std::map<std::string, Loc> seen;
      for (auto& [n, x] : e.fields) {
        if (auto [it, fresh] = seen.emplace(n, x->loc); !fresh)
          error(x->loc, fmt::format("Field \"{}\" previously defined at {}.", n, it->second.str()));
        fs.emplace_back(n, infer(x));
      }
      t = ty_record(std::move(fs));
      break;
    }
    case Expr::Kind::Project: {
      Ty r = infer(e.a);
      t = r;
      for (const auto& f : e.field_path) t = field_of(e.loc, t, f);
      break;
    }
    case Expr::Kind::ArrayLit: {
      Ty elem = u.fresh(e.loc);
      for (size_t i = 0; i < e.list.size(); ++i) {
        Ty xt = infer(e.list[i]);
        if (i == 0) {
          u.unify(elem, xt);
          continue;
        }
        unify_or(e.list[i]->loc, elem, xt, [&] {
          return fmt::format("array elements have different types: {} (element 1) and {} (element {})",
                             show(elem), show(xt), i + 1);
        });
        elem = join_sizes(elem, xt);
      }
      t = ty_array(dim_const(static_cast<int64_t>(e.list.size())), elem);
      break;
    }
    case Expr::Kind::Range: t = infer_range(e); break;
    case Expr::Kind::Index: {
      Ty a = infer(e.a);
      t = index_result(e.loc, a, e.indices, /*rigid=*/true);
      break;
    }
    case Expr::Kind::Update: {
      Ty a = infer(e.a);
      Ty arr = a;  // `r with x.y[i] = v` updates the array at r.x.y
      for (const auto& f : e.field_path) arr = field_of(e.loc, arr, f);
      Ty slice = index_result(e.loc, arr, e.indices);
      Ty v = infer(e.b);
      expect(e.b->loc, slice, v, "in the value of an in-place update");
      t = a;
      break;
    }
    case Expr::Kind::RecordUpdate: t = infer_record_update(e); break;
    case Expr::Kind::Ascribe: {
      // `[]` in an ascription is a size to infer (Futhark's
      // checkTypeExpNonrigid): `[] : [][]i32` has the literal's sizes.
      Ty declared;
      {
        CounterGuard anon(anonymous_as_vars_);
        declared = eval_type(e.ret_type);
      }
      Ty a = infer(e.a);
      expect_sized(e.a->loc, declared, a, "Expression does not have expected type (type ascription)");
      t = declared;
      break;
    }
    case Expr::Kind::Coerce: {
      // Sizes may differ (checked at run time): this only compares the
      // rest of the types, without binding size variables of either side.
      // The result has the declared sizes.
      Ty declared = eval_type(e.ret_type);
      Ty a = infer(e.a);
      CounterGuard no_dims(u.ignore_dims);
      expect(e.a->loc, declared, a, "in size coercion");
      t = declared;
      break;
    }
    case Expr::Kind::Assert: {
      Ty c = infer(e.a);
      expect(e.a->loc, ty_prim(Prim::Bool), c, "in assertion condition");
      t = infer(e.b);
      break;
    }
    case Expr::Kind::Constructor: {
      std::vector<Ty> payload;
      for (auto& x : e.list) payload.push_back(infer(x));
      t = u.fresh_with_constr(e.name.name, std::move(payload), e.loc);
      break;
    }
    case Expr::Kind::Attr: t = infer(e.a); break;
    case Expr::Kind::Intrinsic:
      // The prelude declares the signature around `__intrinsic "name" args`;
      // trust it: the intrinsic takes whatever type the context wants.
      for (auto& x : e.list) infer(x);
      t = u.fresh(e.loc);
      break;
    case Expr::Kind::QualParens: {
      QualName mod = e.name;
      const Env* env = nullptr;
      if (mod.qualifiers.empty()) {
        ModPtr m = lookup_mod(mod, e.loc);
        if (!m->env) error(e.loc, fmt::format("\"{}\" is a parametric module", mod.str()));
        env = m->env.get();
      } else {
        ModPtr m = lookup_mod(mod, e.loc);
        if (!m->env) error(e.loc, fmt::format("\"{}\" is a parametric module", mod.str()));
        env = m->env.get();
      }
      Frame f;
      f.opened = std::make_shared<Env>(*env);
      FrameGuard g(*this, std::move(f));
      t = infer(e.a);
      break;
    }
  }
  note(*ep, t);
  return t;
}

Ty CheckerImpl::field_of(Loc loc, Ty record, const std::string& field) {
  Ty r = resolve(record);
  if (r->kind == TyNode::Kind::Record) {
    const Ty* f = find_field(r->fields, field);
    if (!f) error(loc, fmt::format("type {} has no field \"{}\"", show(r), field));
    return *f;
  }
  if (r->kind == TyNode::Kind::Var) {
    // Futhark infers a record constraint for a field access on a value of
    // not-yet-known type; it must be resolved by the end of the definition.
    Ty ft = u.fresh(loc);
    unify_or(loc, u.fresh_with_field(field, ft, loc), r, [&] {
      return fmt::format("cannot access field \"{}\" of a value of type {}", field, show(r));
    });
    return ft;
  }
  error(loc, fmt::format("cannot access field \"{}\" of a value of non-record type {}", field, show(r)));
}

std::optional<DimRef> CheckerImpl::slice_size(const DimRef& orig, const IndexArg& ix) const {
  auto literal = [](const ExprPtr& x, int64_t v) {
    if (!x) return false;
    if (x->kind == Expr::Kind::IntLit) return int64_t(x->int_value) == v;
    return x->kind == Expr::Kind::Negate && x->a && x->a->kind == Expr::Kind::IntLit && -int64_t(x->a->int_value) == v;
  };
  SizePoly lo = poly_const(0), hi;
  if (!ix.stride || literal(ix.stride, 1)) {  // [hi - lo], hi defaulting to n, lo to 0
    if (ix.start && !local_size_poly(*ix.start, lo)) return std::nullopt;
    if (ix.end ? !local_size_poly(*ix.end, hi) : !dim_poly(orig, hi)) return std::nullopt;
    return dim_of_poly(poly_add(hi, lo, -1));
  }
  if (literal(ix.stride, -1)) {  // xs[::-1] is [n]; xs[i:j:-1] is [i - j]
    if (!ix.start && !ix.end) return orig;
    if (ix.start && ix.end && local_size_poly(*ix.start, hi) && local_size_poly(*ix.end, lo))
      return dim_of_poly(poly_add(hi, lo, -1));
  }
  return std::nullopt;
}

bool CheckerImpl::local_size_poly(const Expr& e, SizePoly& out) const {
  if (!size_poly_of(e, out)) return false;
  for (const auto& [n, b] : out.bindings)
    if (!is_local_value(n)) return false;
  return true;
}

Ty CheckerImpl::index_result(Loc loc, Ty array, std::vector<IndexArg>& indices, bool rigid) {
  Ty i64 = ty_prim(Prim::I64);
  // Futhark accepts any signed integer type as a single index (its
  // checkSlice: `require "use as index" anySignedType`), but slice bounds
  // and strides must be i64.
  const PrimMask signed_ints =
      prim_bit(Prim::I8) | prim_bit(Prim::I16) | prim_bit(Prim::I32) | prim_bit(Prim::I64);
  for (auto& ix : indices) {
    if (!ix.is_slice) {
      // An index of still-unknown type (a lambda parameter, say) becomes an
      // overloaded signed integer: a later use decides it, else Futhark's
      // defaulting makes it i32.
      Ty t = infer(ix.index);
      unify_or(ix.index->loc, u.fresh_overloaded(signed_ints, ix.index->loc), t, [&] {
        return fmt::format("in array index: expected a signed integer type, got {}", show(t));
      });
      continue;
    }
    for (ExprPtr* part : {&ix.start, &ix.end, &ix.stride})
      if (*part) expect((*part)->loc, i64, infer(*part), "in array slice");
  }
  std::vector<DimRef> dims;
  Ty cur = array;
  for (size_t k = 0; k < indices.size(); ++k) {
    Ty c = resolve(cur);
    if (c->kind == TyNode::Kind::Var) {
      Ty elem = u.fresh(loc);
      unify_or(loc, ty_array(dim_var(), elem), c, [&] {
        return fmt::format("cannot index into a value of type {}", show(c));
      });
      c = resolve(c);
    }
    if (c->kind != TyNode::Kind::Array) {
      if (k == 0) error(loc, fmt::format("cannot index into a value of type {}", show(array)));
      error(loc, fmt::format("too many indices ({}) for array of type {}", indices.size(), show(array)));
    }
    const IndexArg& ix = indices[k];
    if (ix.is_slice) {
      bool whole = !ix.start && !ix.end && !ix.stride;
      std::optional<DimRef> sized = whole || !rigid ? std::nullopt : slice_size(c->dim, ix);
      dims.push_back(whole ? c->dim : sized ? *sized : dim_var());
    }
    cur = c->elem;
  }
  return ty_array_n(std::move(dims), cur);
}

Ty CheckerImpl::infer_range(Expr& e) {
  Ty t = u.fresh_overloaded(integral_mask(), e.loc);
  expect(e.a->loc, t, infer(e.a), "in range start");
  if (e.b) expect(e.b->loc, t, infer(e.b), "in range step");
  expect(e.c->loc, t, infer(e.c), "in range end");
  // The size is known statically for the common literal cases.
  DimRef dim = dim_var();
  auto lit = [](const ExprPtr& x, int64_t& v) {
    if (!x || x->kind != Expr::Kind::IntLit) return false;
    v = static_cast<int64_t>(x->int_value);
    return true;
  };
  int64_t start = 0, end = 0, step = 0;
  // Futhark (Terms.hs, Range): a range with a stride has an unknown,
  // existential size ("range_dim"), except `0..1..<e` and `1..2...e`.
  if (e.b && !(lit(e.a, start) && lit(e.b, step) &&
               ((start == 0 && step == 1 && e.range_kind == Expr::RangeKind::UpToExclusive) ||
                (start == 1 && step == 2 && e.range_kind == Expr::RangeKind::Inclusive)))) {
    dim = dim_existential();
    dim->origin = e.loc.end_col > e.loc.col ? fmt::format("is unknown length of range at {}:{}-{}.", e.loc.line, e.loc.col, e.loc.end_col)
                                           : fmt::format("is unknown length of range at {}:{}.", e.loc.line, e.loc.col);
    pending_.existentials.push_back(dim);
  } else if (!e.b && lit(e.a, start) && lit(e.c, end)) {
    int64_t n = 0;
    switch (e.range_kind) {
      case Expr::RangeKind::Inclusive: n = end - start + 1; break;
      case Expr::RangeKind::UpToExclusive: n = end - start; break;
      case Expr::RangeKind::DownToExclusive: n = start - end; break;
    }
    if (n >= 0) dim = dim_const(n);
  } else if (!e.b && lit(e.a, start) && start == 0 && e.range_kind == Expr::RangeKind::UpToExclusive &&
             e.c->kind == Expr::Kind::Var && e.c->name.qualifiers.empty()) {
    const std::string& n = e.c->name.name;
    dim = named_dim(n);
  } else if (!e.b) {
    // An i64 range between size expressions of local names has the size
    // Futhark gives it: `1..<n + 1` is [n], `0..<(n + 1)` is [n + 1].
    Ty rt = resolve(t);
    SizePoly ps, pe;
    if (rt->kind == TyNode::Kind::Prim && rt->prim == Prim::I64 && local_size_poly(*e.a, ps) &&
        local_size_poly(*e.c, pe)) {
      switch (e.range_kind) {
        case Expr::RangeKind::Inclusive: dim = dim_of_poly(poly_add(poly_add(pe, ps, -1), poly_const(1), 1)); break;
        case Expr::RangeKind::UpToExclusive: dim = dim_of_poly(poly_add(pe, ps, -1)); break;
        case Expr::RangeKind::DownToExclusive: dim = dim_of_poly(poly_add(ps, pe, -1)); break;
      }
    }
  }
  return ty_array(dim, t);
}

Ty CheckerImpl::infer_record_update(Expr& e) {
  Ty r = infer(e.a);
  Ty v = infer(e.b);
  std::string what;
  for (const auto& f : e.field_path) what += (what.empty() ? "" : ".") + f;
  // Futhark's updateFieldPath: where the record's type is known down to
  // the field, the field takes the new value's type, whose sizes may
  // differ from the old ones (`r with xs = ys`, ys of another length).
  std::function<std::optional<Ty>(const Ty&, size_t)> update = [&](const Ty& t, size_t k) -> std::optional<Ty> {
    if (k == e.field_path.size()) {
      unify_or(e.b->loc, open_dims_fresh(t, /*every_dim=*/true), v, [&] {
        return fmt::format("Type mismatch when updating record field \"{}\": the new value has type {}, but the "
                           "field has type {}.",
                           what, show(resolve(v)), show(resolve(t)));
      });
      return v;
    }
    Ty rt = resolve(t);
    if (rt->kind != TyNode::Kind::Record) return std::nullopt;
    const Ty* f = find_field(rt->fields, e.field_path[k]);
    if (!f) return std::nullopt;
    std::optional<Ty> inner = update(*f, k + 1);
    if (!inner) return std::nullopt;
    Fields fs;
    for (const auto& [n, x] : rt->fields) fs.emplace_back(n, n == e.field_path[k] ? *inner : x);
    return ty_with_unique(ty_record(std::move(fs)), rt->unique);
  };
  if (std::optional<Ty> updated = update(r, 0)) return *updated;
  Ty cur = r;
  for (const auto& f : e.field_path) cur = field_of(e.loc, cur, f);
  std::string path;
  for (const auto& f : e.field_path) path += (path.empty() ? "" : ".") + f;
  expect(e.b->loc, cur, v, fmt::format("Type mismatch when updating record field \"{}\"", path));
  return r;
}

DimRef CheckerImpl::dim_of_arg(const Expr& arg) const {
  if (arg.kind == Expr::Kind::IntLit) return dim_const(static_cast<int64_t>(arg.int_value));
  if (arg.kind == Expr::Kind::Var && arg.name.qualifiers.empty() && is_local_value(arg.name.name))
    return named_dim(arg.name.name);
  // `empty capacity`: a top-level constant is a size too (Futhark keeps
  // any argument expression as the size), in scope wherever the result is.
  if (arg.kind == Expr::Kind::Var && arg.name.qualifiers.empty() && !arg.name.name.empty() &&
      !is_symbolic(arg.name.name))
    if (SchemePtr s = lookup_top_value(arg.name)) {
      Ty t = resolve(s->type);
      if (t->kind == TyNode::Kind::Prim && t->prim == Prim::I64) return dim_name(arg.name.name);
    }
  // `tabulate_2d (n + 1) (n + 2) f` : [n + 1][n + 2]t (Futhark keeps the
  // argument as a size expression), when every name is a local variable.
  if (arg.kind == Expr::Kind::BinOp || arg.kind == Expr::Kind::Negate) {
    SizePoly p;
    if (size_poly_of(arg, p)) {
      bool local = true;
      for (const auto& [n, b] : p.bindings) local = local && is_local_value(n);
      if (local) return with_tree(dim_of_poly(std::move(p)), arg);
    }
    // `replicate (i64.sum ks + n) x`: Futhark keeps the expression as the
    // size, and `split` unifies its `[n + m]` with it operator for operator
    // (tests/ad/flatmap0.fut). The parts that are not size expressions of
    // local names are unknown sizes of their own (solved at run time).
    // `replicate (2 ** k) x`: any size expression, as syntax.
    if (SizeTreePtr t = size_syntax_tree_of(arg); t && t->op != SizeTree::Op::Leaf) return dim_of_tree(t);
    if (arg.kind == Expr::Kind::BinOp)
      if (SizeTreePtr t = opaque_size_tree_of(arg); t && t->op != SizeTree::Op::Leaf) return dim_of_tree(t);
  }
  // `replicate (cap nb n) x` : [cap nb n]t, the application kept as syntax.
  if (arg.kind == Expr::Kind::Apply)
    if (SizeTreePtr t = app_size_tree_of(arg)) return dim_of_tree(t);
  return dim_var();
}

SizeTreePtr CheckerImpl::opaque_size_tree_of(const Expr& e) const {
  SizePoly p;
  if (size_poly_of(e, p)) {
    bool local = true;
    for (const auto& [n, b] : p.bindings) local = local && is_local_value(n);
    if (local) return size_tree_of(e);
  }
  if (e.kind == Expr::Kind::BinOp && e.name.qualifiers.empty() && e.a && e.b && !is_local_value(e.name.name)) {
    const std::string& op = e.name.name;
    if (op == "+" || op == "-" || op == "*") {
      SizeTree::Op o = op == "*" ? SizeTree::Op::Mul : op == "+" ? SizeTree::Op::Add : SizeTree::Op::Sub;
      return tree_node(o, opaque_size_tree_of(*e.a), opaque_size_tree_of(*e.b));
    }
  }
  return tree_leaf(dim_var());
}

DimRef CheckerImpl::with_tree(DimRef d, const Expr& e) const {
  // A constant written as an expression keeps its syntax too: `iota (2 * 2)
  // |> unflatten` is [2][2].
  if (d->kind == DimNode::Kind::Expr || (d->kind == DimNode::Kind::Constant && e.kind == Expr::Kind::BinOp))
    d->tree = size_tree_of(e);
  return d;
}

// Called only on expressions size_poly_of accepted.
SizeTreePtr CheckerImpl::size_tree_of(const Expr& e) const {
  switch (e.kind) {
    case Expr::Kind::IntLit: return tree_leaf(dim_const(static_cast<int64_t>(e.int_value)));
    case Expr::Kind::Var: return tree_leaf(named_dim(e.name.name));
    case Expr::Kind::Negate: return tree_node(SizeTree::Op::Neg, size_tree_of(*e.a));
    case Expr::Kind::BinOp: {
      const std::string& op = e.name.name;
      SizeTree::Op o = op == "*" ? SizeTree::Op::Mul : op == "+" ? SizeTree::Op::Add : SizeTree::Op::Sub;
      return tree_node(o, size_tree_of(*e.a), size_tree_of(*e.b));
    }
    default: return nullptr;
  }
}

// `[cap nb n]`: an application of a top-level function to size
// expressions, names and applications, as syntax (null otherwise). A local
// function is left out: its name does not identify one function.
SizeTreePtr CheckerImpl::app_size_tree_of(const Expr& e) const {
  if (e.kind != Expr::Kind::Apply || !e.a || e.a->kind != Expr::Kind::Var || e.list.empty()) return nullptr;
  if (e.a->name.qualifiers.empty() && is_local_value(e.a->name.name)) return nullptr;
  std::vector<SizeTreePtr> args;
  for (const auto& x : e.list) {
    SizeTreePtr t = size_syntax_tree_of(*x);
    if (!t) return nullptr;
    args.push_back(std::move(t));
  }
  return tree_apply(e.a->name.str(), std::move(args));
}

// Any size expression as syntax (null when it is none): `[(n - 1) / b + 1]`,
// `[2 ** k]`, `[f n * f n]`. Operators other than +, - and * have no
// normal form; they are kept as applications of the operator (`/` to n - 1
// and b), which unify argument by argument as in Futhark's unifySizes, and
// which the evaluator computes where a size parameter is instantiated with
// them (zonk_dim's DimFormula::tree).
SizeTreePtr CheckerImpl::size_syntax_tree_of(const Expr& e) const {
  if (e.kind == Expr::Kind::IntLit && e.suffix && *e.suffix != Prim::I64) {
    if (!is_integral(*e.suffix) || e.int_value > static_cast<uint64_t>(INT64_MAX)) return nullptr;
    auto t = std::make_shared<SizeTree>(*tree_leaf(dim_const(static_cast<int64_t>(e.int_value))));
    t->lit_type = e.suffix;
    return t;
  }
  SizePoly p;
  if (size_poly_of(e, p)) return size_tree_of(e);
  switch (e.kind) {
    case Expr::Kind::Var: {
      // Only integers (`i64.i32 n` takes an i32): an array or function
      // named here makes this no size expression.
      if (e.name.name.empty() || is_symbolic(e.name.name)) return nullptr;
      bool local = e.name.qualifiers.empty() && is_local_value(e.name.name);
      SchemePtr s = local ? find_value(e.name.name) : lookup_top_value(e.name);
      Ty t = s ? resolve(s->type) : nullptr;
      if (!t || t->kind != TyNode::Kind::Prim || !is_integral(t->prim)) return nullptr;
      return tree_leaf(local ? named_dim(e.name.name) : dim_name(e.name.str()));
    }
    case Expr::Kind::Negate: {
      SizeTreePtr a = e.a ? size_syntax_tree_of(*e.a) : nullptr;
      return a ? tree_node(SizeTree::Op::Neg, a) : nullptr;
    }
    case Expr::Kind::BinOp: {
      const std::string& op = e.name.name;
      if (!e.name.qualifiers.empty() || is_local_value(op) || !e.a || !e.b) return nullptr;
      SizeTreePtr a = size_syntax_tree_of(*e.a), b = size_syntax_tree_of(*e.b);
      if (!a || !b) return nullptr;
      if (op == "+" || op == "-" || op == "*") {
        SizeTree::Op o = op == "*" ? SizeTree::Op::Mul : op == "+" ? SizeTree::Op::Add : SizeTree::Op::Sub;
        return tree_node(o, a, b);
      }
      if (!is_symbolic(op)) return nullptr;  // x `f` y
      return tree_apply(op, {a, b});
    }
    case Expr::Kind::Apply: return app_size_tree_of(e);
    default: return nullptr;
  }
}

SizeTreePtr CheckerImpl::projection_size_tree(const Expr& e) const {
  if (e.kind != Expr::Kind::Project || e.field_path.size() != 1 || !e.a) return nullptr;
  SizeTreePtr record =
      e.a->kind == Expr::Kind::Var ? projection_size_tree(e.a->name) : projection_size_tree(*e.a);
  if (!record) return nullptr;
  return tree_apply("." + e.field_path[0], {record});
}

SizeTreePtr CheckerImpl::projection_size_tree(const QualName& name) const {
  // The record: the first part of the name, a local variable (which
  // shadows a module of that name).
  const std::string& head = name.qualifiers.empty() ? name.name : name.qualifiers[0];
  if (!is_local_value(head)) return nullptr;
  if (name.qualifiers.empty()) {
    Ty t = resolve(find_value(head)->type);
    return t->kind == TyNode::Kind::Record ? tree_leaf(named_dim(head)) : nullptr;
  }
  QualName record;
  record.name = head;
  SizeTreePtr out = projection_size_tree(record);
  for (size_t i = 1; out && i <= name.qualifiers.size(); ++i)
    out = tree_apply("." + (i < name.qualifiers.size() ? name.qualifiers[i] : name.name), {out});
  return out;
}

bool CheckerImpl::size_poly_of(const Expr& e, SizePoly& out) const {
  switch (e.kind) {
    case Expr::Kind::IntLit:
      if (e.int_value > static_cast<uint64_t>(INT64_MAX)) return false;
      out = poly_const(static_cast<int64_t>(e.int_value));
      return true;
    case Expr::Kind::Var:
      if (!e.name.qualifiers.empty()) return false;
      return dim_poly(named_dim(e.name.name), out);
    case Expr::Kind::Negate: {
      SizePoly a;
      if (!e.a || !size_poly_of(*e.a, a)) return false;
      out = poly_add(SizePoly{}, a, -1);
      return true;
    }
    case Expr::Kind::BinOp: {
      const std::string& op = e.name.name;
      if (!e.name.qualifiers.empty() || (op != "+" && op != "-" && op != "*")) return false;
      // The operator must be the prelude's, not a local redefinition.
      if (is_local_value(op)) return false;
      SizePoly a, b;
      if (!e.a || !e.b || !size_poly_of(*e.a, a) || !size_poly_of(*e.b, b)) return false;
      out = op == "*" ? poly_mul(a, b) : poly_add(a, b, op == "+" ? 1 : -1);
      return true;
    }
    default: return false;
  }
}

void CheckerImpl::require_i64_names(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Var:
      if (e.name.qualifiers.empty() && is_local_value(e.name.name)) {
        // Futhark: a name in a size expression is an i64. A clash is left
        // to the body's own checks (prefer accepting).
        try {
          u.unify(ty_prim(Prim::I64), find_value(e.name.name)->type);
        } catch (const UnifyFailure&) {
        }
      }
      return;
    case Expr::Kind::BinOp:
    case Expr::Kind::Negate:
      if (e.a) require_i64_names(*e.a);
      if (e.b) require_i64_names(*e.b);
      return;
    default: return;
  }
}

DimRef CheckerImpl::named_dim(const std::string& name) const {
  if (!is_local_value(name)) return dim_name(name);
  SchemePtr s = find_value(name);
  if (!s || s->loose_size) return dim_name(name);
  return dim_name(name, s);
}

void CheckerImpl::loosen_sizes(const std::vector<TypeParam>& params, Frame& frame) {
  for (const auto& p : params) {
    if (!p.is_size) continue;
    auto it = frame.values.find(p.name);
    if (it == frame.values.end()) continue;
    auto s = std::make_shared<Scheme>(*it->second);
    s->loose_size = true;
    it->second = s;
  }
}

}  // namespace thorn::types
