// Names, application, binary operators and operator sections. Built-in
// operators are overloaded (Futhark has no type classes): each use gets a
// fresh type variable constrained to the primitive types the operator
// accepts.
#include <fmt/format.h>

#include <set>

#include "interp/syntax/parser.hpp"
#include "interp/types/checker_impl.hpp"

namespace thorn::types {

namespace {

enum class OpClass { Arith, IntArith, Bitwise, Compare, Equality, Logic, PipeRight, PipeLeft };

OpClass classify(const std::string& op) {
  if (op == "+" || op == "-" || op == "*" || op == "/" || op == "%" || op == "**") return OpClass::Arith;
  if (op == "//" || op == "%%") return OpClass::IntArith;
  if (op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>" || op == ">>>") return OpClass::Bitwise;
  if (op == "<" || op == "<=" || op == ">" || op == ">=") return OpClass::Compare;
  if (op == "==" || op == "!=") return OpClass::Equality;
  if (op == "&&" || op == "||") return OpClass::Logic;
  if (op == "|>") return OpClass::PipeRight;
  return OpClass::PipeLeft;
}

}  // namespace

// The curried function type of one use of a built-in operator.
static Ty builtin_op_type(Unifier& u, const std::string& op, Loc loc) {
  Ty boolean = ty_prim(Prim::Bool);
  switch (classify(op)) {
    case OpClass::Arith: {
      Ty t = u.fresh_overloaded(numeric_mask(), loc);
      return ty_function(t, ty_function(t, t));
    }
    case OpClass::IntArith: {
      Ty t = u.fresh_overloaded(integral_mask(), loc);
      return ty_function(t, ty_function(t, t));
    }
    case OpClass::Bitwise: {
      Ty t = u.fresh_overloaded(integral_mask(), loc);
      return ty_function(t, ty_function(t, t));
    }
    case OpClass::Compare: {
      Ty t = u.fresh_overloaded(all_prims_mask(), loc);
      return ty_function(t, ty_function(t, boolean));
    }
    case OpClass::Equality: {
      Ty t = u.fresh_equality(loc);
      return ty_function(t, ty_function(t, boolean));
    }
    case OpClass::Logic: return ty_function(boolean, ty_function(boolean, boolean));
    case OpClass::PipeRight: {
      Ty a = u.fresh(loc), b = u.fresh(loc);
      return ty_function(a, ty_function(ty_function(a, b), b));
    }
    case OpClass::PipeLeft: {
      Ty a = u.fresh(loc), b = u.fresh(loc);
      return ty_function(ty_function(a, b), ty_function(a, b));
    }
  }
  return nullptr;
}

namespace {
// Size names that appear as a whole dimension in the type of one of the
// first `arity` parameters (all of them when -1): those the arguments'
// shapes give at run time, when the function's body starts.
void plain_param_sizes(const Ty& t0, bool in_param, int arity, std::set<std::string>& out) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array: {
      DimRef d = dim_resolve(t->dim);
      if (in_param && d->kind == DimNode::Kind::Name) out.insert(d->name);
      plain_param_sizes(t->elem, in_param, arity, out);
      return;
    }
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields) plain_param_sizes(f, in_param, arity, out);
      return;
    case TyNode::Kind::Function:
      // A parameter of function type has no shape: the sizes in its type
      // (`[n] (g: i32 -> [n]i32)`) come from the instantiation.
      if (in_param || arity == 0) return;
      plain_param_sizes(t->param, true, -1, out);
      plain_param_sizes(t->result, false, arity < 0 ? -1 : arity - 1, out);
      return;
    default: return;
  }
}
}  // namespace

