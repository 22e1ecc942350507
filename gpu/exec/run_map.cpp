// SegMap on the device: one grid-stride kernel (gpu/codegen/map.cpp).
#include <fmt/format.h>

#include "gpu/codegen/kir_to_cuda.hpp"
#include "gpu/exec/step_runner.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::exec {

void run_segmap(RunContext& ctx, const plan::Step& step, MessageBase msg) {
  cg::detail::StepLayout layout = cg::detail::layout_of(step);
  if (step.writes.size() != layout.outs.size())
    throw Error(ErrorKind::Internal, fmt::format("SegMap step: {} write buffers for {} element results",
                                                 step.writes.size(), layout.outs.size()));
  const int64_t total = step.segments * step.segment_size;
  std::vector<CUdeviceptr> frees = free_array_ptrs(ctx, step), outs;
  for (size_t k = 0; k < step.writes.size(); ++k) {
    expect_buffer(ctx, step, step.writes[k], layout.outs[k], total, "output");
    outs.push_back(write_ptr(ctx, step.writes[k]));
  }
  if (total == 0) return;
  cg::CodegenOptions opts = codegen_options(outs, frees);
  const jit::Module& m = step_module(ctx.device, step, fmt::format("map {}", opts.noalias),
                                     [&] { return cg::gen_segmap(step, opts); });
  KernelArgs args = step_args(ctx, step, layout, msg, 0, 0, 0, outs, {}, frees);
  launch_kernel(ctx.device, m, "thorn_map", launch::grid_stride(ctx.device.props(), total), args);
}

}  // namespace thorn::gpu::exec
