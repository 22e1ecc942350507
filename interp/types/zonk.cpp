// Generalisation, defaulting and zonking: turning the checker's working
// types into the immutable `Type`s stored on the AST.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "interp/types/checker_impl.hpp"

namespace thorn::types {

void CheckerImpl::begin_definition() {
  pending_ = {};
  u.level = 1;
}

namespace {
Dim zonk_dim(const DimRef& d0);
}  // namespace

// Futhark rejects a literal that its inferred type cannot represent
// (`128 : i8`, `-4 : u32`, `9.7e42 : f32`); `-128 : i8` is fine.
void CheckerImpl::check_literal_bounds(const Expr& e, Prim t, bool negated) const {
  // A literal with a type suffix is taken modulo its type, as Futhark's
  // lexer does (`255i8` is -1); only inferred types are checked.
  if (e.suffix) return;
  bool ok = true;
  std::string shown = e.text.empty() ? std::to_string(e.int_value) : e.text;
  if (e.kind == Expr::Kind::IntLit) {
    long double x = static_cast<long double>(e.int_value);
    if (negated) x = -x, shown = "-" + shown;
    if (is_float(t)) {
      long double max = t == Prim::F16 ? 65520.0L : t == Prim::F32 ? 3.4028235677973366e38L : 1.7976931348623157e308L;
      ok = x < max && x > -max;
    } else if (is_integral(t)) {
      int bits = prim_bytes(t) * 8;
      long double lo = is_signed_int(t) ? -std::ldexp(1.0L, bits - 1) : 0.0L;
      long double hi = is_signed_int(t) ? std::ldexp(1.0L, bits - 1) : std::ldexp(1.0L, bits);
      ok = x >= lo && x < hi;
    }
  } else if (e.kind == Expr::Kind::FloatLit && is_float(t)) {
    double x = e.float_value;
    ok = t == Prim::F16 ? std::fabs(x) < 65520.0 : t == Prim::F32 ? !std::isinf(static_cast<float>(x)) : !std::isinf(x);
  }
  if (!ok) error(e.loc, fmt::format("Literal {} out of bounds for inferred type {}.", shown, prim_name(t)));
}

int CheckerImpl::lifted_var_in(const Ty& t0) const {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Param: return lifted_vars.count(t->param_id) ? t->param_id : -1;
    case TyNode::Kind::Array: return lifted_var_in(t->elem);
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields)
        if (int r = lifted_var_in(f); r >= 0) return r;
      return -1;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& x : ps)
          if (int r = lifted_var_in(x); r >= 0) return r;
      return -1;
    case TyNode::Kind::Function: {
      if (int r = lifted_var_in(t->param); r >= 0) return r;
      return lifted_var_in(t->result);
    }
    default: return -1;
  }
}

void CheckerImpl::finish_definition() {
  Pending p;
  std::swap(p, pending_);
  for (const auto& a : p.ambiguous) {
    DimRef r = dim_resolve(a.var);
    if (r->kind == DimNode::Kind::Var && !r->met && !r->met_unknown && !r->met_self)
      error(a.loc, fmt::format("Ambiguous size \"{}\"{}.\n\nFor more information, see:\n  "
                               "https://futhark.readthedocs.io/en/latest/error-index.html#ambiguous-size",
                               a.name, a.why.empty() ? "" : " arising from " + a.why));
  }
  for (auto& [d, t] : p.decls)
    if (d->body) check_causality(*d->body, p);
  // Futhark's defaulting happens when leaving a top-level definition: every
  // variable still open is defaulted (1 is i32, 1.0 is f64, others unit).
  for (auto& [e, t] : p.exprs) default_vars(t);
  for (auto& [e, t] : p.literals) default_vars(t);
  for (auto& [pt, t] : p.patterns) default_vars(t);
  for (auto& [e, ts] : p.instantiations)
    for (auto& t : ts) default_vars(t);
  for (auto& [d, t] : p.decls) default_vars(t);
  for (const auto& nl : p.nonlifted)
    if (ty_functional(nl.type))
      error(nl.loc, fmt::format("Cannot instantiate the non-lifted type parameter '{} of \"{}\" with the functional "
                                "type {} (declare it '^{} to allow functions).",
                                nl.param, nl.fn, show(nl.type), nl.param));
  // Futhark's checkTyInstLiftedness: nor with a lifted or size-lifted type
  // parameter or abstract type.
  for (const auto& nl : p.nonlifted)
    if (int id = lifted_var_in(nl.type); id >= 0) {
      const auto& [name, at] = lifted_vars.at(id);
      std::string what = at.known() ? fmt::format("Type parameter \"{}\" bound at {}", name, at.str())
                                    : fmt::format("Type \"{}\"", name);
      error(nl.loc, fmt::format("{} is lifted and cannot be an array element.\nWhen instantiating type parameter of "
                                "\"{}\".",
                                what, nl.fn));
    }

  for (auto& [e, t] : p.exprs) e->type = zonk(t, false);
  for (auto& [e, t] : p.literals) {
    Ty r = resolve(t);
    if (r->kind != TyNode::Kind::Prim) continue;
    e->prim = r->prim;
    check_literal_bounds(*e, r->prim, p.negated_literals.count(e) > 0);
  }
  for (auto& [pt, t] : p.patterns) pt->type = zonk(t, true);
  for (auto& [e, ts] : p.instantiations) {
    e->instantiation.clear();
    for (auto& t : ts) e->instantiation.push_back(zonk(t, false));
  }
  for (auto& [e, sizes] : p.size_instantiations) {
    e->size_args.clear();
    for (auto& [name, d] : sizes) {
      Dim z = zonk_dim(d);
      if (z.kind != Dim::Kind::Unknown || z.formula) e->size_args.emplace_back(name, std::move(z));
    }
  }
  for (auto& [d, t] : p.decls) d->type = zonk(t, true);
  u.level = 0;
}

