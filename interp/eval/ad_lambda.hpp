#pragma once
// Derivatives of mapped (element) functions as new code: a source-to-source
// forward-mode transformation of a closure's checked AST (dual numbers:
// every float subexpression gets tangent expressions, one per direction).
// The result is an ordinary closure over generated AST, so a `map` of it is
// flattened by the planner and runs on the host/GPU plans like any other map
// (interp/eval/ad_sweep_rules.cpp uses it for the map rule of jvp and vjp,
// and for the operators of the generic reduce, scan and hist rules).
//
// Supported element functions: parameters that are scalar variables; bodies
// of let-bindings, float/integer literals, variables, + - * / ** and
// comparisons on builtin operators, negation, if-then-else, and calls of the
// prelude's scalar functions (sin, cos, exp, log, sqrt, tanh, max, min, abs,
// conversions ...). Anything else is refused with a reason (Unsupported),
// and the caller falls back to the reference tape.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/eval/callable.hpp"

namespace thorn::eval {
class Evaluator;
}

namespace thorn::eval::ad {

// Why the array-level AD cannot handle something (the reason is logged).
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A free variable of the element function that carries a derivative in the
// enclosing jvp/vjp (a captured active scalar).
// (A captured scalar, or a captured one-dimensional array the function
// gathers from with `a[i]`.)
struct FreeActive {
  std::string name;
  Value tangent;  // jvp only: its tangent (a scalar or an array); unused for vjp
  bool array = false;
};

// jvp: \p1 .. pk t_j.. -> (f p1 .. pk, tangent), one tangent parameter per
// `active[j]`, free actives' tangents captured. Returns the function value.
// With tangent_only, the function returns the tangent alone (the primal is
// recomputed inside it, not returned: a map of it then stays a delayed
// array that its consumer fuses, where a map returning pairs is stored).
Value jvp_lambda(Evaluator& ev, const Callable& f, const std::vector<bool>& active,
                 const std::vector<FreeActive>& free, bool tangent_only = false);

// vjp: \p1 .. pk ybar -> (ybar * df/dp_j for active j..., ybar * df/dv for
// each free active scalar v, then for each gather site from a free active
// array: ybar * df/d(a[i]) and i) (one value instead of a tuple when there
// is only one). `site_arrays` receives the array of each gather site.
Value vjp_lambda(Evaluator& ev, const Callable& f, const std::vector<bool>& active,
                 const std::vector<FreeActive>& free, std::vector<std::string>* site_arrays = nullptr);

// A built-in operator or a section of one, `(*)`, `(* 2)`, `(2 *)`, as a
// closure over generated AST (`\a b -> a * b`) on scalars of type t, which
// jvp_lambda/vjp_lambda can then differentiate; nullopt for anything else.
std::optional<Value> operator_closure(Evaluator& ev, const Value& f, Prim t);

// Whether a closure's result type is a float or a tuple of floats (what
// both support; tuple parameters of scalars are flattened, so a generated
// function takes one scalar per variable of the patterns, and a tuple
// result gives a tuple of tangents, or takes one ybar per component).
bool scalar_float_result(const Callable& f);
// The number of components of f's result (1 for a float), 0 if unsupported.
int result_width(const Callable& f);
// The number of scalar variables of f's parameters (tuples flattened).
int param_width(const Callable& f);

// The Jacobian of f with respect to its `active` (flattened) parameters:
// \p1 .. pk -> (d out_0/d a_0, .., d out_{m-1}/d a_0, d out_0/d a_1, ...),
// for the generic scan rule of tuple operators (ad_sweep_scan.cpp).
Value jacobian_lambda(Evaluator& ev, const Callable& f, const std::vector<bool>& active);

// An operator of two tuples of w scalars as an operator on dual tuples:
// \(a.., a'..) (b.., b'..) -> (a op b, its tangent) (forward mode of scan).
Value paired_jvp_operator(Evaluator& ev, const Callable& f);

// \a b -> f b a for an operator f of two parameters (the same body).
Value flipped_operator(const Callable& f);

// The composition of affine maps x -> v + C x of dimension d, elements
// (v_0..v_{d-1}, C row-major): (v1, C1) then (v2, C2) = (v2 + C2 v1, C2 C1).
Value affine_compose_operator(Evaluator& ev, int d, Prim t);

}  // namespace thorn::eval::ad
