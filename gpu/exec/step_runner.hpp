#pragma once
// Running one plan step on the device: what the per-skeleton runners
// (run_map.cpp, run_reduce.cpp, run_scan.cpp, run_hist.cpp,
// run_scatter.cpp) share.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpu/codegen/common.hpp"
#include "gpu/driver/device.hpp"
#include "gpu/exec/kernel_args.hpp"
#include "gpu/jit/module_cache.hpp"
#include "gpu/launch/params.hpp"
#include "interp/core/value.hpp"
#include "interp/flatten/plan.hpp"

namespace thorn::gpu::exec {

// State of one execute() call.
struct RunContext {
  RunContext(const Device& d, const plan::Plan& p, std::vector<BufferPtr>& b) : device(d), plan(p), buffers(b) {}
  const Device& device;
  const plan::Plan& plan;
  std::vector<BufferPtr>& buffers;
  CUdeviceptr err = 0;  // i32 error flag: 0, or 1 + global message number
  // Device copies in use by enqueued kernels, and temporaries, held until
  // the call ends (the pool could otherwise hand them out again before the
  // host has seen the error flag).
  std::vector<std::shared_ptr<void>> keep;
  std::vector<int> written;  // buffer ids overwritten on the device (rolled back on failure)
  std::vector<int> updated;  // buffer ids updated in place (scatter destinations)
};

// Global message numbering: every step's element messages, then its
// operator's, in step order.
struct MessageBase {
  int elem = 0;
  int op = 0;
};
std::vector<MessageBase> message_bases(const plan::Plan& plan);

// Buffers of a step, resolved to device addresses.
struct StepBuffers {
  std::vector<CUdeviceptr> outs, frees;
};

// The buffer for plan id `id`, created from its BufferDesc when null.
Buffer& plan_buffer(RunContext& ctx, int id);
CUdeviceptr read_ptr(RunContext& ctx, int id);    // uploads if needed
CUdeviceptr write_ptr(RunContext& ctx, int id);   // device memory to overwrite; marks it written
CUdeviceptr update_ptr(RunContext& ctx, int id);  // current contents, updated in place; marks it written
// The step's free arrays (reads), type-checked against the element function.
std::vector<CUdeviceptr> free_array_ptrs(RunContext& ctx, const plan::Step& step);
// Checks that buffer `id` holds at least `count` elements of type `t`.
void expect_buffer(RunContext& ctx, const plan::Step& step, int id, Prim t, int64_t count, const char* what);

// The uniform parameter list of gpu/codegen/skeleton.hpp.
KernelArgs step_args(const RunContext& ctx, const plan::Step& step, const cg::detail::StepLayout& layout,
                     MessageBase msg, int64_t p1, int64_t p2, int64_t p3, const std::vector<CUdeviceptr>& outs,
                     const std::vector<CUdeviceptr>& parts, const std::vector<CUdeviceptr>& frees);

// The loaded module of a step's kernel, generated and compiled at most once
// per step structure (gpu/codegen/fingerprint.hpp) and `variant` (the
// skeleton and its options): warm launches skip code generation.
const jit::Module& step_module(const Device& device, const plan::Step& step, const std::string& variant,
                               const std::function<cg::KernelSource()>& generate);

// Launches `entry` of `module` (counting it in the kernel statistics).
void launch_kernel(const Device& device, const jit::Module& module, const std::string& entry,
                   const launch::Grid& grid, KernelArgs& args);

// Temporary device memory for the rest of the execute() call.
CUdeviceptr scratch(RunContext& ctx, size_t bytes);

void run_segmap(RunContext& ctx, const plan::Step& step, MessageBase msg);
void run_segred(RunContext& ctx, const plan::Step& step, MessageBase msg);
void run_segscan(RunContext& ctx, const plan::Step& step, MessageBase msg);
void run_seghist(RunContext& ctx, const plan::Step& step, MessageBase msg);
// The last SegHist launch's choices (tests and benchmarks): whether the
// inspector sampled the input, the race factor used, the plan in words.
struct HistTrace {
  bool inspected = false;
  double race_factor = 1.0;
  std::string why;
};
HistTrace last_hist_trace();
void run_scatter(RunContext& ctx, const plan::Step& step, MessageBase msg);

// Codegen options for a step whose kernels write `outs` and read `frees`.
cg::CodegenOptions codegen_options(const std::vector<CUdeviceptr>& outs, const std::vector<CUdeviceptr>& frees);

}  // namespace thorn::gpu::exec