namespace {

void collect_vars(const Ty& t0, int above_level, std::vector<Ty>& out, std::set<const TyNode*>& seen) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Var:
      if (t->level > above_level && seen.insert(t.get()).second) out.push_back(t);
      return;
    case TyNode::Kind::Array: collect_vars(t->elem, above_level, out, seen); return;
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields) collect_vars(f, above_level, out, seen);
      return;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps) collect_vars(p, above_level, out, seen);
      return;
    case TyNode::Kind::Function:
      collect_vars(t->param, above_level, out, seen);
      collect_vars(t->result, above_level, out, seen);
      return;
    default: return;
  }
}

std::string invented_name(int n) {
  std::string s(1, static_cast<char>('a' + n % 26));
  if (n >= 26) s += std::to_string(n / 26);
  return s;
}

}  // namespace

std::vector<int> CheckerImpl::generalise(const Ty& t, const std::vector<std::string>& taken_names, const Loc& loc) {
  std::vector<Ty> vars;
  std::set<const TyNode*> seen;
  collect_vars(t, u.level, vars, seen);
  std::vector<int> ids;
  std::set<std::string> taken(taken_names.begin(), taken_names.end());
  int next_name = 0;
  // Variables inside the constraint of a variable that stays open (the `a`
  // of `v.0` giving {0: a}) stay open too: `let f v = v.0 in f (x, y)` must
  // learn both from the use (Futhark's inference34).
  std::set<const TyNode*> blocked;
  for (const Ty& v : vars) {
    if (v->constraint != Constraint::HasFields && v->constraint != Constraint::HasConstrs) continue;
    std::vector<Ty> inner;
    std::set<const TyNode*> inner_seen;
    for (const auto& [n, f] : v->fields) collect_vars(f, -1, inner, inner_seen);
    for (const auto& [n, ps] : v->constrs)
      for (const auto& p : ps) collect_vars(p, -1, inner, inner_seen);
    for (const Ty& x : inner) blocked.insert(x.get());
  }
  for (const Ty& v : vars) {
    if (blocked.count(v.get())) continue;
    // As in Futhark, only unconstrained variables become type parameters;
    // overloaded ones are defaulted instead (there are no type classes).
    // An equality-constrained one cannot be: a type parameter does not
    // support == (`def add x y = x == y`).
    if (v->constraint == Constraint::Equality)
      error(loc, "Comparing equality of values of a type that is not known, which does not support equality.\n"
                    "Hint: add a type annotation.");
    if (v->constraint != Constraint::None) continue;
    std::string name;
    do name = invented_name(next_name++);
    while (taken.count(name));
    taken.insert(name);
    int id = new_param_id();
    v->link = ty_param(id, name);
    ids.push_back(id);
  }
  return ids;
}

