#pragma once
// The histogram benchmarks of thorn_gpu_bench (notes-hist.md §3, the
// paper's §V-A and §V-B): hist over N = 5e7 uniformly random 32-bit ints
// with bin (x % max(1, H/RF)) * RF for H in the paper's sizes and RF = 1
// and 63, for three operators: (+) on i32 ones (hardware atomics; peer:
// cub::DeviceHistogram::HistogramEven), saturating add (CAS) and argmax
// (a lock) (peer: CUB radix sort + reduce-by-key + scatter); and for each,
// the cost model's choice against the best of the paper's fixed choices
// (shared: M in {1, floor(k*B/min(H,B)), k = 1, 3, 6, 9}; global: M in
// {1, 4, 8, 16, 32}).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpu/executor.hpp"

namespace thorn::bench {

struct HistBenchHooks {
  // Times f (median of `reps` repetitions, after a warm-up; 0: the
  // benchmark's --reps), in ms.
  std::function<double(const std::function<void()>&, int reps)> time_ms;
  // Prints and records one result against the peer's `peer_name` at [segments][n].
  std::function<void(const std::string& name, const std::string& peer_name, int64_t segments, int64_t n,
                     double bytes, double ms, const std::string& note)>
      record;
};

// The H values of the paper's experiments.
std::vector<int64_t> hist_bench_sizes();
// Runs everything over `n` inputs; `fixed` also times the fixed choices.
void run_hist_benchmarks(gpu::GpuBackend& gpu, int64_t n, bool fixed, const HistBenchHooks& hooks);

}  // namespace thorn::bench
