// Scatter on the device (gpu/codegen/scatter.cpp): the destinations are
// updated in place, so their current contents must be on the device first.
#include <fmt/format.h>

#include "gpu/exec/step_runner.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::exec {

void run_scatter(RunContext& ctx, const plan::Step& step, MessageBase msg) {
  cg::detail::StepLayout layout = cg::detail::layout_of(step);
  if (step.writes.size() != layout.outs.size())
    throw Error(ErrorKind::Internal, fmt::format("Scatter step: {} destinations for {} values",
                                                 step.writes.size(), layout.outs.size()));
  std::vector<CUdeviceptr> frees = free_array_ptrs(ctx, step), outs;
  for (size_t k = 0; k < step.writes.size(); ++k) {
    expect_buffer(ctx, step, step.writes[k], layout.outs[k], step.segments * step.dest_size, "destination");
    outs.push_back(update_ptr(ctx, step.writes[k]));
  }
  const int64_t total = step.segments * step.segment_size;
  if (total == 0) return;
  cg::CodegenOptions opts = codegen_options(outs, frees);
  const jit::Module& m = step_module(ctx.device, step, fmt::format("scatter {}", opts.noalias),
                                     [&] { return cg::gen_scatter(step, opts); });
  KernelArgs args = step_args(ctx, step, layout, msg, step.dest_size, 0, 0, outs, {}, frees);
  launch_kernel(ctx.device, m, "thorn_scatter", launch::grid_stride(ctx.device.props(), total), args);
}

}  // namespace thorn::gpu::exec
