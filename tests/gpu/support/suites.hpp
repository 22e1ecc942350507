#pragma once
// The differential test suites (notes-segred.md §5), run against any
// backend that executes plans: the real GPU (tests/gpu/differential.cpp) or
// the kernel emulator (tests/gpu/emulated.cpp).
#include <functional>
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/flatten/plan.hpp"

namespace thorn::gpu::test {

using Runner = std::function<void(const plan::Plan&, std::vector<BufferPtr>&)>;

struct SuiteOptions {
  int log_n = 20;            // the sweep [2^k][2^(log_n - k)]
  int block = 256;           // the launch block size the thresholds refer to
  bool all_strategies = true;  // also force each SegRed strategy on every shape
  int64_t many = 1000;       // segments of the threshold shapes (§5.3); the emulator uses fewer
  bool verbose = false;
  std::string filter;        // only cases whose name contains this
};

struct SuiteResult {
  int cases = 0;
  int failures = 0;
  std::vector<std::string> messages;

  // One case's outcome: a failure (non-empty) is counted, kept and printed;
  // a pass is printed when verbose.
  void record(const std::string& name, const std::string& failure, const SuiteOptions& o);
  // Another result's counts and messages added to these.
  void add(const SuiteResult& other);
};

SuiteResult run_segred_suite(const Runner& run, const SuiteOptions& o);
SuiteResult run_map_scatter_suite(const Runner& run, const SuiteOptions& o);
// Errors: a failing Check inside a kernel reaches the caller as Error(Runtime).
SuiteResult run_error_suite(const Runner& run, const SuiteOptions& o);

// The standalone transpose (GpuBackend::transpose), §5.7 shapes.
using TransposeFn = std::function<BufferPtr(const BufferPtr& in, int64_t offset, int64_t batches, int64_t rows,
                                            int64_t cols)>;
SuiteResult run_transpose_suite(const TransposeFn& transpose, const SuiteOptions& o);

}  // namespace thorn::gpu::test
