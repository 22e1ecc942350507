// SegRed on the device: the strategy (gpu/launch/params.cpp) decides which
// kernel of gpu/codegen/reduce.cpp runs, from the real shape and device.
#include <fmt/format.h>

#include "gpu/codegen/ctypes.hpp"
#include "gpu/exec/step_runner.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::exec {

void run_segred(RunContext& ctx, const plan::Step& step, MessageBase msg) {
  cg::detail::StepLayout layout = cg::detail::layout_of(step);
  const size_t m = size_t(step.num_map_outputs), k = layout.parts.size();
  if (step.writes.size() != m + k)
    throw Error(ErrorKind::Internal, fmt::format("SegRed step: {} write buffers for {} map and {} reduced outputs",
                                                 step.writes.size(), m, k));
  const int64_t segments = step.segments, n = step.segment_size;
  std::vector<CUdeviceptr> frees = free_array_ptrs(ctx, step), outs;
  for (size_t i = 0; i < step.writes.size(); ++i) {
    expect_buffer(ctx, step, step.writes[i], layout.outs[i], i < m ? segments * n : segments,
                  i < m ? "map output" : "reduction output");
    outs.push_back(write_ptr(ctx, step.writes[i]));
  }
  if (segments == 0) return;  // nothing to reduce, nothing to write

  launch::SegRedLaunch L =
      launch::plan_segred(ctx.device.props(), segments, n, step.commutative, cg::accumulator_bytes(step));
  cg::CodegenOptions opts = codegen_options(outs, frees);
  const jit::Module& mod =
      step_module(ctx.device, step, fmt::format("segred {} {} {}", int(L.strategy), L.ordered, opts.noalias),
                  [&] { return cg::gen_segred(step, L.strategy, L.ordered, opts); });

  // Partials of the first pass of Large, one per block, in memory types.
  std::vector<CUdeviceptr> parts(k, 0);
  if (L.second_pass)
    for (size_t i = 0; i < k; ++i)
      parts[i] = scratch(ctx, size_t(L.grid.blocks) * size_t(prim_bytes(layout.parts[i])));

  KernelArgs args = step_args(ctx, step, layout, msg, L.p1, L.p2, L.p3, outs, parts, frees);
  launch_kernel(ctx.device, mod, cg::segred_entry(L.strategy), L.grid, args);
  if (L.second_pass) launch_kernel(ctx.device, mod, "thorn_segred_combine", L.combine, args);
}

}  // namespace thorn::gpu::exec
