#pragma once
// FutharkScript, the expression language of `futhark literate`'s
// directives. It is a small subset of Futhark (applications, `let ... in`,
// tuples, records, field projection, indexing, array literals) that thorn's
// own evaluator runs once it is written as Futhark: only `empty([n]t)`
// needs rewriting. Builtins (`$loadimg`, `$loaddata`, ...) are not
// supported and say so. Automatic uncurrying (`f (a, b)` meaning `f a b`
// when f takes two parameters) is done by retrying such a call.
#include <optional>
#include <string>
#include <vector>

namespace thorn::cli {

// The Futhark expression for a FutharkScript expression; throws
// Error(Input) for a `$builtin`.
std::string script_to_futhark(const std::string& script);

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
