#pragma once
// FutharkScript, the expression language of `futhark literate`'s
// directives and of `script input` in test blocks. It is a small subset of
// Futhark (applications, `let ... in`, tuples, records, field projection,
// indexing, array literals) that thorn's own evaluator runs once it is
// written as Futhark: `empty([n]t)` is rewritten, and the builtins Futhark's
// test and literate tools share (Futhark.Script.scriptBuiltin) become
// literals: `$loaddata "f"` the values of data file f (a tuple when there
// are several), `$loadbytes "f"` the bytes of file f as []u8, both relative
// to a given directory. Other builtins are not supported and say so.
// Automatic uncurrying (`f (a, b)` meaning `f a b` when f takes two
// parameters) is done by retrying such a call.
#include <optional>
#include <string>
#include <vector>

#include "interp/eval/session.hpp"

namespace thorn::cli {

// The Futhark expression for a FutharkScript expression, files of builtins
// read relative to `files_dir` (empty: the current directory); throws
// Error(Input) for an unsupported `$builtin` or a file it cannot read.
std::string script_to_futhark(const std::string& script, const std::string& files_dir = "");

// Evaluates a FutharkScript expression in `session` (its loaded program's
// functions are in scope), uncurrying `f (a, b)` when that is what
// type-checks. `source_name` names the expression in errors.
Session::Outcome eval_script(Session& session, const std::string& script, const std::string& files_dir,
                             const std::string& source_name);

// A script that applies a named function to one argument: "f (a, b)", "f t".
struct SingleApplication {
  std::string function, argument;
};
std::optional<SingleApplication> single_application(const std::string& script);

// `app`'s function applied to the `arity` components of its tuple argument.
std::string uncurried_call(const SingleApplication& app, size_t arity);

// The components of a parenthesised tuple, "(f x, (a, b), 3)" -> "f x",
// "(a, b)", "3"; nullopt when `script` is not one.
std::optional<std::vector<std::string>> tuple_components(const std::string& script);

// The words of an application, "f x (g y)" -> "f", "x", "(g y)".
std::vector<std::string> application_words(const std::string& script);

}  // namespace thorn::cli
