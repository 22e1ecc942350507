// Declarations: values (def/let/entry), type abbreviations, and the
// dispatch to the module-level ones (check_module.cpp).
#include <fmt/format.h>

#include "interp/types/checker_impl.hpp"
#include "interp/types/consumption.hpp"
#include "interp/types/liftedness.hpp"
#include "interp/types/order_check.hpp"
#include "interp/types/recursion_check.hpp"

namespace thorn::types {

namespace {

template <class T>
void bind_name(ModScope& scope, bool local, std::map<std::string, T> Env::*table, const std::string& name, T value) {
  (scope.visible.*table)[name] = value;
  if (!local) (scope.exports.*table)[name] = value;
}

}  // namespace

void CheckerImpl::check_decl(DeclPtr& d, ModScope& scope, bool local) {
  switch (d->kind) {
    case Decl::Kind::Value: check_value_decl(*d, scope, local); return;
    case Decl::Kind::Type: check_type_decl(*d, scope, local); return;
    case Decl::Kind::Module: check_module_decl(*d, scope, local); return;
    case Decl::Kind::ModuleType: check_module_type_decl(*d, scope, local); return;
    case Decl::Kind::Open: check_open(*d, scope, local); return;
    case Decl::Kind::Import: check_import(*d, scope); return;
    case Decl::Kind::Local:
      if (!d->inner) error(d->loc, "empty local declaration");
      check_decl(d->inner, scope, true);
      return;
  }
}

namespace {
// The result (after `arity` parameters) of a function type, with u applied.
Ty apply_uniqueness(const Ty& t0, const ResultUniqueness& u) {
  Ty t = resolve(t0);
  if (u.structured && t->kind == TyNode::Kind::Record && t->fields.size() == u.parts.size()) {
    Fields fs = t->fields;
    for (size_t i = 0; i < fs.size(); ++i) fs[i].second = apply_uniqueness(fs[i].second, u.parts[i]);
    return ty_record(std::move(fs));
  }
  if (u.unique && (t->kind == TyNode::Kind::Array || t->kind == TyNode::Kind::Param)) return ty_with_unique(t, true);
  return t;
}
}  // namespace

Ty CheckerImpl::with_result_uniqueness(const Ty& fn, size_t arity, const ResultUniqueness& u) {
  Ty t = resolve(fn);
  if (arity == 0) return apply_uniqueness(t, u);
  if (t->kind != TyNode::Kind::Function) return fn;
  return ty_function(t->param, with_result_uniqueness(t->result, arity - 1, u), t->param_name);
}

// Futhark's doNotShadow: `&&` and `||` short-circuit, so a definition of
// them could not mean the same thing.
void CheckerImpl::check_not_redefined(const std::string& name, const Loc& loc) {
  if (name == "&&" || name == "||") error(loc, fmt::format("The {} operator may not be redefined.", name));
}

void CheckerImpl::check_value_decl(Decl& d, ModScope& scope, bool local) {
  check_not_redefined(d.name, d.loc);
  if (d.entry && scope.in_module) error(d.loc, "Entry points may not be declared inside modules.");
  abstract_uses.clear();
  u.stamp_floor = scope_stamp_;
  FunResult r;
  with_scope(scope, [&] {
    begin_definition();
    // Every top-level definition is generalised over its unconstrained type
    // variables, as in Futhark (`def id = \x -> x` is polymorphic); the
    // overloaded ones are defaulted instead (`def sum = reduce (+) 0`).
    r = check_function(d.type_params, d.params, d.ret_type, d.body, d.loc, true, &d.name);
    if (&scope == &top && (d.entry || d.name == "main") && r.size_polymorphic_result)
      error(d.loc, "Entry point functions must not be size-polymorphic in their return type.\n\nFor more information, "
                   "see:\n  https://futhark.readthedocs.io/en/latest/error-index.html#size-polymorphic-entry");
    pending().decls.emplace_back(&d, r.type);
    finish_definition();
  });
  d.quantified = r.quantified;
  // Rules checked on the now fully annotated definition.
  check_function_order(d);
  check_recursion(d);
  // A functor application checks its own copy of the body; Futhark checks
  // consumption once, at the functor's definition (with abstract types,
  // whose values carry no aliases), so errors here are not reported.
  std::optional<ResultUniqueness> inferred;
  std::set<const Expr*> abstract = std::move(abstract_uses);
  abstract_uses.clear();
  if (functor_instance > 0) {
    try {
      inferred = check_consumption(d, abstract);
    } catch (const Error&) {
      inferred.reset();
    }
  } else {
    inferred = check_consumption(d, abstract);
  }
  if (auto ru = inferred) {
    // Futhark infers which parts of an unannotated function's result are
    // unique (fresh); callers may then consume them.
    r.type = with_result_uniqueness(r.type, d.params.size(), *ru);
    TypePtr t = d.type;
    std::vector<TypePtr> params;
    std::vector<std::string> names;
    for (size_t i = 0; i < d.params.size() && t && t->kind == Type::Kind::Function; ++i) {
      params.push_back(t->param);
      names.push_back(t->param_name);
      t = t->result;
    }
    if (params.size() == d.params.size()) {
      t = types::with_result_uniqueness(t, *ru);
      for (size_t i = params.size(); i-- > 0;) t = function_type(params[i], t, names[i]);
      d.type = t;
    }
  }
  // Entry points of the program (not of imported files or modules).
  if (&scope == &top && (d.entry || d.name == "main")) {
    check_entry_sizes(d);
    check_entry_point(d);
  }
  auto s = std::make_shared<Scheme>();
  s->type = freeze(r.type);
  s->quantified = r.quantified;
  s->size_params = r.size_params;
  s->nonlifted = r.nonlifted;
  s->arity = static_cast<int>(d.params.size());
  s->declared_result = d.ret_type && !d.params.empty();
  bind_name<SchemePtr>(scope, local, &Env::values, d.name, s);
}

void CheckerImpl::check_type_decl(Decl& d, ModScope& scope, bool local) {
  auto td = std::make_shared<TypeDef>();
  with_scope(scope, [&] {
    FrameGuard g(*this);
    td->params = d.type_params;
    td->param_ids = bind_type_params(d.type_params, g.frame());
    if (!d.ret_type) error(d.loc, fmt::format("type \"{}\" has no definition", d.name));
    for (const auto& tp : d.type_params)
      if (tp.is_size && !type_expr_mentions(d.ret_type, tp.name))
        error(d.loc, fmt::format("Size parameter \"[{}]\" unused.", tp.name));
    td->body = freeze(eval_type(d.ret_type));
    check_abbreviation_sizes(d.ret_type, d.ret_type->loc);  // [sizes] size_rules.cpp
    // Futhark's checkTypeBind: the definition may be at most as lifted as
    // declared; the abbreviation has the declared liftedness.
    td->liftedness = decl_liftedness(d.loc, d.lifted);
    int used = type_expr_liftedness(d.ret_type);
    if (used == kLifted && td->liftedness < kLifted)
      error(d.loc, "Non-lifted type abbreviations may not contain functions.\nHint: consider using 'type^'.");
    if (used == kSizeLifted && td->liftedness < kSizeLifted)
      error(d.loc,
            "Non-size-lifted type abbreviations may not contain size-lifted types.\nHint: consider using 'type~'.");
    if (td->liftedness == kUnlifted) check_unlifted_abbreviation(d.ret_type, d.name, d.loc);
  });
  bind_name<TypeDefPtr>(scope, local, &Env::types, d.name, td);
}

}  // namespace thorn::types
