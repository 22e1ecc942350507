#pragma once
// Consumption (uniqueness) checking of one value definition, after type
// checking has annotated it: Futhark's alias analysis (Consumption.hs).
// Reports, with Futhark's wording, uses of consumed variables, consumption of
// non-consumable ones (non-unique parameters, free variables of lambdas,
// globals), unique results that alias parameters or each other, in-place
// updates whose value aliases the array, and loop parameters whose new
// values alias what they must not.
#include "interp/syntax/ast.hpp"

namespace thorn::types {

// Throws Error(ErrorKind::Type, ...) on the first violation.
void check_consumption(const Decl& d);

}  // namespace thorn::types
