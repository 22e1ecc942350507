#pragma once
// Device code of the SegHist skeleton that depends on the operator
// (hist_atomic.cpp), used by the kernels of hist.cpp:
//
//   struct thorn_hview                one pointer per histogram component (memory types)
//   thorn_hview_at(h, off)            the view from bin `off` on
//   thorn_hload(h, i) / thorn_hstore(h, i, a)
//   thorn_hupdate(env, h, locks, i, x)  bin i ⊕= x atomically (hardware, CAS or lock)
#include <string>
#include <vector>

#include "gpu/codegen/common.hpp"

namespace thorn::gpu::cg::detail {

std::string hist_view_fns(const std::vector<Prim>& types);
// Throws Internal when the operator does not allow `atomic` (hist_atomic_allowed).
std::string hist_update_fn(const plan::Step& step, launch::HistAtomic atomic);

}  // namespace thorn::gpu::cg::detail
