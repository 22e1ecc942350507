#include "interp/types/recursion_check.hpp"

#include <fmt/format.h>

#include <set>

#include "interp/types/expr_walk.hpp"
#include "interp/util/error.hpp"

namespace thorn::types {

namespace {

[[noreturn]] void fail(Loc loc, std::string msg) { throw Error(ErrorKind::Type, loc, std::move(msg)); }

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

bool refers_to(const Expr& e, const std::string& fname) {
  if (names_self(e, fname)) return true;
  bool found = false;
  for_each_subexpr(e, [&](const Expr& x) { found = found || refers_to(x, fname); });
  return found;
}

struct Checker {
  const Decl& d;
  std::vector<bool> higher_order;  // per parameter
  std::vector<std::set<std::string>> param_names;

  bool binds_self(const Pattern* p) const {
    if (!p) return false;
    std::set<std::string> names;
    pattern_names(*p, names);
    return names.count(d.name) > 0;
  }

  // Where a local binding shadows the function's name (`case (#bar f) ->
  // f x` inside `def f`), uses of the name below it are not recursion.
  bool shadowed_scope(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Let:
        if (!binds_self(e.pattern.get())) return false;
        if (e.a) walk(*e.a);
        return true;
      case Expr::Kind::LetFun:
        if (e.name.name != d.name) return false;
        return true;  // a local function of the same name: neither its body nor the rest refer to d
      case Expr::Kind::Lambda:
        for (const auto& p : e.params)
          if (binds_self(p.get())) return true;
        return false;
      case Expr::Kind::Match: {
        bool any = false;
        for (const Case& c : e.cases) any = any || binds_self(c.pattern.get());
        if (!any) return false;
        if (e.a) walk(*e.a);
        for (const Case& c : e.cases)
          if (!binds_self(c.pattern.get()) && c.body) walk(*c.body);
        return true;
      }
      case Expr::Kind::Loop: {
        bool shadows = (!e.params.empty() && binds_self(e.params[0].get())) || e.loop_var == d.name ||
                       binds_self(e.pattern.get());
        if (!shadows) return false;
        if (e.a) walk(*e.a);
        if (e.c && e.loop_form != Expr::LoopForm::While) walk(*e.c);  // a while condition is in the scope
        return true;
      }
      default: return false;
    }
  }

  void walk(const Expr& e) {
    if (shadowed_scope(e)) return;
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
    for_each_subexpr(e, [&](const Expr& x) { walk(x); });
  }
};

}  // namespace

void check_recursion(const Decl& d) {
  if (!d.body || d.params.empty() || !refers_to(*d.body, d.name)) return;
  std::set<int> lifted = lifted_type_params(d);
  Checker c{d, {}, {}};
  // A parameter of the function's own name shadows it in the whole body
  // (diku-dk/statistics: `let cdf {pXf=_, cdf, cdfi=_} x = cdf x`).
  for (const auto& p : d.params)
    if (c.binds_self(p.get())) return;
  TypePtr t = d.type;
  for (const auto& p : d.params) {
    if (!t || t->kind != Type::Kind::Function) return;  // not fully annotated: nothing to check
    c.higher_order.push_back(functional_type(t->param, lifted));
    c.param_names.emplace_back();
    pattern_names(*p, c.param_names.back());
    t = t->result;
  }
  if (functional_type(t, lifted))
    fail(d.loc, fmt::format("Recursive function \"{}\" returns type\n  {}\nwhich is not first-order.\n"
                            "Write the function type as further parameters instead.",
                            d.name, to_string(t)));
  bool any = false;
  for (bool h : c.higher_order) any = any || h;
  if (any) c.walk(*d.body);
}

}  // namespace thorn::types