void CheckerImpl::default_vars(const Ty& t0) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Var:
      switch (t->constraint) {
        case Constraint::Overloaded: {
          Prim p = Prim::I32;
          if (t->prims & prim_bit(Prim::I32)) p = Prim::I32;
          else if (t->prims & prim_bit(Prim::F64)) p = Prim::F64;
          else
            for (int i = 0; i < kNumPrims; ++i)
              if (t->prims & prim_bit(static_cast<Prim>(i))) {
                p = static_cast<Prim>(i);
                break;
              }
          t->link = ty_prim(p);
          return;
        }
        case Constraint::HasFields: {
          if (lenient_records) {  // a REPL expression such as `(.a.b)` shows a function
            Fields fs = t->fields;
            t->link = ty_record(fs);
            for (const auto& [n, f] : fs) default_vars(f);
            return;
          }
          // Nor a record type from the fields used (`def f x = x.l`).
          std::string used;
          for (const auto& [n, f] : t->fields) used += (used.empty() ? "" : ", ") + n;
          error(t->constraint_loc, fmt::format("Type is ambiguous: a record with field(s) {} is never given a full "
                                               "type. Add a type annotation.",
                                               used));
        }
        case Constraint::HasConstrs: {
          // Futhark never guesses a sum type from the constructors used:
          // `match #bar 12 case ...` needs an annotation.
          std::string used;
          for (const auto& [n, ps] : t->constrs) used += (used.empty() ? "#" : ", #") + n;
          error(t->constraint_loc,
                fmt::format("Type is ambiguous: a sum type with constructors {} is never given a full type. "
                            "Add a type annotation.",
                            used));
        }
        default:
          // Futhark defaults an unconstrained leftover to the unit type.
          t->link = ty_unit();
          return;
      }
    case TyNode::Kind::Array: default_vars(t->elem); return;
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields) default_vars(f);
      return;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps) default_vars(p);
      return;
    case TyNode::Kind::Function:
      default_vars(t->param);
      default_vars(t->result);
      return;
    default: return;
  }
}

Ty CheckerImpl::freeze(const Ty& t0) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Var: return ty_unit();
    case TyNode::Kind::Prim:
    case TyNode::Kind::Param: return t;
    case TyNode::Kind::Array: {
      auto c = std::make_shared<TyNode>(*t);
      DimRef d = dim_resolve(t->dim);
      c->dim = d->kind == DimNode::Kind::Var ? dim_unknown() : d;
      c->elem = freeze(t->elem);
      return c;
    }
    case TyNode::Kind::Record: {
      auto c = std::make_shared<TyNode>(*t);
      for (auto& [n, f] : c->fields) f = freeze(f);
      return c;
    }
    case TyNode::Kind::Sum: {
      auto c = std::make_shared<TyNode>(*t);
      for (auto& [n, ps] : c->constrs)
        for (auto& p : ps) p = freeze(p);
      return c;
    }
    case TyNode::Kind::Function: {
      auto c = std::make_shared<TyNode>(*t);
      c->param = freeze(t->param);
      c->result = freeze(t->result);
      return c;
    }
  }
  return t;
}

namespace {

std::shared_ptr<SizeSyntax> syntax_node(SizeSyntax::Op op, std::string name = {}) {
  auto n = std::make_shared<SizeSyntax>();
  n->op = op;
  n->name = std::move(name);
  return n;
}

std::shared_ptr<const SizeSyntax> size_syntax(const SizeTreePtr& t);

// A polynomial as a sum of products.
std::shared_ptr<const SizeSyntax> poly_syntax(const SizePoly& p) {
  std::shared_ptr<const SizeSyntax> sum;
  for (const auto& [mono, c] : p.terms) {
    auto term = syntax_node(SizeSyntax::Op::Const);
    term->value = c;
    std::shared_ptr<const SizeSyntax> prod = term;
    for (const auto& n : mono) {
      auto mul = syntax_node(SizeSyntax::Op::BinOp, "*");
      mul->args = {prod, syntax_node(SizeSyntax::Op::Name, n)};
      prod = mul;
    }
    if (!sum) {
      sum = prod;
      continue;
    }
    auto add = syntax_node(SizeSyntax::Op::BinOp, "+");
    add->args = {sum, prod};
    sum = add;
  }
  if (!sum) sum = syntax_node(SizeSyntax::Op::Const);
  return sum;
}

// A solved size tree as syntax for the evaluator; null when a part is
// unknown.
std::shared_ptr<const SizeSyntax> size_syntax(const SizeTreePtr& t) {
  switch (t->op) {
    case SizeTree::Op::Leaf: {
      DimRef d = dim_resolve(t->leaf);
      switch (d->kind) {
        case DimNode::Kind::Constant: {
          auto n = syntax_node(SizeSyntax::Op::Const);
          n->value = d->value;
          n->type = t->lit_type;
          return n;
        }
        case DimNode::Kind::Name: return syntax_node(SizeSyntax::Op::Name, d->name);
        case DimNode::Kind::Expr:
          if (d->tree) return size_syntax(d->tree);
          if (d->poly) return poly_syntax(*d->poly);
          return nullptr;
        default: return nullptr;
      }
    }
    case SizeTree::Op::Neg: {
      auto a = size_syntax(t->a);
      if (!a) return nullptr;
      auto n = syntax_node(SizeSyntax::Op::Neg);
      n->args = {a};
      return n;
    }
    case SizeTree::Op::Apply: {
      // Operators other than +, - and * are applications of the operator.
      bool op = is_symbolic(t->fn) && t->args.size() == 2;
      auto n = syntax_node(op ? SizeSyntax::Op::BinOp : SizeSyntax::Op::Apply, t->fn);
      for (const auto& x : t->args) {
        auto a = size_syntax(x);
        if (!a) return nullptr;
        n->args.push_back(a);
      }
      return n;
    }
    default: {
      auto a = size_syntax(t->a), b = size_syntax(t->b);
      if (!a || !b) return nullptr;
      auto n = syntax_node(SizeSyntax::Op::BinOp, t->op == SizeTree::Op::Add ? "+" : t->op == SizeTree::Op::Sub ? "-" : "*");
      n->args = {a, b};
      return n;
    }
  }
}

Dim zonk_dim(const DimRef& d0) {
  DimRef d = dim_resolve(d0);
  Dim out;
  switch (d->kind) {
    case DimNode::Kind::Constant:
      out.kind = Dim::Kind::Constant;
      out.value = d->value;
      break;
    case DimNode::Kind::Name:
      out.kind = Dim::Kind::Name;
      out.name = d->name;
      break;
    case DimNode::Kind::Expr: {
      // Only expressions over local names: those are in scope, by these
      // names, where the evaluator computes them.
      out.kind = Dim::Kind::Unknown;
      SizePoly p;
      if (!dim_poly(d, p)) {
        // No polynomial (`(n - 1) / b + 1`, `f n`): its syntax, names and
        // functions looked up where it is computed.
        if (d->tree && !tree_pending(d->tree))
          if (auto syn = size_syntax(d->tree)) {
            auto f = std::make_shared<DimFormula>();
            f->syntax = std::move(syn);
            f->text = show_tree(d->tree);
            out.formula = std::move(f);
          }
        break;
      }
      for (const auto& [n, b] : p.bindings)
        if (!b) return out;
      auto f = std::make_shared<DimFormula>();
      for (const auto& [mono, c] : p.terms) f->terms.emplace_back(mono, c);
      f->text = show_poly(p);
      out.formula = std::move(f);
      break;
    }
    default: out.kind = Dim::Kind::Unknown; break;
  }
  return out;
}

TypePtr with_unique(TypePtr t, bool unique) {
  if (t->unique == unique) return t;
  auto c = std::make_shared<Type>(*t);
  c->unique = unique;
  return c;
}

}  // namespace

