#pragma once
// Automatic differentiation on the reference path: Futhark's jvp2 and vjp2
// (the prelude builds jvp and vjp on them).
//
//  - jvp2 f x x' = (f x, the derivative of f at x in the direction x'),
//    by dual numbers: each float of x carries its tangent, and every
//    operation on such floats computes the result's tangent too.
//  - vjp2 f x y' = (f x, y' times the Jacobian of f at x), by a tape: each
//    operation on the floats of x appends a node with the partial
//    derivatives of its result; a backward sweep from y' accumulates the
//    adjoints.
//
// The values involved are ADValue (interp/core/ad_value.hpp); arrays of them
// are boxed arrays of scalars. Everything the evaluator does on scalars goes
// through the lifted operations here when an operand carries a derivative,
// and SOACs run on the reference backend meanwhile (one scalar at a time),
// so differentiation works through every construct: SOACs, loops, if,
// match, in-place updates. Integers carry derivatives too (as in Futhark);
// booleans do not.
#include <optional>
#include <string_view>

#include "interp/core/value.hpp"
#include "interp/eval/scalar_ops.hpp"
#include "interp/util/source.hpp"

namespace thorn::eval {
class Evaluator;
}

namespace thorn::eval::ad {

// Lifted scalar operations: operands are Scalars or AD values (at least one
// AD). Comparisons and logical operators compare the plain values.
Value binop(BuiltinOp op, const Value& a, const Value& b);
Value negate(const Value& a);
// `!a`: a boolean's tangent is a' && a, an integer's complement has the
// derivative !a (Futhark's pdUnOp for Neg Bool and Complement).
Value logical_not(const Value& a);
// A scalar function of the prelude's intrinsics (sqrt, exp, min, fma, ...);
// nullopt for a name that is not one.
std::optional<Value> function(std::string_view name, const Value* args, int nargs);
Value convert(const Value& a, Prim to);

Value jvp2(Evaluator& ev, const Value& f, const Value& x, const Value& x_tangent, const Loc& loc);
Value vjp2(Evaluator& ev, const Value& f, const Value& x, const Value& y_adjoint, const Loc& loc);
// Vector AD (Futhark's jmp2/mjp2): the primal once, many seeds (a
// nonempty array of them; the prelude maps jvp2/vjp2 over an empty one).
Value jmp2(Evaluator& ev, const Value& f, const Value& x, const Value& x_tangents, const Loc& loc);
Value mjp2(Evaluator& ev, const Value& f, const Value& x, const Value& y_adjoints, const Loc& loc);
// While one lives, jmp2/mjp2 under --validate do not check each seed's
// sweep against the tape: the caller compares their whole result with the
// reference's (exec's Jacobian rule, map_jacobian.cpp).
struct ResultCheckedByCaller {
  ResultCheckedByCaller();
  ~ResultCheckedByCaller();
};
// with_vjp f f' x: f x with the custom reverse-mode derivative f' (ad.cpp).
Value with_vjp(Evaluator& ev, const Value& f, const Value& f_adj, const Value& x, const Loc& loc);

}  // namespace thorn::eval::ad
