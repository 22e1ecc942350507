#include "interp/exec/dispatch.hpp"

#include "interp/eval/ad_fwd.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/exec/host_backend.hpp"
#include "interp/exec/reference.hpp"

namespace thorn::exec {

std::string_view soac_name(SoacKind k) {
  switch (k) {
    case SoacKind::Map: return "map";
    case SoacKind::Reduce: return "reduce";
    case SoacKind::ReduceComm: return "reduce_comm";
    case SoacKind::Scan: return "scan";
    case SoacKind::ReduceByIndex: return "reduce_by_index";
    case SoacKind::Scatter: return "scatter";
    case SoacKind::Filter: return "filter";
    case SoacKind::Partition: return "partition";
    case SoacKind::Partition2: return "partition2";
    case SoacKind::Iota: return "iota";
    case SoacKind::Replicate: return "replicate";
    case SoacKind::Transpose: return "transpose";
    case SoacKind::Concat: return "concat";
    case SoacKind::Flatten: return "flatten";
    case SoacKind::Unflatten: return "unflatten";
    case SoacKind::Rotate: return "rotate";
    case SoacKind::Zip: return "zip";
    case SoacKind::Unzip: return "unzip";
  }
  return "?";
}

// "gpu" is always available: without a usable device its plans run on the
// host executor (host_gpu.hpp); the CLI says so when it was asked for.
bool backend_available(std::string_view name) { return name == "reference" || name == "host" || name == "gpu"; }

Value dispatch(SoacCall& call, eval::Evaluator& ev) {
  return ev.with_loc(call.loc, [&] {
    // The host backend takes the calls it can flatten (host_backend.hpp);
    // the rest, and everything under --backend reference, run here.
    // --backend gpu goes through the host backend too: its plans run on
    // the GPU executor (host_gpu.hpp) instead of the host executor.
    // Inside jvp/vjp, values carry derivatives that only the reference
    // backend's element-by-element evaluation propagates.
    if (ev.ad_active == 0 && (ev.options().backend == "host" || ev.options().backend == "gpu")) {
      eval::ad::PlanningEvaluator planning(ev);  // for jvp2/vjp2 in mapped functions (lower_ad.cpp)
      if (auto v = host_backend::run(call, ev)) return std::move(*v);
    }
    return reference::run(call, ev);
  });
}

}  // namespace thorn::exec
