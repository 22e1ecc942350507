// SegHist on the device: gpu/launch/hist_launch.cpp decides the update,
// the memory and the passes; per pass over a chunk of bins:
//   shared: thorn_hist_shared (one subhistogram row per block), then
//           thorn_hist_combine over those rows into the destinations;
//   global, M > 1: thorn_hist_init (rows := ne), thorn_hist_global,
//           thorn_hist_combine;
//   global, M = 1: the locks zeroed (Lock), thorn_hist_global straight
//           into the destinations.
// Every launch goes to the one stream in order, so the rows and locks are
// reused from pass to pass. The destinations are updated in place: their
// current contents must be on the device first (update_ptr).
#include <fmt/format.h>

#include "gpu/driver/cuda.hpp"
#include "gpu/exec/step_runner.hpp"
#include "gpu/launch/hist_launch.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::exec {

namespace {
size_t align16(size_t v) { return (v + 15) / 16 * 16; }
int64_t packed(int64_t len, int64_t high) { return len | (high << cg::kHistLenBits); }
}  // namespace

void run_seghist(RunContext& ctx, const plan::Step& step, MessageBase msg) {
  cg::detail::StepLayout layout = cg::detail::layout_of(step);
  const size_t k = layout.outs.size();
  if (step.writes.size() != k)
    throw Error(ErrorKind::Internal,
                fmt::format("SegHist step: {} destinations for {} values", step.writes.size(), k));
  const int64_t total = step.segments * step.segment_size, bins = step.segments * step.bins;
  std::vector<CUdeviceptr> frees = free_array_ptrs(ctx, step), outs;
  for (size_t i = 0; i < k; ++i) {
    expect_buffer(ctx, step, step.writes[i], layout.outs[i], bins, "histogram");
    outs.push_back(update_ptr(ctx, step.writes[i]));
  }
  if (total == 0 || bins == 0) return;  // the destinations are the result

  const launch::SegHistLaunch L = launch::plan_seghist(ctx.device.props(), step, total);
  cg::CodegenOptions opts = codegen_options(outs, frees);
  opts.block_size = launch::kHistGlobalBlock;
  const jit::Module& mod =
      step_module(ctx.device, step, fmt::format("seghist {} {}", int(L.atomic), opts.noalias),
                  [&] { return cg::gen_seghist(step, L.atomic, opts); });

  // Subhistogram rows (rows x chunk values per component) and the locks
  // (one per cell of the rows, or per bin of the chunk when updating the
  // destinations directly).
  const bool lock = L.atomic == launch::HistAtomic::Lock;
  const size_t cells = size_t(L.rows) * size_t(L.chunk);
  const size_t lock_cells = !lock ? 0 : L.rows > 0 ? cells : size_t(L.chunk);
  std::vector<size_t> offsets;
  size_t bytes = 0;
  for (size_t c = 0; c < k; ++c) {
    offsets.push_back(bytes);
    bytes = align16(bytes + cells * size_t(prim_bytes(layout.parts[c])));
  }
  const size_t locks_at = bytes;
  bytes += lock_cells * 4;
  const CUdeviceptr state = bytes > 0 ? scratch(ctx, bytes) : 0;
  std::vector<CUdeviceptr> parts;
  for (size_t off : offsets) parts.push_back(cells > 0 ? state + off : 0);
  parts.push_back(lock_cells > 0 ? state + locks_at : 0);

  const DeviceProps& dev = ctx.device.props();
  for (int64_t off = 0; off < bins; off += L.chunk) {
    const int64_t len = std::min(L.chunk, bins - off);
    auto launch = [&](const char* entry, const launch::Grid& grid, int64_t high) {
      KernelArgs args = step_args(ctx, step, layout, msg, step.bins, off, packed(len, high), outs, parts, frees);
      launch_kernel(ctx.device, mod, entry, grid, args);
    };
    const launch::Grid combine = launch::grid_stride(dev, len, launch::kHistGlobalBlock);
    if (L.memory == launch::HistMemory::Shared) {
      launch::Grid g = L.update;
      g.dynamic_smem = cg::seghist_shared_bytes(step, L.m * len, L.atomic);
      launch("thorn_hist_shared", g, L.m);
      launch("thorn_hist_combine", combine, L.rows);
    } else if (L.rows > 0) {
      launch("thorn_hist_init", launch::grid_stride(dev, L.rows * len, launch::kHistGlobalBlock), L.rows);
      launch("thorn_hist_global", L.update, L.m);
      launch("thorn_hist_combine", combine, L.rows);
    } else {
      if (lock) CU_CALL(cuMemsetD8Async, parts[k], 0, size_t(len) * 4, ctx.device.stream());
      launch("thorn_hist_global", L.update, 0);
    }
  }
}

}  // namespace thorn::gpu::exec