Ty CheckerImpl::infer_var(ExprPtr& ep) {
  Expr& v = *ep;
  // Futhark: a name starting with `_` is bound but unused on purpose.
  if (!v.name.name.empty() && v.name.name[0] == '_')
    error(v.loc, fmt::format("Use of \"{}\": variables prefixed with underscore may not be accessed.", v.name.str()));
  const auto& q = v.name.qualifiers;
  if (!q.empty()) {
    // `a.b.c`: the longest prefix naming modules is a module path, the rest
    // (if any) are record fields of the value named right after it.
    size_t k = 0;
    if (!is_local_value(q[0])) {
      ModPtr m = find_mod(q[0]);
      if (m && m->env) {
        const Env* env = m->env.get();
        k = 1;
        while (k < q.size()) {
          auto it = env->mods.find(q[k]);
          if (it == env->mods.end() || !it->second->env) break;
          env = it->second->env.get();
          ++k;
        }
      }
    }
    if (k < q.size()) {
      ep = split_qualified_var(v, q.size() - k);
      return infer(ep);
    }
  }
  SchemePtr s = lookup_value(v.name, v.loc);
  if (!s->builtin.empty()) return builtin_op_type(u, s->builtin, v.loc);
  if (Ty r = resolve(s->type); s->abstract_type || (r->kind == TyNode::Kind::Param && opaque.count(r->param_id)))
    abstract_uses.insert(&v);
  std::vector<Ty> inst;
  std::vector<std::pair<std::string, DimRef>> sizes;
  Ty t = instantiate(*s, &inst, &sizes);
  note_nonlifted(*s, inst, v.loc, v.name.str());
  if (!inst.empty()) pending_.instantiations.emplace_back(&v, std::move(inst));
  if (!sizes.empty()) {
    // Only the sizes no argument's shape gives (`unflatten`'s n and m)
    // are worth the evaluator's attention.
    std::set<std::string> given;
    plain_param_sizes(s->type, false, s->arity, given);
    std::erase_if(sizes, [&](const auto& sz) { return given.count(sz.first) > 0; });
    for (const auto& [n, d] : sizes)
      if (mentioned_in_function_param(s->type, n))
        pending_.ambiguous.push_back({d, n, fmt::format("instantiated size parameter of \"{}\"", v.name.str()), v.loc});
    if (!sizes.empty()) pending_.size_instantiations.emplace_back(&v, std::move(sizes));
  }
  return t;
}

// Whether a function type (its result included) names a parameter `name`.
static bool names_param(const Ty& t0, const std::string& name) {
  Ty t = resolve(t0);
  if (t->kind != TyNode::Kind::Function) return false;
  return t->param_name == name || names_param(t->result, name);
}

namespace {

// Futhark's dimUses on an application's result: the sizes (open variables
// standing for a named parameter of a function argument) used as array
// sizes of the value (results of functions included), and those used in a
// function's parameter.
void dim_uses(const Ty& t0, int pos, std::set<const DimNode*>& produced, std::set<const DimNode*>& params,
              int depth) {
  if (!t0 || depth > 48) return;
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array: {
      bool inside = false;
      DimRef d = t->dim;
      while (d) {
        inside = inside || d->bound_inside;
        if (d->kind != DimNode::Kind::Var || !d->link) break;
        d = d->link;
      }
      if (inside && d && d->kind == DimNode::Kind::Var && !d->link) {
        if (pos == 0) produced.insert(d.get());
        else params.insert(d.get());
      }
      dim_uses(t->elem, pos, produced, params, depth + 1);
      return;
    }
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields) dim_uses(f, pos, produced, params, depth + 1);
      return;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps) dim_uses(p, pos, produced, params, depth + 1);
      return;
    case TyNode::Kind::Function:
      dim_uses(t->param, 1, produced, params, depth + 1);
      // A result is where the function's own value lives: a size produced
      // there is produced (`(i64, i64) -> ([n][m](), [n][m]bool -> bool)`).
      dim_uses(t->result, pos, produced, params, depth + 1);
      return;
    default: return;
  }
}

// An application's result: the sizes bound inside its argument's type
// that it produces (`x |> iota` is [n]i64 for iota's n) become sizes of
// the result, existential as Futhark makes them, no longer bound inside
// anything: passing that result on (`x |> iota |> map f`) is fine.
void release_produced(const Ty& t0, int depth) {
  if (!t0 || depth > 48) return;
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array:
      for (DimRef d = t->dim; d; d = d->kind == DimNode::Kind::Var ? d->link : nullptr) d->bound_inside = false;
      release_produced(t->elem, depth + 1);
      return;
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields) release_produced(f, depth + 1);
      return;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps) release_produced(p, depth + 1);
      return;
    case TyNode::Kind::Function: release_produced(t->result, depth + 1); return;
    default: return;
  }
}

}  // namespace

