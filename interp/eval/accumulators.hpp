#pragma once
// Accumulators (Futhark's compiler-internal `intrinsics.acc`), on the
// reference evaluator: `scatter_stream dest f bs` and `hist_stream dest op
// ne f bs` apply `f` to an accumulator and each element of `bs` in turn;
// `acc_write acc i v` writes through it. See prelude/intrinsics.fut.
//
// At run time an accumulator is a record of the destination array and,
// for hist_stream, the operator each write combines through. Running the
// stream in order is one of the orders Futhark allows (its compiler may
// run it in parallel, and scatter_stream's duplicate writes are then
// unspecified), and hist_stream's result does not depend on the order.
#include <string_view>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/eval/evaluator.hpp"

namespace thorn::eval {

bool is_accumulator_intrinsic(std::string_view name);
Value call_accumulator_intrinsic(Evaluator& ev, std::string_view name, std::vector<Value>& args, const Loc& loc);

}  // namespace thorn::eval
