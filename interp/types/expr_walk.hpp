#pragma once
// Walking checked definitions, shared by the rules that run on a fully
// annotated definition (order_check.cpp, recursion_check.cpp).
#include <set>

#include "interp/syntax/ast.hpp"
#include "interp/types/type.hpp"

namespace thorn::types {

// Calls f on every direct subexpression of e.
template <class F>
void for_each_subexpr(const Expr& e, F&& f) {
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

// Whether a value of type t may be a function: function types, and the
// `'^a` type parameters in `lifted` (Futhark treats those as functional).
bool functional_type(const TypePtr& t, const std::set<int>& lifted);

// The Param ids of d's `'^a` type parameters.
std::set<int> lifted_type_params(const Decl& d);

}  // namespace thorn::types
