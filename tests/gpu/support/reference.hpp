#pragma once
// Differential-test cases: a one-step plan built with steps.hpp, random
// inputs, and the expected outputs computed by a plain sequential loop on
// the host (the semantics of notes-segred.md §1: out[s] = ne ⊕ e(s,0) ⊕ ...).
#include <cstdint>
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/flatten/plan.hpp"
#include "tests/gpu/support/steps.hpp"

namespace thorn::gpu::test {

struct Case {
  std::string name;
  plan::Plan plan;
  std::vector<BufferPtr> buffers;   // inputs set; outputs null (scatter destinations set)
  std::vector<BufferPtr> expected;  // per plan buffer: the expected contents, or null (not an output)
  // Per expected float element: the absolute error allowed (f16 sums round
  // differently in another order); empty: exact.
  std::vector<std::vector<double>> tolerance;
};

Case segred_case(Prim t, RedOp op, bool commutative, int num_map_outputs, int64_t segments, int64_t n,
                 uint64_t seed);
// The reduction operators of steps.hpp on the host (for the scan suite):
// the element's values for input x, the neutral element, x ⊕ y.
std::vector<Scalar> red_op_lift(RedOp op, const Scalar& x);
std::vector<Scalar> red_op_neutral(RedOp op, Prim t);
std::vector<Scalar> red_op_combine(RedOp op, const std::vector<Scalar>& x, const std::vector<Scalar>& y);
Case segmap_case(Prim t, int64_t segments, int64_t n, uint64_t seed);  // axpy
Case private_rows_case(Prim t, int64_t rows, int64_t row, uint64_t seed);  // map_private_rows
Case scatter_case(Prim t, int k, int64_t segments, int64_t n, int64_t dest_size, uint64_t seed);

// Compares the buffers a backend produced with the case's expectations;
// returns "" or a description of the first mismatch.
std::string compare(const Case& c, const std::vector<BufferPtr>& got);

// Random values of type t that keep sums exact in f32/f64 (multiples of 1/4
// in [-2, 2]), small integers, random bools.
Scalar random_value(Prim t, uint64_t& state);

// The next value of a splitmix64 sequence with state s: the suites' random data.
uint64_t next(uint64_t& s);

// A buffer holding `v` (elements of type t), and a plan's description of
// one: the suites' building blocks.
BufferPtr buffer_of(Prim t, const std::vector<Scalar>& v);
plan::BufferDesc desc(Prim t, int64_t count, std::string name, bool input);

}  // namespace thorn::gpu::test
