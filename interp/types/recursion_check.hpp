#pragma once
// Futhark's restrictions on recursive functions (its recursionCheck),
// checked on a fully annotated value definition that refers to itself:
// the result must be first-order, and where a parameter is higher-order
// every recursive reference must be a fully saturated application passing
// that parameter unchanged. Together they keep recursion defunctionalisable.
#include "interp/syntax/ast.hpp"

namespace thorn::types {

// Throws Error(ErrorKind::Type, ...) on the first violation; does nothing
// for a definition that does not refer to itself.
void check_recursion(const Decl& d);

}  // namespace thorn::types
