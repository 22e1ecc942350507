// SegHist on the device: gpu/launch/hist_launch.cpp decides the update,
// the memory and the passes (after sampling the input for the race factor
// when the global-memory model would use it); per pass over a chunk of bins:
//   shared: thorn_hist_shared (one subhistogram row per block), then
//           thorn_hist_combine over those rows into the destinations;
//   global, M > 1: thorn_hist_init (rows := ne), thorn_hist_global,
//           thorn_hist_combine;
//   global, M = 1: the locks zeroed (Lock), thorn_hist_global straight
//           into the destinations.
// Every launch goes to the one stream in order, so the rows and locks are
// reused from pass to pass. The destinations are updated in place: their
// current contents must be on the device first (update_ptr).
#include <algorithm>
#include <mutex>

#include <fmt/format.h>

#include "gpu/driver/cuda.hpp"
#include "gpu/exec/step_runner.hpp"
#include "gpu/launch/hist_launch.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::exec {

namespace {
size_t align16(size_t v) { return (v + 15) / 16 * 16; }
int64_t packed(int64_t len, int64_t high) { return len | (high << cg::kHistLenBits); }

std::mutex trace_mu;
HistTrace trace;

// The race-factor inspector (gpu/launch/hist_launch.hpp): each group of
// consecutive elements, evenly spread over the input, marks the bins it
// hits in its own flag words and counts the distinct ones; RF is the mean
// of group / distinct. One small download, so the host waits for the
// stream here (once per SegHist step, and only when the model may use RF).
double inspect_race_factor(RunContext& ctx, const plan::Step& step, const cg::detail::StepLayout& layout,
                           MessageBase msg, const jit::Module& mod, const launch::HistInspection& ins,
                           const std::vector<CUdeviceptr>& outs, std::vector<CUdeviceptr> parts,
                           const std::vector<CUdeviceptr>& frees, int64_t total) {
  const size_t words = size_t(ins.group) + 1;  // flags, then the counter
  const CUdeviceptr flags = scratch(ctx, size_t(ins.groups) * words * 4);
  CU_CALL(cuMemsetD32Async, flags, 0u, size_t(ins.groups) * words, ctx.device.stream());
  const int64_t stride = total / ins.groups;
  for (int64_t g = 0; g < ins.groups; ++g) {
    parts.back() = flags + CUdeviceptr(size_t(g) * words * 4);
    KernelArgs args = step_args(ctx, step, layout, msg, step.bins, g * stride, ins.group, outs, parts, frees);
    launch_kernel(ctx.device, mod, "thorn_hist_sample", launch::grid_stride(ctx.device.props(), ins.group,
                                                                          launch::kHistGlobalBlock), args);
  }
  std::vector<uint32_t> distinct(size_t(ins.groups), 0);
  for (int64_t g = 0; g < ins.groups; ++g)
    CU_CALL(cuMemcpyDtoHAsync, &distinct[size_t(g)], flags + CUdeviceptr((size_t(g) * words + words - 1) * 4), 4,
            ctx.device.stream());
  CU_CALL(cuStreamSynchronize, ctx.device.stream());
  double rf = 0;
  for (uint32_t d : distinct) rf += double(ins.group) / double(std::max<uint32_t>(1, d));
  return std::max(1.0, rf / double(ins.groups));
}
}  // namespace

HistTrace last_hist_trace() {
  std::lock_guard<std::mutex> lock(trace_mu);
  return trace;
}

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

  const launch::HistAtomic atomic = launch::hist_atomic_for(step);
  cg::CodegenOptions opts = codegen_options(outs, frees);
  opts.block_size = launch::kHistGlobalBlock;
  const jit::Module& mod = step_module(ctx.device, step, fmt::format("seghist {} {}", int(atomic), opts.noalias),
                                       [&] { return cg::gen_seghist(step, atomic, opts); });
  const launch::HistInspection ins = launch::hist_inspection(ctx.device.props(), step, total);
  double rf = ins.forced_rf > 0 ? ins.forced_rf : 1.0;
  if (ins.groups > 0) {
    std::vector<CUdeviceptr> no_rows(k + 1, 0);
    rf = inspect_race_factor(ctx, step, layout, msg, mod, ins, outs, no_rows, frees, total);
  }
  const launch::SegHistLaunch L = launch::plan_seghist(ctx.device.props(), step, total, rf);
  {
    std::lock_guard<std::mutex> lock(trace_mu);
    trace = HistTrace{ins.groups > 0, rf, L.why};
  }

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
