#pragma once
// Futhark's restrictions on where functions may appear, checked on a fully
// annotated value definition: no functions returned from `if`/`match`, as
// loop parameters or as array elements; matches must be exhaustive
// (match_check.hpp); entry points must be first-order
// and monomorphic.
#include "interp/syntax/ast.hpp"

namespace thorn::types {

// Throws Error(ErrorKind::Type, ...) on the first violation.
void check_function_order(const Decl& d);

// The rules for entry points (`entry` declarations and `main`).
void check_entry_point(const Decl& d);

}  // namespace thorn::types
