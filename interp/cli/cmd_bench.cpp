// thorn bench: benchmarks of test-block datasets, like `futhark bench`.
//
// Not written yet; a colleague adds it. The intended shape: the same
// datasets as `thorn test` (test_spec.hpp, run through test_runner's input
// reading), each run a few times per backend after a warm-up, reporting
// mean and spread and the ratios between backends measured in the same run
// (DESIGN.md: benchmarks print ratios against their peers).
#include <iostream>

#include "interp/cli/commands.hpp"

namespace thorn::cli {

int cmd_bench(const Args& args) {
  for (const auto& a : args)
    if (a == "-h" || a == "--help") {
      std::cout << "Usage: thorn bench [options...] PATH...\n\nBenchmark the datasets of test blocks "
                   "(not available yet).\n";
      return 0;
    }
  std::cerr << "thorn bench: not available yet\n";
  return 1;
}

}  // namespace thorn::cli
