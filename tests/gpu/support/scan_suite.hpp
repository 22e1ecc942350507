#pragma once
// The SegScan differential suite (notes-scan.md §7), run against any backend
// that executes plans (tests/gpu/scan_differential.cpp: the real GPU or the
// kernel emulator): scan steps built like the flattener's, random inputs,
// expectations from a sequential loop on the host.
#include <cstdint>
#include <vector>

#include "gpu/driver/device.hpp"
#include "tests/gpu/support/reference.hpp"
#include "tests/gpu/support/suites.hpp"

namespace thorn::gpu::test {

enum class ScanOp {
  Sum, Max, Mss, Mat2, Affine,  // steps.hpp's reduction operators, as scans
  Lssp,   // longest sorted segment (notes-scan.md §4, §7.5): 6 x i32, non-commutative; t must be i32
  Mixed,  // (i8 count, f64 sum, bool restart) under the segmented-sum operator: three types, non-commutative;
          // the input is i32
};
const char* scan_op_name(ScanOp op);

// inclusive scan op over element(x[s*n + j]) within each segment s.
plan::Step segscan(Prim t, ScanOp op, int64_t segments, int64_t n);

// A one-step plan with its expectations. `x` is the input (of type t), or
// empty for random values; `random_floats`: values that do not add exactly
// (a float sum's expectation then has a tolerance).
Case segscan_case(Prim t, ScanOp op, int64_t segments, int64_t n, uint64_t seed, bool random_floats = false,
                  std::vector<Scalar> x = {});

// Everything in notes-scan.md §7, on five launch configurations: the
// device's choice and two forced small tiles (many tiles on small inputs),
// and two with THORN_SCAN_AGGREGATES_ONLY (look-backs over aggregates and
// many windows, which the emulator, running blocks in order, would
// otherwise never need). Every case also runs twice in a row.
SuiteResult run_scan_suite(const Runner& run, const DeviceProps& dev, const SuiteOptions& o);
// `launches` launches of random shapes, operators and configurations.
SuiteResult run_scan_stress(const Runner& run, int launches, uint64_t seed, const SuiteOptions& o);

}  // namespace thorn::gpu::test
