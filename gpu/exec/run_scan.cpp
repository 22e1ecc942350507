// SegScan on the device: one launch of gpu/codegen/scan.cpp's single-pass
// kernel. The look-back's global state (block counter, status flags,
// per-tile aggregates and inclusive prefixes) lives in one scratch
// allocation; the counter and flags are zeroed on the stream before every
// launch, so repeated launches (and launches after a failed one) start
// clean.
#include <fmt/format.h>

#include "gpu/codegen/ctypes.hpp"
#include "gpu/driver/cuda.hpp"
#include "gpu/exec/step_runner.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::exec {

namespace {
size_t align16(size_t v) { return (v + 15) / 16 * 16; }
}  // namespace

void run_segscan(RunContext& ctx, const plan::Step& step, MessageBase msg) {
  cg::detail::StepLayout layout = cg::detail::layout_of(step);
  const size_t k = layout.outs.size();
  if (step.writes.size() != k)
    throw Error(ErrorKind::Internal,
                fmt::format("SegScan step: {} write buffers for {} scanned values", step.writes.size(), k));
  const int64_t total = step.segments * step.segment_size;
  std::vector<CUdeviceptr> frees = free_array_ptrs(ctx, step), outs;
  for (size_t i = 0; i < k; ++i) {
    expect_buffer(ctx, step, step.writes[i], layout.outs[i], total, "scan output");
    outs.push_back(write_ptr(ctx, step.writes[i]));
  }
  if (total == 0) return;  // nothing to scan: no launch

  launch::SegScanLaunch L = launch::plan_segscan(ctx.device.props(), step, total);
  cg::CodegenOptions opts = codegen_options(outs, frees);
  opts.block_size = L.block;
  const jit::Module& mod =
      step_module(ctx.device, step, fmt::format("segscan {} {} {} {}", L.m, L.block, opts.noalias, L.late_prefix),
                  [&] { return cg::gen_segscan(step, L.m, opts, L.late_prefix); });

  // [counter: 4 bytes][flags: one byte per tile] zeroed per launch, then
  // per value an aggregate and an inclusive prefix per tile.
  const size_t tiles = size_t(L.grid.blocks);
  const size_t flags_at = 16, values_at = align16(flags_at + tiles);
  size_t bytes = values_at;
  std::vector<size_t> offsets;
  for (size_t p = 2; p < layout.parts.size(); ++p) {
    offsets.push_back(bytes);
    bytes = align16(bytes + tiles * size_t(prim_bytes(layout.parts[p])));
  }
  const CUdeviceptr state = scratch(ctx, bytes);
  CU_CALL(cuMemsetD8Async, state, 0, values_at, ctx.device.stream());
  std::vector<CUdeviceptr> parts = {state, state + flags_at};
  for (size_t off : offsets) parts.push_back(state + off);

  KernelArgs args = step_args(ctx, step, layout, msg, 0, 0, 0, outs, parts, frees);
  launch_kernel(ctx.device, mod, "thorn_segscan", L.grid, args);
}

}  // namespace thorn::gpu::exec
