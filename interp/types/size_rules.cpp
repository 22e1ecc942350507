// Static size rules on type expressions (Futhark's size types):
// - a type abbreviation may not hide an anonymous size inside a function
//   type (`type^ t = []bool -> bool`), as nothing at run time carries it;
// - a function's annotations may not use a size bound inside a tuple or
//   record parameter (`def f (x: i64, _: bool) : [x]i32`): function types
//   name parameters only as a whole, so the caller could not know it.
// - a non-lifted abbreviation may not hide a size (`type t = []i32`).
#include <fmt/format.h>

#include <set>

#include "interp/types/checker_impl.hpp"

namespace thorn::types {

namespace {

bool anonymous_in_function(const TypeExprPtr& te, bool in_function) {
  if (!te) return false;
  switch (te->kind) {
    case TypeExpr::Kind::Array:
      if (in_function && te->size.kind == SizeExpr::Kind::Anonymous) return true;
      return anonymous_in_function(te->elem, in_function);
    case TypeExpr::Kind::Function:
      return anonymous_in_function(te->param, true) || anonymous_in_function(te->result, true);
    default: break;
  }
  if (anonymous_in_function(te->elem, in_function)) return true;
  for (const auto& a : te->args) {
    if (a.is_size && in_function && a.size.kind == SizeExpr::Kind::Anonymous) return true;
    if (anonymous_in_function(a.type, in_function)) return true;
  }
  for (const auto& x : te->elems)
    if (anonymous_in_function(x, in_function)) return true;
  for (const auto& [f, x] : te->fields)
    if (anonymous_in_function(x, in_function)) return true;
  for (const auto& [c, xs] : te->constructors)
    for (const auto& x : xs)
      if (anonymous_in_function(x, in_function)) return true;
  return false;
}

void pattern_vars(const Pattern& p, std::set<std::string>& out) {
  switch (p.kind) {
    case Pattern::Kind::Id: out.insert(p.name); return;
    case Pattern::Kind::Ascribed:
      if (p.inner) pattern_vars(*p.inner, out);
      return;
    default: break;
  }
  for (const auto& e : p.elems)
    if (e) pattern_vars(*e, out);
  for (const auto& [f, e] : p.fields) {
    if (e)
      pattern_vars(*e, out);
    else
      out.insert(f);  // {a}: binds a
  }
}

void expr_names(const Expr& e, std::vector<std::string>& out) {
  if (e.kind == Expr::Kind::Var && e.name.qualifiers.empty()) out.push_back(e.name.name);
  if (e.a) expr_names(*e.a, out);
  if (e.b) expr_names(*e.b, out);
}

void size_names(const SizeExpr& s, std::vector<std::string>& out) {
  if (s.kind == SizeExpr::Kind::Name && s.name.qualifiers.empty()) out.push_back(s.name.name);
  if (s.kind == SizeExpr::Kind::Expr && s.expr) expr_names(*s.expr, out);
}

// The first size name of te in `hidden` (outside function types' own named
// parameters, which rebind), or empty.
std::string hidden_size(const TypeExprPtr& te, const std::set<std::string>& hidden) {
  if (!te) return "";
  std::vector<std::string> names;
  if (te->kind == TypeExpr::Kind::Array) size_names(te->size, names);
  for (const auto& a : te->args)
    if (a.is_size) size_names(a.size, names);
  for (const auto& n : names)
    if (hidden.count(n)) return n;
  std::set<std::string> inner = hidden;
  if (te->kind == TypeExpr::Kind::Function && !te->param_name.empty()) inner.erase(te->param_name);
  if (te->kind == TypeExpr::Kind::Existential)
    for (const auto& n : te->existentials) inner.erase(n);
  for (const TypeExprPtr& x : {te->elem, te->param, te->result}) {
    std::string h = hidden_size(x, inner);
    if (!h.empty()) return h;
  }
  for (const auto& a : te->args) {
    std::string h = hidden_size(a.type, inner);
    if (!h.empty()) return h;
  }
  for (const auto& x : te->elems) {
    std::string h = hidden_size(x, inner);
    if (!h.empty()) return h;
  }
  for (const auto& [f, x] : te->fields) {
    std::string h = hidden_size(x, inner);
    if (!h.empty()) return h;
  }
  for (const auto& [c, xs] : te->constructors)
    for (const auto& x : xs) {
      std::string h = hidden_size(x, inner);
      if (!h.empty()) return h;
    }
  return "";
}

// The ascriptions of a parameter pattern, with the pattern's text for messages.
void pattern_ascriptions(const Pattern& p, std::vector<const Pattern*>& out) {
  if (p.kind == Pattern::Kind::Ascribed) {
    out.push_back(&p);
    if (p.inner) pattern_ascriptions(*p.inner, out);
    return;
  }
  for (const auto& e : p.elems)
    if (e) pattern_ascriptions(*e, out);
  for (const auto& [f, e] : p.fields)
    if (e) pattern_ascriptions(*e, out);
}

}  // namespace

namespace {
// An anonymous size (`[]t`, `vec [] t`) or `?[n].t` anywhere in `te`.
bool existential_size(const TypeExprPtr& te) {
  if (!te) return false;
  if (te->kind == TypeExpr::Kind::Existential) return true;
  if (te->kind == TypeExpr::Kind::Array && te->size.kind == SizeExpr::Kind::Anonymous) return true;
  for (const auto* p : {&te->elem, &te->param, &te->result})
    if (existential_size(*p)) return true;
  for (const auto& a : te->args)
    if ((a.is_size && a.size.kind == SizeExpr::Kind::Anonymous) || existential_size(a.type)) return true;
  for (const auto& x : te->elems)
    if (existential_size(x)) return true;
  for (const auto& [f, x] : te->fields)
    if (existential_size(x)) return true;
  for (const auto& [c, xs] : te->constructors)
    for (const auto& x : xs)
      if (existential_size(x)) return true;
  return false;
}
}  // namespace

void CheckerImpl::check_unlifted_abbreviation(const TypeExprPtr& body, const std::string& name, Loc loc) {
  // Futhark's checkTypeBind: `type t = []i32` would hide a size in a type
  // that may be an array element.
  if (existential_size(body))
    error(loc, fmt::format("Non-lifted type abbreviations may not use existential sizes in their definition.\n"
                           "Hint: use 'type~' or add size parameters to \"{}\".",
                           name));
}

void CheckerImpl::check_abbreviation_sizes(const TypeExprPtr& body, Loc loc) {
  if (anonymous_in_function(body, false))
    error(loc, "Type abbreviation contains an anonymous size not used constructively as an array size.");
}

void CheckerImpl::check_hidden_param_sizes(const std::vector<TypeParam>& tparams,
                                           const std::vector<PatternPtr>& params, const TypeExprPtr& ret_type) {
  // Names bound inside tuple/record parameters, unless a whole parameter or
  // a size parameter of the same name rebinds them.
  std::set<std::string> hidden;
  for (const auto& p : params)
    if (p && pattern_name(*p).empty()) pattern_vars(*p, hidden);
  for (const auto& p : params)
    if (p && !pattern_name(*p).empty()) hidden.erase(pattern_name(*p));
  for (const auto& tp : tparams) hidden.erase(tp.name);
  if (hidden.empty()) return;
  // A parameter may use names of its own pattern (`(n: i64, xs: [n]i32)` is
  // left alone, prefer accepting); only earlier tuple/record parameters'.
  std::set<std::string> earlier;
  for (const auto& p : params) {
    if (!p) continue;
    std::set<std::string> mine;
    if (pattern_name(*p).empty()) pattern_vars(*p, mine);
    std::set<std::string> visible_hidden;
    for (const auto& n : earlier)
      if (hidden.count(n) && !mine.count(n)) visible_hidden.insert(n);
    earlier.insert(mine.begin(), mine.end());
    if (visible_hidden.empty()) continue;
    std::vector<const Pattern*> asc;
    pattern_ascriptions(*p, asc);
    for (const Pattern* a : asc) {
      std::string h = hidden_size(a->ascription, visible_hidden);
      if (!h.empty())
        error(a->loc, fmt::format("Parameter \"{}\" refers to size \"{}\" which will not be accessible to the caller, "
                                  "possibly because it is nested in a tuple or record. Consider ascribing an "
                                  "explicit type that does not reference \"{}\".",
                                  a->inner ? pattern_name(*a->inner) : std::string(), h, h));
    }
  }
  std::string h = hidden_size(ret_type, hidden);
  if (!h.empty())
    error(ret_type->loc, fmt::format("Return type refers to size \"{}\", which is bound inside a tuple or record "
                                     "parameter and will not be accessible to the caller.",
                                     h));
}

}  // namespace thorn::types