namespace {
bool has_bound_inside(const Ty& t0) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array: {
      DimRef d = dim_resolve(t->dim);
      if (d->kind == DimNode::Kind::Var && d->bound_inside) return true;
      return has_bound_inside(t->elem);
    }
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields)
        if (has_bound_inside(f)) return true;
      return false;
    default: return false;
  }
}
}  // namespace

// `map g xs` with `g (k: i64) : [k]i64`: an array whose element type has a
// size bound by a function type's parameter (each element its own size).
bool CheckerImpl::irregular_elem(const Ty& t0) const {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Array: {
      // [n][k]t with k bound inside but n not: rows of their own sizes.
      DimRef d = dim_resolve(t->dim);
      bool outer_inside = d->kind == DimNode::Kind::Var && d->bound_inside;
      return (!outer_inside && has_bound_inside(t->elem)) || irregular_elem(t->elem);
    }
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields)
        if (irregular_elem(f)) return true;
      return false;
    case TyNode::Kind::Function: return irregular_elem(t->param) || irregular_elem(t->result);
    default: return false;
  }
}

// `uncurry f` with `f (n: i64) (m: i64) (b: [n][m]bool)`: the result would
// take an array whose size is an argument it no longer receives. Futhark's
// checkApply rejects a size bound inside the argument's type that appears
// in a parameter of the result without also being produced by it.
void CheckerImpl::check_existential_params(Loc loc, const Ty& result, const std::string& context) const {
  std::set<const DimNode*> produced, params;
  dim_uses(result, 0, produced, params, 0);
  for (const DimNode* d : params)
    if (!produced.count(d))
      error(loc, fmt::format("Existential size would appear in function parameter of return type ({}):\n  {}\n"
                             "This is usually because a higher-order function is used with functional arguments that "
                             "return existential sizes or locally named sizes, which are then used as parameters of "
                             "other function arguments.",
                             context, show(result)));
}

Ty CheckerImpl::apply_function(Loc loc, Ty fn, ExprPtr& arg, int arg_no, const std::string& context) {
  Ty f = resolve(fn);
  if (f->kind == TyNode::Kind::Var && f->constraint != Constraint::Overloaded) {
    // A variable with a constraint (used with ==, a record) cannot become a
    // function: say why.
    std::string was = show(f);
    try {
      u.unify(f, ty_function(u.fresh(loc), u.fresh(loc)));
    } catch (const UnifyFailure& why) {
      error(loc, fmt::format("Cannot apply a value of type {} as function: {}", was, why.detail));
    }
    f = resolve(f);
  }
  if (f->kind != TyNode::Kind::Function) {
    // Futhark's ReasonApplySplit.
    if (arg_no > 1)
      error(arg->loc, fmt::format("{}.\nFunction accepts only {} arguments (the result of the previous ones has type {}).",
                                  context, arg_no - 1, show(f)));
    std::string callee = "expression";
    if (context.rfind("Cannot apply \"", 0) == 0) callee = context.substr(13, context.find('"', 14) - 12);
    error(loc, fmt::format("Cannot apply {} as function, as it has non-function type:\n  {}", callee, show(f)));
  }
  Ty a = infer(arg);
  expect_sized(arg->loc, f->param, a, context);
  Ty r = f->result;
  if (!f->param_name.empty()) {
    // (n: i64) -> [n]t: the result's size is the argument.
    Substitution s;
    DimRef d = dim_of_arg(*arg);
    // `unflatten_3d (n * m) l k`: the argument's name `l` must not be
    // captured by a later parameter named `l` of the same function.
    if (dim_resolve(d)->kind == DimNode::Kind::Name && names_param(r, dim_resolve(d)->name)) d = dim_var();
    // (The node is held while its names are read: replacing d may free it.)
    if (DimRef e = dim_resolve(d); e->kind == DimNode::Kind::Expr)
      for (const auto& n : dim_names(e))
        if (names_param(r, n)) {
          d = dim_var();
          break;
        }
    s.dims[f->param_name] = d;
    r = substitute(r, s);
  }
  check_existential_params(loc, r, context);
  // Only for a named function (`map iota ns`, `map g xs`): an anonymous
  // function's irregular result is left to the run time, where the
  // evaluator handles it (the flattener's fallback tests rely on that).
  if (arg->kind != Expr::Kind::Lambda && resolve(a)->kind == TyNode::Kind::Function && irregular_elem(r))
    error(arg->loc, fmt::format("{} (invalid type).\nThe result would be an array whose rows have a size that "
                                "depends on each row's argument: a type parameter would be instantiated with a type "
                                "containing anonymous sizes.",
                                context));
  release_produced(r, 0);
  return r;
}

