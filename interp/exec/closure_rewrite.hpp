#pragma once
// What the nest rewrites (interchange.hpp, distribute.hpp) share: they read
// a closure's AST, build new closures over parts of it, and run each as an
// ordinary map through the dispatcher.
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "interp/eval/callable.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/syntax/ast.hpp"
#include "interp/util/error.hpp"

namespace thorn::exec::rewrite {

// Every name pattern p binds.
void pattern_names(const Pattern& p, std::set<std::string>& out);

// Every sub-expression of e, pre-order; stops when visit returns true.
bool any_subexpr(const Expr& e, const std::function<bool(const Expr&)>& visit);

// Whether e may name one of `names` (shadowing ignored: an over-approximation).
bool mentions(const Expr& e, const std::set<std::string>& names);

// Every name e may refer to, as mentions() sees them: one walk, so that
// asking about many name sets (map distribution's lets, each against every
// later let) does not walk e again for each.
std::set<std::string> mentioned_names(const Expr& e);
// Whether `used` (mentioned_names of some e) holds one of `names`.
bool mentions_any(const std::set<std::string>& used, const std::set<std::string>& names);

// A SOAC (or a loop) in e: work that, inside one element, runs
// sequentially. Names only: a user function called `map` counts too.
// Empty when there is none, else what was found ("scan", "an inner loop").
// `loops`: false looks for SOACs only (inside loops too).
std::string inner_parallelism(const Expr& e, bool loops = true);
// The same, also looking into the user functions e calls (by name, looked
// up in env, a few calls deep): "scan in rollback".
std::string inner_parallelism(const Expr& e, const eval::EnvPtr& env, bool loops = true);

// The expression under any attributes (`#[unsafe] e`).
const Expr* strip_attrs(const Expr* e);

// A parameter list that stays the same object for the same pattern nodes
// under the same anchor (an AST node of the rewrite), so that the plan
// cache, which keys closures by their parameter list's address, finds the
// step again on the next call. The list keeps the patterns alive; closures
// hold it (Callable::keep). Bounded.
std::shared_ptr<const std::vector<PatternPtr>> stable_params(const void* anchor, const std::vector<PatternPtr>& params);

// A closure with `of`'s environments, size parameters and hints, over the
// given parameters and body; `keep` holds what they need alive.
Value closure(const Callable& of, const std::vector<PatternPtr>* params, const Expr* body, eval::EnvPtr env,
              std::shared_ptr<const void> keep = nullptr);

// closure() over a parameter list made stable under `anchor`
// (stable_params), kept alive together with what `of` keeps.
Value closure_over(const Callable& of, const void* anchor, const std::vector<PatternPtr>& params, const Expr* body,
                   eval::EnvPtr env);

// The pattern under any type ascriptions (`(x: t)`).
const Pattern& unascribed(const Pattern& p);

// Whether e is the run-time error of building an array from rows of
// different shapes (value.cpp's "irregular"): what a rewrite that builds
// intermediate arrays of rows runs into when the rows' sizes depend on the
// element, which the original form never builds.
bool irregular_array_error(const Error& e);

// Computes a delayed array into its buffers, so that later steps read it
// instead of inlining its producer.
void materialise(const Value& v);

// THORN_<name>=always|1 / never|0 / anything else (auto).
enum class Mode { Auto, Always, Never };
Mode mode_from_env(const char* variable);

// How many elements a map needs to fill the machine its plans run on:
// `per_thread` elements for each host thread, or under --backend gpu with a
// usable device, the threads the GPU keeps resident. *what names it for
// the plan listing.
int64_t parallel_width(const eval::Evaluator& ev, int64_t per_thread, std::string* what = nullptr);

}  // namespace thorn::exec::rewrite
