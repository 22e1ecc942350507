#pragma once
// Array-level (SOAC-granular) automatic differentiation: the seed's rules
// (notes-ad.md, seed 002) applied to whole arrays, so that `jvp` and `vjp`
// run on the host/GPU plans instead of the reference tape of scalars.
//
// How it works. The differentiated function's checked AST is walked by an
// abstract interpreter (Sweep) whose values are primal values plus, when they
// depend on the input, either a tangent (forward mode) or a node of an
// array-level tape (reverse mode). Primal values are computed by the
// ordinary evaluator (so every SOAC is dispatched to the plans as usual);
// what depends on the input goes through a rule:
//  - map: the element function is transformed into derivative code
//    (ad_lambda.hpp) and mapped, again an ordinary flattened map;
//  - reduce (+, *, min, max, generic), scan (+, generic: a linear
//    recurrence), reduce_by_index (+, *, min, max, generic: sort-based),
//    scatter, indexing, scalar arithmetic and the prelude's scalar
//    functions: the rules in prelude/ad_rules.fut (Futhark code, flattened
//    like any other) or, for scalars, a few C++ lines; "generic" is any
//    operator of two scalars whose partials ad_lambda can generate;
//  - let, tuples, if (the branch taken is what is differentiated: the
//    return sweep sees the same control flow), calls of non-recursive
//    functions (inlined).
// A construct without a rule throws Unsupported with the reason; jvp2/vjp2
// (ad.cpp) then log it and run the reference tape, which stays the oracle.
// In reverse mode the forward sweep keeps only what the rules need (the
// inputs of maps, the zero count and product of reduce (*), the arg-index of
// min/max); element functions' intermediates are recomputed by the
// generated derivative code, never stored.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/util/source.hpp"

namespace thorn::eval {
class Evaluator;
}

namespace thorn::eval::ad {

// jvp2/vjp2 by the array-level rules; nullopt (with `why` set) when the
// function uses something they do not cover.
std::optional<Value> sweep_jvp2(Evaluator& ev, const Value& f, const Value& x, const Value& x_tangent,
                                const Loc& loc, std::string& why);
// mjp2: one forward sweep, then one return sweep per seed; the primal and
// each seed's x adjoint.
std::optional<std::pair<Value, std::vector<Value>>> sweep_mjp2(Evaluator& ev, const Value& f, const Value& x,
                                                               const std::vector<Value>& y_adjoints,
                                                               const Loc& loc, std::string& why);
std::optional<Value> sweep_vjp2(Evaluator& ev, const Value& f, const Value& x, const Value& y_adjoint,
                                const Loc& loc, std::string& why);

}  // namespace thorn::eval::ad