// Futhark names the argument by its source text: Cannot apply "f" to "x".
static std::string arg_text(const Expr& arg) {
  const Loc& l = arg.loc;
  if (l.known() && l.end_col >= l.col) {
    std::string_view line = l.file->line(l.line);
    if (l.end_col <= line.size() && l.end_col - l.col < 40)
      return fmt::format("\"{}\"", line.substr(l.col - 1, l.end_col - l.col + 1));
  }
  return "its argument";
}

static std::string callee_name(const Expr& fn) {
  if (fn.kind == Expr::Kind::Var) return fmt::format("\"{}\"", fn.name.str());
  return "function";
}

Ty CheckerImpl::infer_apply(Expr& e) {
  Ty f = infer(e.a);
  std::string name = callee_name(*e.a);
  for (size_t i = 0; i < e.list.size(); ++i)
    f = apply_function(e.a->loc, f, e.list[i], static_cast<int>(i + 1),
                       fmt::format("Cannot apply {} to {} (argument {})", name, arg_text(*e.list[i]), i + 1));
  return f;
}

Ty CheckerImpl::infer_binop(Expr& e) {
  SchemePtr s = lookup_value(e.name, e.loc);
  std::string op = e.name.str();
  Ty f;
  if (!s->builtin.empty()) {
    f = builtin_op_type(u, s->builtin, e.loc);
  } else {
    std::vector<Ty> inst;
    f = instantiate(*s, &inst);
    note_nonlifted(*s, inst, e.loc, e.name.str());
    if (!inst.empty()) pending_.instantiations.emplace_back(&e, std::move(inst));
  }
  f = apply_function(e.loc, f, e.a, 1, fmt::format("in left operand of \"{}\"", op));
  return apply_function(e.loc, f, e.b, 2, fmt::format("in right operand of \"{}\"", op));
}

Ty CheckerImpl::infer_op_section(Expr& e) {
  SchemePtr s = lookup_value(e.name, e.loc);
  std::string op = e.name.str();
  Ty f;
  if (!s->builtin.empty()) {
    f = builtin_op_type(u, s->builtin, e.loc);
  } else {
    std::vector<Ty> inst;
    f = instantiate(*s, &inst);
    note_nonlifted(*s, inst, e.loc, e.name.str());
    if (!inst.empty()) pending_.instantiations.emplace_back(&e, std::move(inst));
  }
  if (e.a && e.b) error(e.loc, "an operator section has at most one operand");
  if (e.a) return apply_function(e.loc, f, e.a, 1, fmt::format("in left operand of \"{}\"", op));
  if (e.b) {
    // (op y) is \x -> x op y.
    Ty fr = resolve(f);
    if (fr->kind == TyNode::Kind::Var) {
      u.unify(fr, ty_function(u.fresh(e.loc), u.fresh(e.loc)));
      fr = resolve(fr);
    }
    if (fr->kind != TyNode::Kind::Function)
      error(e.loc, fmt::format("operator {} has non-function type {}", op, show(fr)));
    Ty rest = apply_function(e.loc, fr->result, e.b, 2, fmt::format("in right operand of \"{}\"", op));
    return ty_function(fr->param, rest, fr->param_name);
  }
  return f;
}


}  // namespace thorn::types
