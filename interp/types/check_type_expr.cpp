// Type expressions (annotations, type declarations) to checker types.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "interp/syntax/print.hpp"
#include "interp/types/checker_impl.hpp"
#include "interp/types/liftedness.hpp"

namespace thorn::types {

void CheckerImpl::infer_size_apps(const ExprPtr& e) {
  if (!e) return;
  switch (e->kind) {
    case Expr::Kind::BinOp:
    case Expr::Kind::Negate:
      infer_size_apps(e->a);
      infer_size_apps(e->b);
      return;
    case Expr::Kind::Apply: {
      ExprPtr copy = e;
      try {
        Ty t = infer(copy);
        u.unify(ty_prim(Prim::I64), t);
      } catch (const Error&) {
      } catch (const UnifyFailure&) {
      }
      return;
    }
    default: return;
  }
}

DimRef CheckerImpl::eval_dim(const SizeExpr& s) {
  switch (s.kind) {
    case SizeExpr::Kind::Constant: return dim_const(s.value);
    case SizeExpr::Kind::Name:
      if (s.name.qualifiers.empty() && is_local_value(s.name.name)) {
        // `(n: f64, a: [n]i32)`: a size must be an i64.
        Ty t = resolve(find_value(s.name.name)->type);
        if (t->kind != TyNode::Kind::Var && !(t->kind == TyNode::Kind::Prim && t->prim == Prim::I64))
          error(s.loc, fmt::format("Size \"{}\" must have type i64, but the variable \"{}\" has type {}.",
                                   s.name.name, s.name.name, show(t)));
        // Futhark: "if a name is used as a size, then it's probably an i64"
        // (`def main n (xs: [n]i32)`): an unannotated variable becomes one.
        if (t->kind == TyNode::Kind::Var) {
          try {
            u.unify(ty_prim(Prim::I64), t);
          } catch (const UnifyFailure&) {
          }
        }
      }
      if (s.name.qualifiers.empty() && is_local_value(s.name.name))
        return named_dim(s.name.name);
      if (SizeTreePtr t = projection_size_tree(s.name)) return dim_of_tree(t);
      return dim_name(s.name.str());
    case SizeExpr::Kind::Anonymous:
      // `[]` in an annotation means "some size": the declared type keeps it
      // unknown rather than learning it from the value.
      if (anonymous_as_vars_ > 0) {
        DimRef v = dim_var();
        v->stamp = scope_stamp_;
        return v;
      }
      return dim_unknown();
    case SizeExpr::Kind::Expr:
      // `[n + m]`: n and m are i64; the size is compared structurally
      // (size_poly.cpp). Other expressions stay a variable.
      if (s.expr) {
        require_i64_names(*s.expr);
        // An application (`[plus a b]`, `[i64.i32 n * i64.i32 m]`) is an i64
        // expression whose inference types the names it mentions (Futhark
        // checks size expressions as expressions). Names that are not values
        // here (a type's size parameters) leave it unchecked.
        infer_size_apps(s.expr);
        SizePoly p;
        if (size_poly_of(*s.expr, p)) return with_tree(dim_of_poly(std::move(p)), *s.expr);
        if (SizeTreePtr t = size_syntax_tree_of(*s.expr)) return dim_of_tree(t);
        if (SizeTreePtr t = projection_size_tree(*s.expr)) return dim_of_tree(t);
      }
      return dim_var();
  }
  return dim_var();
}

void CheckerImpl::check_distinct_type_params(const std::vector<TypeParam>& params) {
  std::map<std::pair<bool, std::string>, Loc> seen;  // sizes and types are separate namespaces
  for (const auto& p : params) {
    auto [it, fresh] = seen.emplace(std::make_pair(p.is_size, p.name), p.loc);
    if (!fresh)
      error(p.loc, fmt::format("Type parameter \"{}\" previously defined at {}.", p.name, it->second.str()));
  }
}

std::vector<int> CheckerImpl::bind_type_params(const std::vector<TypeParam>& params, Frame& frame) {
  std::vector<int> ids;
  check_distinct_type_params(params);
  for (const auto& p : params) {
    if (p.is_size) {
      // A size parameter is also an i64 value in the body.
      auto s = std::make_shared<Scheme>();
      s->type = ty_prim(Prim::I64);
      s->stamp = ++scope_stamp_;
      frame.values[p.name] = s;
      ids.push_back(-1);
    } else {
      int id = new_param_id();
      auto td = std::make_shared<TypeDef>();
      td->body = ty_param(id, p.name);
      td->liftedness = param_liftedness(p.loc, p.lifted);
      if (td->liftedness != kUnlifted) lifted_vars[id] = {p.name, p.loc};
      frame.types[p.name] = td;
      ids.push_back(id);
    }
  }
  return ids;
}

namespace {

bool size_is(const SizeExpr& s, const std::string& n) {
  if (s.kind == SizeExpr::Kind::Expr) return true;  // `[n + 1]`: taken as a use (lenient)
  return s.kind == SizeExpr::Kind::Name && s.name.qualifiers.empty() && s.name.name == n;
}

// Whether n is the size of an array in te, outside function types (whose
// values carry no sizes). A size argument of a type abbreviation counts.
bool constructive_use(const TypeExprPtr& te, const std::string& n) {
  if (!te) return false;
  switch (te->kind) {
    case TypeExpr::Kind::Array: return size_is(te->size, n) || constructive_use(te->elem, n);
    case TypeExpr::Kind::Function: return false;
    case TypeExpr::Kind::Existential:
      for (const auto& m : te->existentials)
        if (m == n) return false;
      return constructive_use(te->elem, n);
    default: break;
  }
  if (constructive_use(te->elem, n)) return true;
  for (const auto& a : te->args)
    if ((a.is_size && size_is(a.size, n)) || constructive_use(a.type, n)) return true;
  for (const auto& x : te->elems)
    if (constructive_use(x, n)) return true;
  for (const auto& [f, x] : te->fields)
    if (constructive_use(x, n)) return true;
  for (const auto& [c, xs] : te->constructors)
    for (const auto& x : xs)
      if (constructive_use(x, n)) return true;
  return false;
}

}  // namespace

int CheckerImpl::type_expr_liftedness(const TypeExprPtr& te) {
  if (!te) return kUnlifted;
  switch (te->kind) {
    case TypeExpr::Kind::Name: {
      if (te->name.qualifiers.empty() && te->args.empty() && prim_from_name(te->name.name)) return kUnlifted;
      TypeDefPtr td = lookup_type(te->name, te->loc);
      int l = td->liftedness;
      // A lifted argument for a non-lifted type parameter makes the
      // application as lifted as the argument.
      for (size_t i = 0; i < te->args.size() && i < td->params.size(); ++i)
        if (!te->args[i].is_size && !td->params[i].is_size && !td->params[i].lifted)
          l = std::max(l, type_expr_liftedness(te->args[i].type));
      return l;
    }
    case TypeExpr::Kind::Array: return kUnlifted;  // its element is checked by eval_type
    case TypeExpr::Kind::Function: return kLifted;
    case TypeExpr::Kind::Unique: return type_expr_liftedness(te->elem);
    case TypeExpr::Kind::Existential: return std::max<int>(kSizeLifted, type_expr_liftedness(te->elem));
    default: break;
  }
  int l = kUnlifted;
  for (const auto& x : te->elems) l = std::max(l, type_expr_liftedness(x));
  for (const auto& [f, x] : te->fields) l = std::max(l, type_expr_liftedness(x));
  for (const auto& [c, xs] : te->constructors)
    for (const auto& x : xs) l = std::max(l, type_expr_liftedness(x));
  return l;
}

// A name that a function type binds (`(x: t) -> u`, or `?[x].t`) inside
// the scope of a function type that binds it already: Futhark's
// checkForDuplicateNamesInType ("Name "x" also bound at ...").
static const TypeExpr* rebinding(const TypeExpr& te, const std::string& name) {
  if (te.kind == TypeExpr::Kind::Function && te.param_name == name) return &te;
  if (te.kind == TypeExpr::Kind::Existential)
    for (const auto& e : te.existentials)
      if (e == name) return &te;
  std::vector<const TypeExpr*> inner;
  for (const auto* p : {&te.elem, &te.param, &te.result})
    if (*p) inner.push_back(p->get());
  for (const auto& e : te.elems) inner.push_back(e.get());
  for (const auto& [f, t] : te.fields) inner.push_back(t.get());
  for (const auto& [c, ts] : te.constructors)
    for (const auto& t : ts) inner.push_back(t.get());
  for (const auto& a : te.args)
    if (!a.is_size && a.type) inner.push_back(a.type.get());
  for (const TypeExpr* t : inner)
    if (const TypeExpr* r = rebinding(*t, name)) return r;
  return nullptr;
}

void CheckerImpl::check_names_bound_once(const TypeExpr& te) {
  if (te.kind == TypeExpr::Kind::Function && !te.param_name.empty()) {
    for (const auto* part : {&te.param, &te.result})
      if (*part)
        if (const TypeExpr* again = rebinding(**part, te.param_name))
          error(again->loc, fmt::format("Name \"{}\" also bound at {}.", te.param_name, te.loc.str()));
  }
}

namespace {

// The size names (Name dims) a type mentions.
void size_names(const Ty& t, std::set<std::string>& out) {
  Ty r = resolve(t);
  if (!r) return;
  switch (r->kind) {
    case TyNode::Kind::Array:
      if (r->dim && r->dim->kind == DimNode::Kind::Name) out.insert(r->dim->name);
      size_names(r->elem, out);
      return;
    case TyNode::Kind::Record:
      for (const auto& f : r->fields) size_names(f.second, out);
      return;
    case TyNode::Kind::Sum:
      for (const auto& c : r->constrs)
        for (const Ty& x : c.second) size_names(x, out);
      return;
    case TyNode::Kind::Function:
      size_names(r->param, out);
      size_names(r->result, out);
      return;
    default: return;
  }
}

}  // namespace

// A type taken from a module (`M.t` where M has `def k = 2` and `type t =
// [k]i64`): its sizes that name the module's values are qualified (`[M.k]`),
// as Futhark's qualification of module members does, so they mean the
// module's values where the type is used.
Ty CheckerImpl::qualify_module_sizes(const Ty& body, const TypeDef& td, const std::vector<std::string>& quals,
                                     Loc loc) const {
  std::set<std::string> names;
  size_names(body, names);
  if (names.empty()) return body;
  const Env& env = module_path(quals, loc);
  std::string prefix;
  for (const auto& q : quals) prefix += q + ".";
  Substitution sub;
  for (const std::string& n : names) {
    if (n.find('.') != std::string::npos || !env.values.count(n)) continue;
    bool param = false;
    for (const TypeParam& p : td.params) param = param || p.name == n;
    if (!param) sub.dims[n] = dim_name(prefix + n);
  }
  return sub.empty() ? body : substitute(body, sub);
}

Ty CheckerImpl::eval_type(const TypeExprPtr& te) {
  check_names_bound_once(*te);
  switch (te->kind) {
    case TypeExpr::Kind::Name: {
      if (te->name.qualifiers.empty() && te->args.empty())
        if (auto p = prim_from_name(te->name.name)) return ty_prim(*p);
      TypeDefPtr td = lookup_type(te->name, te->loc);
      if (td->params.size() != te->args.size())
        error(te->loc, fmt::format("type \"{}\" takes {} argument(s), but is given {}", te->name.str(),
                                   td->params.size(), te->args.size()));
      Ty body = te->name.qualifiers.empty() ? td->body : qualify_module_sizes(td->body, *td, te->name.qualifiers, te->loc);
      if (td->params.empty()) return body;
      Substitution sub;
      for (size_t i = 0; i < td->params.size(); ++i) {
        const TypeParam& p = td->params[i];
        const TypeArg& a = te->args[i];
        if (p.is_size) {
          if (!a.is_size)
            error(te->loc, fmt::format("argument {} of type \"{}\" must be a size ([n])", i + 1, te->name.str()));
          // `square [] i64` (= [n][n]i64): one size, shared by every use of
          // the parameter, though not yet known.
          sub.dims[p.name] = a.size.kind == SizeExpr::Kind::Anonymous ? dim_var() : eval_dim(a.size);
        } else {
          if (a.is_size || !a.type)
            error(te->loc, fmt::format("argument {} of type \"{}\" must be a type", i + 1, te->name.str()));
          sub.types[td->param_ids[i]] = eval_type(a.type);
        }
      }
      return substitute(body, sub);
    }
    case TypeExpr::Kind::Array: {
      // Futhark: array elements must be unlifted (no functions, no hidden
      // sizes that could make the array irregular).
      int l = type_expr_liftedness(te->elem);
      if (l == kSizeLifted)
        error(te->loc, fmt::format("Cannot create array with elements of size-lifted type \"{}\" (might cause "
                                   "irregular array).",
                                   to_string(*te->elem)));
      if (l == kLifted)
        error(te->loc, fmt::format("Cannot create array with elements of lifted type \"{}\" (might contain "
                                   "function).",
                                   to_string(*te->elem)));
      return ty_array(eval_dim(te->size), eval_type(te->elem));
    }
    case TypeExpr::Kind::Tuple: {
      std::vector<Ty> elems;
      for (const auto& e : te->elems) elems.push_back(eval_type(e));
      return elems.empty() ? ty_unit() : ty_tuple(std::move(elems));
    }
    case TypeExpr::Kind::Record: {
      Fields fs;
      std::set<std::string> seen;
      for (const auto& [n, t] : te->fields) {
        if (!seen.insert(n).second) error(te->loc, fmt::format("Duplicate record fields in {}.", to_string(*te)));
        fs.emplace_back(n, eval_type(t));
      }
      return ty_record(std::move(fs));
    }
    case TypeExpr::Kind::Sum: {
      if (te->constructors.size() >= 256) error(te->loc, "Sum types must have less than 256 constructors.");
      Constrs cs;
      std::set<std::string> seen;
      for (const auto& [n, ts] : te->constructors) {
        if (!seen.insert(n).second) error(te->loc, fmt::format("Duplicate constructors in {}.", to_string(*te)));
        std::vector<Ty> payload;
        for (const auto& t : ts) payload.push_back(eval_type(t));
        cs.emplace_back(n, std::move(payload));
      }
      return ty_sum(std::move(cs));
    }
    case TypeExpr::Kind::Function: {
      Ty param = eval_type(te->param);
      // A `[]` in a function type's result is existential, not a variable.
      int saved = std::exchange(anonymous_as_vars_, 0);
      Ty result;
      try {
        result = eval_type(te->result);
      } catch (...) {
        anonymous_as_vars_ = saved;
        throw;
      }
      anonymous_as_vars_ = saved;
      return ty_function(param, result, te->param_name);
    }
    case TypeExpr::Kind::Unique: return ty_with_unique(eval_type(te->elem), true);
    case TypeExpr::Kind::Existential: {
      // `?[n].t`: n is read from a value at run time, so t must use it as
      // the size of an array that is not inside a function type.
      for (const auto& n : te->existentials)
        if (!constructive_use(te->elem, n))
          error(te->loc, fmt::format("Existential size \"{}\" not used as array size.", n));
      Substitution sub;
      for (const auto& n : te->existentials) sub.dims[n] = dim_var();
      return substitute(eval_type(te->elem), sub);
    }
  }
  error(te->loc, "unsupported type expression");
}

}  // namespace thorn::types
