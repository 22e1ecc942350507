#pragma once
// FutharkScript, the expression language of `futhark literate`'s
// directives. It is a small subset of Futhark (applications, `let ... in`,
// tuples, records, field projection, indexing, array literals) that thorn's
// own evaluator runs once it is written as Futhark: only `empty([n]t)`
// needs rewriting. Builtins (`$loadimg`, `$loaddata`, ...) are not
// supported and say so; so is the automatic uncurrying of tuple arguments.
#include <string>

namespace thorn::cli {

// The Futhark expression for a FutharkScript expression; throws
// Error(Input) for a `$builtin`.
std::string script_to_futhark(const std::string& script);

}  // namespace thorn::cli
