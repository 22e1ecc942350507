#pragma once
// The GPU backend behind the dispatcher (--backend gpu): the flattener's
// plans run on the GPU when GpuBackend::supports() them and
// should_offload() says they are worth it, otherwise on the host executor.
// A GPU failure (Error(Gpu): out of memory, compile or launch failure) runs
// the plan on the host instead, after one line on stderr (once per process);
// a failed Check inside a kernel is the program's error and propagates.
#include <string>

#include "interp/flatten/planner.hpp"

namespace thorn::exec::host_gpu {

// The executor to hand to flatten::run_on_host under --backend gpu. Without
// a usable GPU it is the host executor.
flatten::PlanExecutor plan_executor();

// Whether a GPU is usable here; *why says why not.
bool gpu_usable(std::string* why = nullptr);

// The threads the GPU keeps resident at once (SMs x threads per SM); 0
// without a usable GPU. A map narrower than this leaves the GPU idle.
int64_t gpu_resident_threads();

}  // namespace thorn::exec::host_gpu
