// Declarations: values (def/let/entry), type abbreviations, and the
// dispatch to the module-level ones (check_module.cpp).
#include <fmt/format.h>

#include "interp/types/checker_impl.hpp"
#include "interp/types/consumption.hpp"
#include "interp/types/order_check.hpp"

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

void CheckerImpl::check_value_decl(Decl& d, ModScope& scope, bool local) {
  FunResult r;
  with_scope(scope, [&] {
    begin_definition();
    // Every top-level definition is generalised over its unconstrained type
    // variables, as in Futhark (`def id = \x -> x` is polymorphic); the
    // overloaded ones are defaulted instead (`def sum = reduce (+) 0`).
    r = check_function(d.type_params, d.params, d.ret_type, d.body, d.loc, true);
    pending().decls.emplace_back(&d, r.type);
    finish_definition();
  });
  d.quantified = r.quantified;
  // Rules checked on the now fully annotated definition.
  check_function_order(d);
  check_consumption(d);
  // Entry points of the program (not of imported files or modules).
  if (&scope == &top && (d.entry || d.name == "main")) check_entry_point(d);
  auto s = std::make_shared<Scheme>();
  s->type = freeze(r.type);
  s->quantified = r.quantified;
  s->size_params = r.size_params;
  s->nonlifted = r.nonlifted;
  bind_name<SchemePtr>(scope, local, &Env::values, d.name, s);
}

void CheckerImpl::check_type_decl(Decl& d, ModScope& scope, bool local) {
  auto td = std::make_shared<TypeDef>();
  with_scope(scope, [&] {
    FrameGuard g(*this);
    td->params = d.type_params;
    td->param_ids = bind_type_params(d.type_params, g.frame());
    if (!d.ret_type) error(d.loc, fmt::format("type \"{}\" has no definition", d.name));
    td->body = freeze(eval_type(d.ret_type));
  });
  bind_name<TypeDefPtr>(scope, local, &Env::types, d.name, td);
}

}  // namespace thorn::types
