#pragma once
// Exhaustiveness of `match`: Futhark rejects a match that some value of the
// scrutinee's type escapes ("Unmatched cases"). Usefulness algorithm
// (Maranget) over constructors, tuples/records, bools and literals.
#include <optional>
#include <string>
#include <vector>

#include "interp/syntax/ast.hpp"
#include "interp/types/type.hpp"

namespace thorn::types {

// A pattern for values of type `t` that none of `cases` matches (such as
// "#foo (#moo _ #none)"), or nullopt if the cases are exhaustive.
std::optional<std::string> unmatched_case(const TypePtr& t, const std::vector<const Pattern*>& cases);

}  // namespace thorn::types
