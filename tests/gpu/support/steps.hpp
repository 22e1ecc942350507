#pragma once
// Plan steps for the GPU tests and benchmarks, built with kir::Builder: the
// shapes the flattener produces (an element function reading inputs at
// s*n + j, an operator of 2k -> k values), with operators whose reference
// result is easy to compute on the host.
#include <string>

#include "interp/flatten/plan.hpp"

namespace thorn::gpu::test {

// Every builder takes the step's shape (segments, n): like the flattener,
// it bakes n into the element function as a constant (the flat index is
// s*n + j); the GPU backend lifts such constants into kernel parameters.
// Element functions read their inputs through free arrays 0, 1, ...

// out0 = a*x + y (x, y free arrays of type t; a = 2). t numeric.
plan::Step map_axpy(Prim t, int64_t segments, int64_t n);
// out0 = x converted to `to`, out1 = (x == 0) for a free array x of type `from`.
plan::Step map_convert(Prim from, Prim to, int64_t segments, int64_t n);
// One element function using every opcode: every unary, binary and
// comparison operator on every type that allows it, every conversion,
// Select, Read, Check, If, For and While. Result: one f64 per element.
plan::Step map_every_opcode(int64_t segments, int64_t n);
// Kernel-IR subroutines (kir::Subroutine): a small one (THORN_DEV) called at
// several sites, a large one (THORN_NOINLINE, over 200 instructions) with a
// private array and a Check that calls the small one in a loop and a branch,
// tuple results. Free array x (f64, 0); result: one f64 per element.
plan::Step map_subroutines(int64_t segments, int64_t n);

// One element per row, building the row in a private array (the
// flattener's map_rows, interp/flatten/planner.cpp): l[i] = x[s*row + i],
// an in-place inclusive prefix sum over l (|| for bool), then
// out[s*row + i] = l[row - 1 - i] through a `written` free array. Segments
// of size 1; free arrays x (0) and out (1, written); no element results.
plan::Step map_private_rows(Prim t, int64_t rows, int64_t row);

enum class RedOp {
  Sum,     // (+), commutative; bool: ||
  Max,     // max, commutative; bool: &&
  Mss,     // maximum segment sum, 4-tuple, associative, non-commutative (numeric signed/float)
  Mat2,    // 2x2 matrix product, 4-tuple, non-commutative (exact on integers: wraps)
  Affine,  // (a, b) composition of x -> a*x + b, 2-tuple, non-commutative
};
const char* red_op_name(RedOp op);
int red_op_arity(RedOp op);  // accumulator values

// reduce op over x[s*n + j] (a free array of type t). For Mss/Mat2/Affine the
// element maps x to the operator's tuple (see steps.cpp). `num_map_outputs`
// adds redomap outputs: 2*x (and x + 1 for the second). `commutative` is the
// flag the step carries (Sum/Max may be marked non-commutative to exercise
// the ordered paths).
plan::Step segred(Prim t, RedOp op, bool commutative, int num_map_outputs, int64_t segments, int64_t n);

// Scatter: element(s, j) = (idx[s*n + j], v[s*n + j], v[s*n + j] * 2 (when k == 2)).
plan::Step scatter(Prim t, int k, int64_t segments, int64_t n, int64_t dest_size);

}  // namespace thorn::gpu::test
