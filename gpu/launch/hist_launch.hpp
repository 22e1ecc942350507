#pragma once
// How one SegHist step runs (gpu/codegen/hist.cpp, gpu/exec/run_hist.cpp):
// the atomic update, shared or global subhistograms, M, the bins per pass,
// and the grids, from the cost model (hist_cost.hpp) fed with the real
// device's properties.
#include <cstdint>
#include <string>

#include "gpu/codegen/skeleton.hpp"
#include "gpu/driver/device.hpp"
#include "gpu/launch/hist_cost.hpp"
#include "gpu/launch/params.hpp"

namespace thorn::gpu::launch {

constexpr int kHistGlobalBlock = 256;  // the paper's block for global memory and the combine

struct SegHistLaunch {
  HistAtomic atomic = HistAtomic::Lock;
  HistMemory memory = HistMemory::Global;
  int64_t bins = 0;    // H: all segments' bins (segments * step.bins)
  int64_t m = 1;       // shared: copies per block; global: subhistograms (1: the destinations directly)
  int64_t chunk = 0;   // bins per pass
  int64_t passes = 0;  // ceil(bins / chunk)
  Grid update;         // thorn_hist_shared (kHistSharedBlock) or thorn_hist_global
  int64_t rows = 0;    // subhistogram rows the combine folds (0: none, global with m = 1)
  double race_factor = 1.0;
  HistModelChoice model;
  std::string why;
};

// The model's input for a step of `total` elements and `bins` flat bins on
// `dev` with updates `atomic` and race factor `rf`.
HistModelInput hist_model_input(const DeviceProps& dev, const plan::Step& step, int64_t total, int64_t bins,
                                HistAtomic atomic, double rf = 1.0);

// The update a step's histograms use: the strongest the operator allows,
// or THORN_HIST_ATOMIC's when the operator allows that.
HistAtomic hist_atomic_for(const plan::Step& step);

// The race-factor inspector (the paper's §III-D): `groups` groups of
// `group` consecutive elements (group = all bins) whose distinct bins give
// RF = group / distinct. Only the global-memory model uses RF, and the
// inspector evaluates the element function once more per sampled element,
// so it samples only when the model (with RF = 1) picks global memory and
// the groups are at most 1/16 of the input; else groups = 0.
// THORN_HIST_RF=X sets the race factor instead (no sampling).
struct HistInspection {
  int64_t groups = 0, group = 0;
  double forced_rf = 0;  // > 0: THORN_HIST_RF
};
constexpr int64_t kHistSampleGroups = 4;
HistInspection hist_inspection(const DeviceProps& dev, const plan::Step& step, int64_t total);

// Environment overrides (tests, tuning), applied where the operator allows:
//   THORN_HIST_ATOMIC=hdw|cas|lock   a weaker update than the operator allows
//   THORN_HIST_MEMORY=shared|global  force the subhistograms' memory
//   THORN_HIST_M=M                   subhistograms (global: 1 = the destinations directly)
//   THORN_HIST_CHUNK=BINS            bins per pass (forces several passes)
// bins > 0 and total > 0.
SegHistLaunch plan_seghist(const DeviceProps& dev, const plan::Step& step, int64_t total, double race_factor = 1.0);

}  // namespace thorn::gpu::launch
