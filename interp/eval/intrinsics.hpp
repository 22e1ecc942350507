#pragma once
// The intrinsics that the prelude (prelude/*.fut) is written on:
// `__intrinsic "name" arg1 arg2 ...`.
//
//  - scalar functions, typed by their arguments: abs sgn neg popc clz ctz
//    sqrt cbrt exp log log2 log10 log1p sin cos tan asin acos atan sinh cosh
//    tanh asinh acosh atanh gamma lgamma erf erfc floor ceil round trunc
//    recip isnan isinf to_bits from_bits (1 argument); min max pow mul_hi
//    atan2 hypot copysign nextafter ldexp get_bit (2); mad_hi fma mad lerp
//    set_bit (3);
//  - conversions to_i8 ... to_f64, to_bool (1);
//  - copy (a deep copy: the result aliases nothing);
//  - SOACs and array primitives, all sent through exec::dispatch (see
//    interp/exec/dispatch.hpp for their argument conventions): map reduce
//    reduce_comm scan reduce_by_index{,_2d,_3d} scatter{,_2d,_3d} filter
//    partition partition2 iota replicate transpose concat flatten unflatten
//    rotate zip unzip.
#include <string_view>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/eval/evaluator.hpp"

namespace thorn::eval {

struct IntrinsicCall {
  std::string_view name;
  Loc loc;
  std::vector<Value> args;
  const Expr* expr = nullptr;  // the __intrinsic expression; null when called as a function value
  Ctx ctx;                     // the context it was evaluated in
  Evaluator& ev;

  // The call's result type, resolved in its context; computed only when
  // asked (only results built from nothing need it). Null when unknown.
  TypePtr result_type() const;
};

Value call_intrinsic(IntrinsicCall& call);
bool is_intrinsic(std::string_view name);

}  // namespace thorn::eval
