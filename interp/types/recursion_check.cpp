#include "interp/types/recursion_check.hpp"

#include <fmt/format.h>

#include <set>

#include "interp/types/liftedness.hpp"
#include "interp/types/type.hpp"
#include "interp/util/error.hpp"

namespace thorn::types {

namespace {

[[noreturn]] void fail(Loc loc, std::string msg) { throw Error(ErrorKind::Type, loc, std::move(msg)); }

// Whether a value of type t may be a function (`'^a` parameters included).
bool functional(const TypePtr& t, const std::set<int>& lifted) {
  if (!t) return false;
  switch (t->kind) {
    case Type::Kind::Function: return true;
    case Type::Kind::Param: return lifted.count(t->var_id) > 0;
    case Type::Kind::Array: return functional(t->elem, lifted);
    case Type::Kind::Tuple:
      for (const auto& e : t->elems)
        if (functional(e, lifted)) return true;
      return false;
    case Type::Kind::Record:
      for (const auto& [n, f] : t->fields)
        if (functional(f, lifted)) return true;
      return false;
    case Type::Kind::Sum:
      for (const auto& [n, ps] : t->constructors)
        for (const auto& p : ps)
          if (functional(p, lifted)) return true;
      return false;
    default: return false;
  }
}

void pattern_names(const Pattern& p, std::set<std::string>& out) {
  if (p.kind == Pattern::Kind::Id) out.insert(p.name);
  for (const auto& e : p.elems)
    if (e) pattern_names(*e, out);
  for (const auto& [f, e] : p.fields)
    if (e) pattern_names(*e, out);
  if (p.inner) pattern_names(*p.inner, out);
}

bool names_self(const Expr& e, const std::string& fname) {
  return e.kind == Expr::Kind::Var && e.name.qualifiers.empty() && e.name.name == fname;
}

// Calls f on every subexpression of e (not e itself).
template <class F>
void each_child(const Expr& e, F&& f) {
  for (const ExprPtr* x : {&e.a, &e.b, &e.c})
    if (*x) f(**x);
  for (const auto& x : e.list)
    if (x) f(*x);
  for (const auto& [n, x] : e.fields)
    if (x) f(*x);
  for (const auto& ix : e.indices)
    for (const ExprPtr* x : {&ix.index, &ix.start, &ix.end, &ix.stride})
      if (*x) f(**x);
  for (const auto& c : e.cases)
    if (c.body) f(*c.body);
}

bool refers_to(const Expr& e, const std::string& fname) {
  if (names_self(e, fname)) return true;
  bool found = false;
  each_child(e, [&](const Expr& x) { found = found || refers_to(x, fname); });
  return found;
}

struct Checker {
  const Decl& d;
  std::vector<bool> higher_order;  // per parameter
  std::vector<std::set<std::string>> param_names;

  void walk(const Expr& e) {
    if (e.kind == Expr::Kind::Apply && e.a && names_self(*e.a, d.name)) {
      if (e.list.size() != d.params.size())
        fail(e.loc, fmt::format("Recursive application of \"{}\" is not fully saturated: expected {} arguments but "
                                "got {}.",
                                d.name, d.params.size(), e.list.size()));
      for (size_t i = 0; i < e.list.size(); ++i) {
        const Expr& arg = *e.list[i];
        bool unchanged = arg.kind == Expr::Kind::Var && arg.name.qualifiers.empty() &&
                         param_names[i].count(arg.name.name) > 0;
        if (higher_order[i] && !unchanged)
          fail(arg.loc, fmt::format("Higher-order argument in recursive application of \"{}\" must be passed "
                                    "unchanged, i.e. be the corresponding parameter.",
                                    d.name));
        walk(arg);
      }
      return;
    }
    if (names_self(e, d.name))
      fail(e.loc, fmt::format("Recursive reference to \"{}\" must be a fully saturated application, as it has a "
                              "higher-order parameter.",
                              d.name));
    each_child(e, [&](const Expr& x) { walk(x); });
  }
};

}  // namespace

void check_recursion(const Decl& d) {
  if (!d.body || d.params.empty() || !refers_to(*d.body, d.name)) return;
  std::set<int> lifted;
  size_t k = 0;
  for (const auto& tp : d.type_params) {
    if (tp.is_size) continue;
    if (k < d.quantified.size() && param_liftedness(tp.loc, tp.lifted) == kLifted) lifted.insert(d.quantified[k]);
    ++k;
  }
  Checker c{d, {}, {}};
  TypePtr t = d.type;
  for (const auto& p : d.params) {
    if (!t || t->kind != Type::Kind::Function) return;  // not fully annotated: nothing to check
    c.higher_order.push_back(functional(t->param, lifted));
    c.param_names.emplace_back();
    pattern_names(*p, c.param_names.back());
    t = t->result;
  }
  if (functional(t, lifted))
    fail(d.loc, fmt::format("Recursive function \"{}\" returns type\n  {}\nwhich is not first-order.\n"
                            "Write the function type as further parameters instead.",
                            d.name, to_string(t)));
  bool any = false;
  for (bool h : c.higher_order) any = any || h;
  if (any) c.walk(*d.body);
}

}  // namespace thorn::types
