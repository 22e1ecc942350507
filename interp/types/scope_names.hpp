#pragma once
// The names visible in a checker state, for the REPL's completion: kept
// apart from Checker so that listing names needs nothing of the inference.
#include <string>
#include <vector>

#include "interp/types/checker.hpp"

namespace thorn::types {

// With an empty `module_path`: the values and modules visible at the top
// level. Otherwise the values and modules of that (nested) module, or
// nothing when the path names no structure. Sorted; operators left out.
std::vector<std::string> names_in_scope(const Checker::State& state, const std::vector<std::string>& module_path);

}  // namespace thorn::types
