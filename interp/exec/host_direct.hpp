#pragma once
// Direct paths of SegRed and SegScan (internal header): exact
// specialisations for steps whose element function only reads each operator
// input from contiguous memory (`reduce (+) 0 xs`, `map f64.sum xss`,
// `scan (*) 1 xs`, `map (scan i32.max ...) xss`, zips of such arrays) and
// whose operator is recognised (host_fastop.hpp). They skip the batched
// interpreter and run typed loops over the input buffers: reductions with
// many independent accumulators (vectorised, AVX2 where the CPU has it,
// chosen at run time), scans of rows interleaved so that rows advance
// together. Anything else returns false and runs on the general paths.
//
// Order of evaluation (floating-point + and * are not associative): a
// segment is cut into blocks of kDirectBlock positions; a block is folded
// with kAcc accumulators (accumulator a takes positions a, a+kAcc, ...) that
// are then combined as a balanced tree, and block totals are combined
// pairwise (a balanced tree). A scan runs sequentially within each block,
// starting from the neutral element combined, left to right, with the
// totals of the blocks before it. The order depends only on the segment
// size, not on the number of threads or the instruction set, so results
// are deterministic; accuracy is that of pairwise summation. Operators
// that are exact under reassociation (integers, min, max, bitwise) scan
// sequentially.
#include <cstdint>

#include "interp/exec/host_step.hpp"

namespace thorn::host {

constexpr int64_t kDirectBlock = int64_t(1) << 14;

// Runs the step when a direct path applies; false when it does not (the
// caller then runs the general path).
bool run_segred_direct(StepEnv& env);
bool run_segscan_direct(StepEnv& env);

}  // namespace thorn::host
