#pragma once
// The SegHist differential suite (notes-hist.md §5), run against any
// backend that executes plans (tests/gpu/hist_differential.cpp: the real
// GPU or the kernel emulator): histogram steps built like the flattener's
// (element (s, j) = (is[s*n + j], value(vs[s*n + j])), an operator of 2k ->
// k values), random inputs, expectations from a sequential loop on the host.
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/driver/device.hpp"
#include "tests/gpu/support/reference.hpp"
#include "tests/gpu/support/suites.hpp"

namespace thorn::gpu::test {

enum class HistOp {
  Add,     // (+) on t: hardware atomics for 32/64-bit integers and f32/f64, locks for small types
  Min,     // min on t: hardware for 32/64-bit integers, CAS for floats
  Max,     // max on t
  Xor,     // ^ on an integer t: hardware
  SatAdd,  // min(a + b, 2^24 - 1) on i32: CAS (notes-hist.md §5.8)
  ArgMax,  // (i32 value, i32 index), larger value, then smaller index: a lock (§5.9)
  Vec3,    // map2 (+) over 3 values of t (v, 2v, v - 1): separable, one atomic per component (§5.10)
  Pair,    // (i64 sum, f64 max) of (v, f64 v): 128 bits, a lock (§5.14); t must be i64
  Or,      // || on bool: a lock (one byte)
};
const char* hist_op_name(HistOp op);

// hist op over segments x n elements into segments x bins bins; reads
// free arrays is (i64) and vs (t).
plan::Step seghist(Prim t, HistOp op, int64_t segments, int64_t n, int64_t bins);

struct HistInput {
  double out_of_bounds = 0.1;  // fraction of indices outside [0, bins) (-1, bins, INT64_MIN, ...)
  int64_t race_factor = 1;     // only bins / RF bins hit (stride RF), as in the paper's experiments
  bool random_floats = false;  // float values that do not add exactly (a tolerance)
  bool specials = false;       // NaN, -0.0 and infinities among the float values
  bool neutral_dest = false;   // the destination starts at ne (else random values)
};

Case seghist_case(Prim t, HistOp op, int64_t segments, int64_t n, int64_t bins, uint64_t seed,
                  const HistInput& in = {});
// Fixed inputs (notes-hist.md §5.1-§5.3): i32 (+) of `vs` into `dest`.
Case seghist_known(const std::vector<int32_t>& dest, const std::vector<int64_t>& is, const std::vector<int32_t>& vs);
// N inputs all in bin 0 of one bin: (+) of ones gives N, max gives the largest (§5.5).
Case seghist_one_bin(HistOp op, int64_t n, uint64_t seed);

// Everything in notes-hist.md §5 on several launch configurations (the
// model's choice; global memory straight into the destination; global
// subhistograms; shared and global with small chunks, so several passes;
// CAS and locks forced on operators that allow hardware atomics); each case
// runs twice in a row from fresh destinations.
SuiteResult run_hist_suite(const Runner& run, const DeviceProps& dev, const SuiteOptions& o);
// `launches` launches of random shapes, operators and configurations.
SuiteResult run_hist_stress(const Runner& run, int launches, uint64_t seed, const SuiteOptions& o);

}  // namespace thorn::gpu::test