TypePtr CheckerImpl::zonk(const Ty& t0, bool keep_unique) {
  // t0 may be a unique view of a variable (see ty_with_unique).
  bool view_unique = t0->kind == TyNode::Kind::Var && t0->unique;
  Ty t = resolve(t0);
  bool unique = keep_unique && (t->unique || view_unique);
  TypePtr out;
  switch (t->kind) {
    case TyNode::Kind::Var: out = unit_type(); break;
    case TyNode::Kind::Prim: out = prim_type(t->prim); break;
    case TyNode::Kind::Param:
      // A sealed abstract type is opaque to the checker only: the evaluator
      // sees its definition.
      if (auto it = opaque.find(t->param_id); it != opaque.end()) {
        out = zonk(it->second, keep_unique);
        break;
      }
      out = param_type(t->param_id, t->param_var_name);
      break;
    case TyNode::Kind::Array: {
      std::vector<Dim> dims;
      Ty cur = t;
      while (cur->kind == TyNode::Kind::Array) {
        dims.push_back(zonk_dim(cur->dim));
        cur = resolve(cur->elem);
      }
      out = array_type(zonk(cur, false), std::move(dims));
      break;
    }
    case TyNode::Kind::Record: {
      if (t->fields.empty()) {
        out = unit_type();
      } else if (is_tuple_fields(t->fields)) {
        std::vector<TypePtr> elems;
        for (const auto& [n, f] : t->fields) elems.push_back(zonk(f, true));
        out = tuple_type(std::move(elems));
      } else {
        std::vector<std::pair<std::string, TypePtr>> fields;
        for (const auto& [n, f] : t->fields) fields.emplace_back(n, zonk(f, true));
        out = record_type(std::move(fields));
      }
      break;
    }
    case TyNode::Kind::Sum: {
      std::vector<std::pair<std::string, std::vector<TypePtr>>> cs;
      for (const auto& [n, ps] : t->constrs) {
        std::vector<TypePtr> payload;
        for (const auto& p : ps) payload.push_back(zonk(p, true));
        cs.emplace_back(n, std::move(payload));
      }
      out = sum_type(std::move(cs));
      break;
    }
    case TyNode::Kind::Function:
      out = function_type(zonk(t->param, true), zonk(t->result, true), t->param_name);
      break;
  }
  return with_unique(out, unique);
}

}  // namespace thorn::types
