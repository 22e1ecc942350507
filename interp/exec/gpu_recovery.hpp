#pragma once
// Values the GPU made stay readable after a device fault. A sticky fault
// (illegal address, launch timeout) loses the whole CUDA context, and with
// it every buffer whose only current copy is on the device. So each such
// buffer carries a gpu::Recovery: the plan that made it and its inputs
// (host buffers, or their own recoveries), which the host executor reruns
// when the download fails. In-place updates (scatter destinations) start
// from the buffer's host bytes, which nothing changes while the device copy
// is the current one (host_mut() downloads first).
//
// The cost: a recovery holds its host inputs (so in-place updates of those
// copy instead, Futhark's uniqueness rules being checked by use count) and
// its plan. Chains are cut every kMaxDepth plans by downloading the result.
#include <vector>

#include "interp/core/value.hpp"
#include "interp/flatten/plan.hpp"

namespace thorn::exec::host_gpu {

// Plans in a chain of recoveries before its result is downloaded.
constexpr int kMaxRecoveryDepth = 32;

// Before GpuBackend::execute: which plan buffers are current on the host.
std::vector<char> host_valid_before(const std::vector<BufferPtr>& buffers);

// After a successful GpuBackend::execute: gives every buffer the plan left
// only on the device a Recovery (or downloads it, at the depth limit).
void attach_recovery(const plan::Plan& p, std::vector<BufferPtr>& buffers, const std::vector<char>& host_valid_before);

}  // namespace thorn::exec::host_gpu
