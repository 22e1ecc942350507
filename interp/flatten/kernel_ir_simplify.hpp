#pragma once
// Simplification of a finished kernel-IR function, run once when a plan's
// function is complete (planning's finish_function):
// - common subexpressions: a pure instruction (constant, arithmetic,
//   comparison, conversion, select, a read of a free array the function
//   does not write, a call of a subroutine without private-array accesses)
//   that repeats one whose result is available where it stands (earlier in
//   its block or in an enclosing one) is dropped and its uses read the
//   earlier register. The lowering expands an unmaterialised array (a
//   generator) at every read, so `zip4 as bs cs ds` over the parts of one
//   mapped tuple recomputes the tuple four times; here it is computed
//   once. Nothing is moved, so every value is computed by the same
//   operations in the same order as before: results stay bit-identical.
// - dead code: pure instructions whose results nothing uses.
// - index arithmetic (kernel_ir_ranges.cpp), first: an i64 division or
//   remainder by a positive constant c of z*c + q, where ranges show z >= 0
//   and 0 <= q < c (a loop counter, an element index), is z or q. With
//   params_are_indices (an element function: its parameters are element
//   and segment indices) the parameters are known to be >= 0.
// - loop-invariant code motion, last: pure instructions that cannot fail
//   (no integer division but by a constant) whose operands a loop does not
//   define move to just before it. Only integer arithmetic changes form and
//   every float operation stays as it was: results stay bit-identical.
#include "interp/flatten/kernel_ir.hpp"

namespace thorn::kir {

void simplify(Function& f, bool params_are_indices = false);

// The two passes above on their own (kernel_ir_ranges.cpp).
void simplify_index_arithmetic(Function& f, bool params_are_indices);
void hoist_loop_invariants(Function& f);

}  // namespace thorn::kir
