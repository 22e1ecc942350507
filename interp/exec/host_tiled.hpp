#pragma once
// The tiled schedule of matmul-like steps (internal header; see
// interp/flatten/plan_tiled.hpp for what is recognised, host_tiled.cpp for
// the loops and their order of evaluation).
#include <cstdint>
#include <vector>

#include "interp/exec/host_executor.hpp"
#include "interp/flatten/plan_tiled.hpp"

namespace thorn::host {

// False when THORN_TILED=0 (the step then runs as planned, for comparisons).
bool tiled_enabled();
// Runs the step with the tiled schedule; false (nothing written) when its
// indices would leave an array or the output overlaps an input: the step
// then runs as planned, which reports what is wrong.
// Steps run with the tiled schedule so far (tests check that a shape is
// recognised where the plan listing does not show it: a delayed map's
// materialisation).
uint64_t tiled_runs();
bool run_tiled(const plan::TiledProduct& t, const plan::Step& step, std::vector<BufferPtr>& buffers,
               const ExecOptions& options);

}  // namespace thorn::host
