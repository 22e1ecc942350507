#pragma once
// Consumption (uniqueness) checking of one value definition, after type
// checking has annotated it: Futhark's alias analysis (Consumption.hs).
// Reports, with Futhark's wording, uses of consumed variables, consumption of
// non-consumable ones (non-unique parameters, free variables of lambdas,
// globals), unique results that alias parameters or each other, in-place
// updates whose value aliases the array, and loop parameters whose new
// values alias what they must not.
#include <optional>
#include <set>
#include <vector>

#include "interp/syntax/ast.hpp"

namespace thorn::types {

// Which parts of a function's result are unique, shaped like its type
// (components of tuples and records in type order).
struct ResultUniqueness {
  bool unique = false;
  bool structured = false;
  std::vector<ResultUniqueness> parts;
};

// Throws Error(ErrorKind::Type, ...) on the first violation. For a function
// without a declared return type, returns the uniqueness Futhark infers for
// its result (unique where it aliases only consumed parameters and fresh
// values, and no other part of the result).
// `abstract_globals`: the uses of globals whose type is abstract (a sealed
// module's `type t`, also parametric and lifted ones, which the checker
// keeps transparent); Futhark gives those no aliases (observeVar's
// selfAlias stops at a type variable), so a function may return them.
std::optional<ResultUniqueness> check_consumption(const Decl& d,
                                                  const std::set<const Expr*>& abstract_globals = {});

// t with the uniqueness of `u` set on its (nested tuple/record) components.
TypePtr with_result_uniqueness(const TypePtr& t, const ResultUniqueness& u);

}  // namespace thorn::types
