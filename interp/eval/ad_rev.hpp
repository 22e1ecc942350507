#pragma once
// Reverse-mode transformation of element functions over arrays: the map
// rule of notes-ad.md §2 (`x̄s += map (\x ȳ -> vjp f x ȳ) xs ȳs`, the free
// variables' adjoints summed over the elements) for a mapped function that
// takes or builds arrays or contains SOACs, which ad_lambda's forward-mode
// dual numbers (scalars only) do not cover.
//
// The element function's checked AST is turned into new AST, Futhark's way:
// a forward sweep (the body's bindings, in A-normal form, under their own
// names so the original subexpressions keep meaning what they meant) and a
// return sweep of adjoint bindings in reverse order, where
//  - scalar expressions get their partials from ad_lambda's dual numbers
//    (one direction per active scalar they use);
//  - `map f as` gets `map (vjp f) as ȳ`, recursively (a lambda becomes a
//    lambda, a named function or a partial application of one a generated
//    closure), the adjoints of what f captures or is partially applied to
//    summed over the rows (ad_rules sum/sum_rows/sum_rows2);
//  - `reduce (+) 0` broadcasts ȳ, `transpose` transposes it, `a[i]` gives a
//    one-hot row, a call of a named function calls its generated vjp.
// The result is an ordinary closure whose map the planner flattens like any
// map of map (nothing of the element's intermediates is stored between the
// sweeps: they are recomputed in the element's vjp). Anything else throws
// Unsupported with the reason (the caller falls back to the tape).
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/eval/callable.hpp"

namespace thorn::eval {
class Evaluator;
}

namespace thorn::eval::ad {

// \p1 .. pk ȳ -> (adjoint of each active parameter, in order, then of each
// name in free_active: a variable f captures that carries a derivative),
// one value rather than a tuple when there is one. Parameters and results
// may be floats or arrays of floats (up to three dimensions), a parameter
// also a tuple of them, the result a tuple of them. `env_key`: as
// fwd_lambda's.
Value rev_lambda(Evaluator& ev, const Callable& f, const std::vector<bool>& active,
                 const std::vector<std::string>& free_active, const std::string& env_key = {});

// Whether the map rule must use rev_lambda for f: a parameter or result
// that is not a scalar or tuple of scalars, or array work in the body.
bool needs_rev(const Callable& f);

}  // namespace thorn::eval::ad
