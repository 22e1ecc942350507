// Size rules that module ascription applies to the module's definitions
// (see check_module.cpp's ascribe).
#include <fmt/format.h>

#include "interp/types/checker_impl.hpp"

namespace thorn::types {

void check_abstract_size_params(CheckerImpl& c, const TypeDef& def, const std::string& name, Loc loc) {
  // `type mat [n] = ols_jac.mat [n]` (diku-dk/linalg's dpsolve): accepted.
  // Thorn's types do not keep the sizes an abstract type is applied to, so
  // what such a type witnesses is not known here.
  if (ty_any_outside_functions(def.body, [](const Ty& t) { return t->kind == TyNode::Kind::Param; })) return;
  std::set<std::string> witnessed, other;
  size_witnesses(def.body, false, witnessed, other);
  for (const TypeParam& tp : def.params) {
    if (!tp.is_size || witnessed.count(tp.name)) continue;
    std::string params;
    for (const TypeParam& p : def.params) params += p.is_size ? fmt::format(" [{}]", p.name) : fmt::format(" '{}", p.name);
    c.error(loc, fmt::format("Type\n  type {}{} = {}\ncannot be made abstract because size parameter\n  {}\nis not used "
                             "constructively as an array size in the definition.",
                             name, params, show(def.body), tp.name));
  }
}

namespace {
// The unqualified type names in `te` outside function types (`(dict, dict)`
// names dict there, `i32 -> dict` does not).
void names_outside_functions(const TypeExpr& te, std::set<std::string>& out) {
  switch (te.kind) {
    case TypeExpr::Kind::Name:
      if (te.name.qualifiers.empty()) out.insert(te.name.name);
      return;
    case TypeExpr::Kind::Function: return;
    default: break;
  }
  if (te.elem) names_outside_functions(*te.elem, out);
  for (const auto& e : te.elems) names_outside_functions(*e, out);
  for (const auto& [n, f] : te.fields) names_outside_functions(*f, out);
  for (const auto& [k, ts] : te.constructors)
    for (const auto& t : ts) names_outside_functions(*t, out);
}

// Whether `t` has an unknown (existential) size outside function types.
bool unknown_size_outside_functions(const Ty& t) {
  return ty_any_outside_functions(t, [](const Ty& x) {
    return x->kind == TyNode::Kind::Array && dim_resolve(x->dim)->kind == DimNode::Kind::Unknown;
  });
}
}  // namespace

void check_top_level_size(CheckerImpl& c, const TypeExpr& spec_type, const std::set<std::string>& abstract,
                          const Env& env, const std::string& name, Loc loc) {
  std::set<std::string> named;
  names_outside_functions(spec_type, named);
  for (const std::string& n : named) {
    auto it = env.types.find(n);
    if (abstract.count(n) && it != env.types.end() && it->second->params.empty() &&
        unknown_size_outside_functions(it->second->body))
      c.error(loc, fmt::format("Type substitution in \"{}\" results in a top-level size.", name));
  }
}

}  // namespace thorn::types
