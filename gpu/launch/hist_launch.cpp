#include "gpu/launch/hist_launch.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "gpu/driver/dynlib.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::launch {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Shared memory one block of the shared kernel may use: the SM's shared
// memory split among the blocks of kHistSharedBlock threads it holds at
// once (the paper's footnote 7: L / k), within what a block may opt into,
// less room for the kernel's static shared variables.
int64_t shared_budget(const DeviceProps& dev) {
  const int64_t per_sm_blocks =
      std::max(1, std::min(dev.max_threads_per_sm / cg::kHistSharedBlock, dev.max_blocks_per_sm));
  const int64_t per_block = std::min<int64_t>(dev.shared_per_block_optin, dev.shared_per_sm / per_sm_blocks);
  return std::max<int64_t>(0, per_block - 1024);
}

int64_t hw_threads(const DeviceProps& dev) { return int64_t(dev.sm_count) * dev.max_threads_per_sm; }

}  // namespace

HistAtomic hist_atomic_for(const plan::Step& step) {
  const HistAtomic best = cg::hist_best_atomic(step);
  const std::string f = env_or_empty("THORN_HIST_ATOMIC");
  HistAtomic want = best;
  if (f == "hdw") want = HistAtomic::Hardware;
  else if (f == "cas") want = HistAtomic::Cas;
  else if (f == "lock") want = HistAtomic::Lock;
  return cg::hist_atomic_allowed(step, want) ? want : best;
}

HistInspection hist_inspection(const DeviceProps& dev, const plan::Step& step, int64_t total) {
  HistInspection h;
  const std::string forced = env_or_empty("THORN_HIST_RF");
  if (!forced.empty()) {
    h.forced_rf = std::max(1.0, std::atof(forced.c_str()));
    return h;
  }
  const int64_t bins = step.segments * step.bins;
  if (bins <= 0 || total < 16 * bins) return h;
  const std::string mem = env_or_empty("THORN_HIST_MEMORY");
  const HistModelChoice c = hist_choose(hist_model_input(dev, step, total, bins, hist_atomic_for(step)));
  if (mem == "shared" || (mem.empty() && c.memory == HistMemory::Shared)) return h;
  h.group = bins;
  h.groups = std::min(kHistSampleGroups, total / (16 * bins));
  return h;
}

HistModelInput hist_model_input(const DeviceProps& dev, const plan::Step& step, int64_t total, int64_t bins,
                                HistAtomic atomic, double rf) {
  HistModelInput in;
  const double value = cg::hist_value_bytes(step);
  const double k = double(std::max<size_t>(1, step.neutral.size()));
  in.n = double(total);
  in.bins = double(bins);
  in.atomic = atomic;
  // Each value lives in its own array (tuple of arrays), the locks in
  // another: el_avg is the average of those element sizes (eq. 4, case 3).
  in.el_size = value + (atomic == HistAtomic::Lock ? 4 : 0);
  in.el_avg = atomic == HistAtomic::Lock ? (value + 4) / (k + 1) : value / k;
  in.threads = double(std::min(hw_threads(dev), total));
  in.block = cg::kHistSharedBlock;
  in.shared_bytes = double(shared_budget(dev));
  in.l2_bytes = double(dev.l2_bytes > 0 ? dev.l2_bytes : 4 << 20);
  in.l2_line = 128;  // bytes per L2 line on sm_80 / sm_90 (four 32-byte sectors)
  in.race_factor = rf;
  return in;
}

SegHistLaunch plan_seghist(const DeviceProps& dev, const plan::Step& step, int64_t total, double race_factor) {
  SegHistLaunch L;
  L.bins = step.segments * step.bins;
  if (L.bins <= 0 || total <= 0) throw Error(ErrorKind::Internal, "plan_seghist: an empty histogram or input");
  L.atomic = hist_atomic_for(step);
  L.race_factor = race_factor;
  const HistModelInput in = hist_model_input(dev, step, total, L.bins, L.atomic, race_factor);
  L.model = hist_choose(in);
  const std::string mem = env_or_empty("THORN_HIST_MEMORY");
  L.memory = mem == "shared" ? HistMemory::Shared : mem == "global" ? HistMemory::Global : L.model.memory;
  const int64_t forced_m = env_int("THORN_HIST_M", 0), forced_chunk = env_int("THORN_HIST_CHUNK", 0);
  const int64_t T = std::min(hw_threads(dev), total);

  if (L.memory == HistMemory::Shared) {
    const HistModelChoice sh = L.model.memory == HistMemory::Shared ? L.model : hist_shared_model(in);
    L.m = std::clamp<int64_t>(forced_m > 0 ? forced_m : sh.m, 1, cg::kHistSharedBlock);
    L.chunk = std::min(L.bins, forced_chunk > 0 ? forced_chunk : std::max<int64_t>(1, sh.chunk));
    // Fit the copies into the budget: fewer copies first (unless M was
    // forced), then the chunks that fit, evened out over the passes.
    const int64_t budget = shared_budget(dev);
    auto bytes = [&](int64_t cells) { return int64_t(cg::seghist_shared_bytes(step, cells, L.atomic)); };
    while (forced_m == 0 && L.m > 1 && bytes(L.m * L.chunk) > budget) L.m = std::max<int64_t>(1, L.m / 2);
    if (bytes(L.m * L.chunk) > budget) {
      const int64_t per_cell = std::max<int64_t>(1, bytes(1024) / 1024);
      L.chunk = std::max<int64_t>(1, budget / per_cell / L.m);
      while (L.chunk > 1 && bytes(L.m * L.chunk) > budget) --L.chunk;
      L.chunk = ceil_div(L.bins, ceil_div(L.bins, L.chunk));
    }
    if (bytes(L.m * L.chunk) > budget) L.memory = HistMemory::Global;  // not one bin fits: global memory
  }
  if (L.memory == HistMemory::Shared) {
    L.update = {ceil_div(T, cg::kHistSharedBlock), cg::kHistSharedBlock,
                cg::seghist_shared_bytes(step, L.m * L.chunk, L.atomic)};
    L.rows = L.update.blocks;
  } else {
    const HistModelChoice gl = L.model.memory == HistMemory::Global ? L.model : hist_global_model(in);
    L.m = std::clamp<int64_t>(forced_m > 0 ? forced_m : gl.m, 1, T);
    L.chunk = std::min(L.bins, forced_chunk > 0 ? forced_chunk : std::max<int64_t>(1, gl.chunk));
    L.update = {ceil_div(T, kHistGlobalBlock), kHistGlobalBlock, 0};
    L.rows = L.m == 1 ? 0 : L.m;  // one subhistogram: the destinations themselves
  }
  L.passes = ceil_div(L.bins, L.chunk);
  if (L.chunk >= (int64_t(1) << cg::kHistLenBits) || L.m >= (int64_t(1) << (63 - cg::kHistLenBits)) ||
      L.rows >= (int64_t(1) << (63 - cg::kHistLenBits)))
    throw Error(ErrorKind::Gpu, fmt::format("histogram of {} bins: chunks of {} bins are too large", L.bins, L.chunk));
  L.why = fmt::format("{} updates, {} memory: M={} chunk={} passes={} threads={} RF={:.3g} ({})",
                      hist_atomic_name(L.atomic), hist_memory_name(L.memory), L.m, L.chunk, L.passes,
                      L.update.blocks * L.update.threads, race_factor, L.model.why);
  return L;
}

}  // namespace thorn::gpu::launch
