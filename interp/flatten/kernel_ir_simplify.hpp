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
#include "interp/flatten/kernel_ir.hpp"

namespace thorn::kir {

void simplify(Function& f);

}  // namespace thorn::kir
