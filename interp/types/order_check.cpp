// Where functions may not appear (Futhark's "zero-order" restrictions).
// Run after zonking, so a type is functional only when it certainly is;
// polymorphic types (Param) are accepted.
#include "interp/types/order_check.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "interp/types/expr_walk.hpp"
#include "interp/types/liftedness.hpp"
#include "interp/types/match_check.hpp"
#include "interp/types/type.hpp"
#include "interp/util/error.hpp"

namespace thorn::types {

namespace {

// The checked definition's `'^a` type parameters (lifted_type_params).
thread_local const std::set<int>* lifted_params = nullptr;
// Its `'~a` and `'^a` type parameters: id -> (name, where bound). They may
// not be array elements (Futhark's checkArrayElem).
thread_local const std::map<int, std::pair<std::string, Loc>>* nonarray_params = nullptr;

const Type* find_param(const TypePtr& t, const std::map<int, std::pair<std::string, Loc>>& ids) {
  if (!t) return nullptr;
  if (t->kind == Type::Kind::Param) return ids.count(t->var_id) ? t.get() : nullptr;
  for (const auto* x : {&t->elem, &t->param, &t->result})
    if (const Type* r = find_param(*x, ids)) return r;
  for (const auto& x : t->elems)
    if (const Type* r = find_param(x, ids)) return r;
  for (const auto& [n, x] : t->fields)
    if (const Type* r = find_param(x, ids)) return r;
  for (const auto& [n, xs] : t->constructors)
    for (const auto& x : xs)
      if (const Type* r = find_param(x, ids)) return r;
  return nullptr;
}

bool functional(const TypePtr& t) {
  static const std::set<int> none;
  return functional_type(t, lifted_params ? *lifted_params : none);
}

[[noreturn]] void fail(Loc loc, std::string msg) { throw Error(ErrorKind::Type, loc, std::move(msg)); }

void walk(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::If:
      if (functional(e.type))
        fail(e.loc, fmt::format("If-expression returns type\n  {}\nbut if-results may not be of function type.",
                                to_string(e.type)));
      break;
    case Expr::Kind::Match: {
      std::vector<const Pattern*> pats;
      for (const auto& c : e.cases)
        if (c.pattern) pats.push_back(c.pattern.get());
      if (e.a)
        if (auto missing = unmatched_case(e.a->type, pats))
          fail(e.loc, fmt::format("Unmatched cases in match expression: {}", *missing));
    }
      if (functional(e.type))
        fail(e.loc, fmt::format("Match-expression returns type\n  {}\nbut match-results may not be of function type.",
                                to_string(e.type)));
      break;
    case Expr::Kind::Loop:
      if (!e.params.empty() && functional(e.params[0]->type))
        fail(e.params[0]->loc, fmt::format("Loop parameter inferred to have type\n  {}\nbut a loop parameter may not be of function type.",
                                           to_string(e.params[0]->type)));
      break;
    case Expr::Kind::ArrayLit:
      if (e.type && e.type->kind == Type::Kind::Array && functional(e.type->elem))
        fail(e.loc, fmt::format("Array elements may not be functional (element type {}).", to_string(e.type->elem)));
      if (nonarray_params && e.type && e.type->kind == Type::Kind::Array)
        if (const Type* p = find_param(e.type->elem, *nonarray_params)) {
          const auto& [name, loc] = nonarray_params->at(p->var_id);
          fail(e.loc, fmt::format("Type parameter \"{}\" bound at {} is lifted and cannot be an array element.", name,
                                  loc.str()));
        }
      break;
    default: break;
  }
  for_each_subexpr(e, [](const Expr& x) { walk(x); });
}

}  // namespace

bool functional_type(const TypePtr& t, const std::set<int>& lifted) {
  if (!t) return false;
  switch (t->kind) {
    case Type::Kind::Function: return true;
    case Type::Kind::Param: return lifted.count(t->var_id) > 0;
    case Type::Kind::Array: return functional_type(t->elem, lifted);
    case Type::Kind::Tuple:
      for (const auto& e : t->elems)
        if (functional_type(e, lifted)) return true;
      return false;
    case Type::Kind::Record:
      for (const auto& [n, f] : t->fields)
        if (functional_type(f, lifted)) return true;
      return false;
    case Type::Kind::Sum:
      for (const auto& [n, ps] : t->constructors)
        for (const auto& p : ps)
          if (functional_type(p, lifted)) return true;
      return false;
    default: return false;
  }
}

std::set<int> lifted_type_params(const Decl& d) {
  std::set<int> lifted;
  size_t k = 0;
  for (const auto& tp : d.type_params) {
    if (tp.is_size) continue;
    if (k < d.quantified.size() && param_liftedness(tp.loc, tp.lifted) == kLifted) lifted.insert(d.quantified[k]);
    ++k;
  }
  return lifted;
}

void check_function_order(const Decl& d) {
  if (!d.body) return;
  std::set<int> lifted = lifted_type_params(d);
  lifted_params = &lifted;
  std::map<int, std::pair<std::string, Loc>> nonarray;
  size_t k = 0;
  for (const auto& tp : d.type_params) {
    if (tp.is_size) continue;
    if (k < d.quantified.size() && param_liftedness(tp.loc, tp.lifted) != kUnlifted)
      nonarray[d.quantified[k]] = {tp.name, tp.loc};
    ++k;
  }
  nonarray_params = &nonarray;
  struct Reset {
    ~Reset() {
      lifted_params = nullptr;
      nonarray_params = nullptr;
    }
  } reset;
  walk(*d.body);
}

void check_entry_point(const Decl& d) {
  bool has_type_params = !d.quantified.empty();
  for (const auto& tp : d.type_params)
    if (!tp.is_size) has_type_params = true;
  if (has_type_params) fail(d.loc, fmt::format("Entry point functions may not be polymorphic: \"{}\"", d.name));
  TypePtr t = d.type;
  // An entry point whose result is a function (`def main n = map (+ n)`) is
  // eta-expanded, as in Futhark: the result's parameters are the entry's too.
  for (size_t i = 0; t && t->kind == Type::Kind::Function; ++i) {
    if (functional(t->param))
      fail(i < d.params.size() ? d.params[i]->loc : d.loc,
           fmt::format("Entry point functions may not be higher-order: parameter {} of \"{}\" has "
                       "type {}",
                       i + 1, d.name, to_string(t->param)));
    t = t->result;
  }
  if (functional(t))
    fail(d.loc, fmt::format("Entry point functions may not be higher-order: \"{}\" returns {}", d.name, to_string(t)));
}

}  // namespace thorn::types
