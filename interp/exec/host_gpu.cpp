#include "interp/exec/host_gpu.hpp"

#include <atomic>
#include <cstdio>

#include "gpu/executor.hpp"
#include "interp/exec/gpu_recovery.hpp"
#include "interp/exec/host_executor.hpp"
#include "interp/util/error.hpp"

namespace thorn::exec::host_gpu {

bool gpu_usable(std::string* why) { return gpu::GpuBackend::get(why) != nullptr; }

int64_t gpu_resident_threads() {
  gpu::GpuBackend* g = gpu::GpuBackend::get();
  if (!g) return 0;
  return int64_t(g->props().sm_count) * g->props().max_threads_per_sm;
}

namespace {

// Set after the first GPU failure: the notice is printed once per process.
std::atomic<bool> g_fallback_noticed{false};

void run_plan(const plan::Plan& p, std::vector<BufferPtr>& buffers) {
  gpu::GpuBackend* g = gpu::GpuBackend::get();
  if (g && gpu::GpuBackend::supports(p) && gpu::should_offload(p, buffers).offload) {
    std::vector<char> valid = host_valid_before(buffers);
    try {
      g->execute(p, buffers);
      attach_recovery(p, buffers, valid);
      return;
    } catch (const gpu::CheckWithoutValues&) {
      // The program's error, whose values the host reports: the same
      // element fails its Check there.
      host::execute(p, buffers);
      throw;
    } catch (const Error& e) {
      if (e.kind != ErrorKind::Gpu) throw;  // a failed Check: the program's error
      // One line, whatever the cause (an NVRTC log has many).
      std::string first = e.message.substr(0, e.message.find('\n'));
      if (!g_fallback_noticed.exchange(true))
        std::fprintf(stderr, "thorn: GPU failure (%s); running on the host\n", first.c_str());
      // execute() reset written buffers to their host copies: rerun here.
    }
  }
  host::execute(p, buffers);
}

}  // namespace

flatten::PlanExecutor plan_executor() { return &run_plan; }

}  // namespace thorn::exec::host_gpu
