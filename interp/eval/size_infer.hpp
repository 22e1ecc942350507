#pragma once
// Size parameters that the arguments' shapes do not give directly, as in
// Futhark's `unflatten [n][m] 't (xs: [n*m]t) : [n][m]t` and
// `split [n][m] 't (xs: [n+m]t) : ([n]t, [m]t)`: at a call they are found
//  1. from the call's expected result type (the checker's type of the
//     application, resolved at the call site: `let a: [k][3]i32 = unflatten
//     xs`), matched against the declared return type, then
//  2. by solving a parameter's size expression (`n * m`, `n + m`) against
//     the argument's dimension once all but one of its names are known.
#include <optional>

#include "interp/eval/evaluator.hpp"

namespace thorn::eval {

// The value of a size expression (`n - 1`, `n * m`) with the sizes known so
// far, or nullopt (defined in eval_pattern.cpp).
std::optional<int64_t> size_expr_value(const Expr& e, const Evaluator::SizeScope& sizes, const EnvPtr& env);

// Binds the unbound size parameters named in the declared return type `ret`
// whose dimension in `hint` is a constant, solving size expressions there
// (`[k * n]`) as in solve_param_sizes.
void bind_sizes_from_result(const TypeExpr& ret, const Type& hint, Evaluator::SizeScope& sizes, const EnvPtr& env);

// Binds unbound size parameters to the sizes the checker instantiated them
// with where the function was named (Callable::size_hints).
void bind_size_hints(const std::vector<std::pair<std::string, int64_t>>& hints, Evaluator::SizeScope& sizes);

// Solves the size expressions in parameter `p`'s type against the shape of
// its argument `v`, binding a size parameter that is the only unknown.
void solve_param_sizes(const Pattern& p, const Value& v, Evaluator::SizeScope& sizes, const EnvPtr& env);

// True if some size parameter of the scope is still unbound.
bool has_unbound_sizes(const Evaluator::SizeScope& sizes);

}  // namespace thorn::eval
