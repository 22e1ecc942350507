#pragma once
// The host backend's executor: runs a segmented plan (interp/flatten/plan.hpp)
// on the CPU cores, with the element and operator functions compiled to the
// batched interpreter of host_program.hpp.
//
// Buffers: `buffers[i]` is plan buffer i. Inputs (BufferDesc::is_input), and
// the destinations of SegHist and Scatter steps (initial contents), must be
// present; any other null entry is allocated here with the plan's count.
#include <cstdint>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/flatten/plan.hpp"

namespace thorn::host {

struct ExecOptions {
  int max_threads = 0;              // 0: all of the pool's threads
  int64_t parallel_threshold = 1 << 15;  // fewer elements than this run on one thread
};

void execute(const plan::Plan& p, std::vector<BufferPtr>& buffers, const ExecOptions& options = {});

// One step (buffers as for execute()).
void execute_step(const plan::Step& step, std::vector<BufferPtr>& buffers,
                  const ExecOptions& options = {});

}  // namespace thorn::host
