#pragma once
// The GPU backend as the dispatcher (interp/exec) sees it.
//
//   std::string why;
//   if (gpu::GpuBackend* gpu = gpu::GpuBackend::get(&why);
//       gpu && gpu::GpuBackend::supports(plan) && gpu::should_offload(plan, buffers).offload) {
//     try {
//       gpu->execute(plan, buffers);          // results stay on the device
//     } catch (const Error& e) {
//       if (e.kind != ErrorKind::Gpu) throw;  // a failed Check: the program's error
//       run_on_host(plan, buffers);           // out of memory, launch failure: host fallback
//     }
//   }
//
// Steps run in order on one stream; buffers produced by one step and read by
// the next never leave the device. After execute(), output buffers are
// device-resident (Buffer::host_valid == false) and are downloaded by
// Buffer::host() when the host needs them; inputs keep an uploaded mirror for
// later plans (host code writing a buffer in place must call
// Buffer::host_written(), see gpu/memory/residency.hpp).
//
// Supported steps: SegMap, SegRed (reduce / segmented reduce / redomap, any
// tuple operator, commutative or not), SegScan, SegHist (hist /
// reduce_by_index, batched; docs/gpu.md), Scatter. supports() says no for
// what the kernels cannot run, and the caller runs those plans on the host.
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/driver/device.hpp"
#include "interp/core/value.hpp"
#include "interp/flatten/plan.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu {

class DeviceCopy;

// A failed Check whose message reports values ("Index [{}:{}] out of
// bounds ..."): the kernel's error flag carries none, so the host runs the
// plan again to report them (host_gpu.cpp).
struct CheckWithoutValues : Error {
  using Error::Error;
};

class GpuBackend {
 public:
  // The backend, initialised on first use; null when the GPU is unusable,
  // with the reason (availability()) in *why. Thread-safe.
  static GpuBackend* get(std::string* why = nullptr);

  // Whether the GPU backend can run the step / every step of the plan; *why
  // says what is missing when not.
  static bool supports(const plan::Step& step, std::string* why = nullptr);
  // Most bytes of private arrays (kir::LocalArray) per element on the GPU.
  static constexpr int64_t kMaxLocalBytes = 4096;
  static bool supports(const plan::Plan& plan, std::string* why = nullptr);

  // Runs the plan. buffers[i] is plan buffer i: inputs (BufferDesc::is_input)
  // must be set; the others may be null (allocated here, with the
  // BufferDesc's type and count) or preallocated. SegHist / Scatter
  // destinations must hold their initial contents.
  // Throws Error(Runtime, loc, message) when a Check fails in a kernel (the
  // program's error, as the host would report it), Error(Gpu) when the GPU
  // fails (out of memory, a compile or launch failure: the caller may run the
  // plan on the host; written buffers are then reset to their host copies),
  // Error(Internal) for a malformed plan.
  void execute(const plan::Plan& plan, std::vector<BufferPtr>& buffers);

  // A standalone transpose: [batches][rows][cols] elements of `in`, starting
  // `offset` elements in, to a new device-resident [batches][cols][rows].
  BufferPtr transpose(const BufferPtr& in, int64_t offset, int64_t batches, int64_t rows, int64_t cols);

  const DeviceProps& props() const;
  // Multi-line status for the REPL: device, memory pool, transfers, kernels.
  std::string report() const;

 private:
  explicit GpuBackend(Device& d) : device_(d) {}
  Device& device_;
  bool broken_ = false;  // a kernel fault poisoned the context: no more GPU work
  std::string broken_why_;
  // The kernels' error flag: one int32 for the process, allocated on first
  // use and never freed (it must outlive every plan, and the pool, at exit).
  // It is zeroed only after a plan left it set or did not finish, which
  // saves a memset per dispatch.
  DeviceCopy* error_flag_ = nullptr;
  bool error_flag_dirty_ = true;
  friend struct BackendHolder;
};

// The dispatch heuristic: offload a plan when its work, less what moving its
// inputs to the device costs, reaches the threshold ($THORN_GPU_THRESHOLD,
// default 2^18 work units; one unit ~ one element through a few IR
// instructions). Inputs already on the device cost nothing to move; inputs
// only on the device count for the GPU (the host would download them). A
// threshold of 0 or less offloads every supported plan.
struct OffloadDecision {
  bool offload = false;
  int64_t work = 0;          // element evaluations weighted by IR size
  int64_t upload_bytes = 0;  // inputs without a current device copy
  int64_t download_bytes = 0;  // inputs whose only current copy is on the device
  int64_t threshold = 0;
  std::string why;
};
OffloadDecision should_offload(const plan::Plan& plan, const std::vector<BufferPtr>& buffers);
int64_t gpu_threshold();

// For the REPL: `:kernels` prints kernels_report() (every kernel compiled or
// loaded in this process: compile time, cache hits, launches); `:gpu`
// prints availability() and, with a device, GpuBackend::report().
std::string kernels_report();

}  // namespace thorn::gpu
