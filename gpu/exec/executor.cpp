#include "gpu/executor.hpp"

#include <algorithm>
#include <mutex>

#include <fmt/format.h>

#include "gpu/codegen/kir_to_cuda.hpp"
#include "gpu/driver/cuda.hpp"
#include "gpu/driver/nvrtc.hpp"
#include "gpu/exec/step_runner.hpp"
#include "gpu/jit/kernel_cache.hpp"
#include "gpu/jit/module_cache.hpp"
#include "gpu/memory/pool.hpp"
#include "gpu/memory/residency.hpp"
#include "interp/util/cancel.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu {

struct BackendHolder {
  std::once_flag once;
  GpuBackend* backend = nullptr;
  std::mutex mu;  // one execute() at a time: one stream, one error flag
};

namespace {
BackendHolder& holder() {
  static BackendHolder* h = new BackendHolder();  // process-wide, never destroyed
  return *h;
}

// Errors after which the context is unusable for the rest of the process.
bool is_sticky(const std::string& message) {
  for (const char* e : {"ILLEGAL_ADDRESS", "LAUNCH_FAILED", "LAUNCH_TIMEOUT", "MISALIGNED_ADDRESS", "ILLEGAL_INSTRUCTION",
                        "HARDWARE_STACK_ERROR", "ASSERT", "INVALID_PC", "ECC_UNCORRECTABLE"})
    if (message.find(e) != std::string::npos) return true;
  return false;
}
}  // namespace

GpuBackend* GpuBackend::get(std::string* why) {
  BackendHolder& h = holder();
  std::call_once(h.once, [&] {
    if (Device* d = Device::get()) h.backend = new GpuBackend(*d);
  });
  if (!h.backend) {
    if (why) *why = availability();
    return nullptr;
  }
  if (h.backend->broken_) {
    if (why) *why = h.backend->broken_why_;
    return nullptr;
  }
  return h.backend;
}

bool GpuBackend::supports(const plan::Step& step, std::string* why) {
  auto no = [&](std::string w) {
    if (why) *why = std::move(w);
    return false;
  };
  switch (step.kind) {
    case plan::StepKind::SegMap:
    case plan::StepKind::Scatter:
      break;
    case plan::StepKind::SegRed:
    case plan::StepKind::SegScan:
    case plan::StepKind::SegHist:
      // The same operator conditions for all three (private arrays: below).
      if (!step.op.free_arrays.empty()) return no("the operator reads arrays");
      if (step.neutral.empty()) return no("the operator has no accumulator");
      if (cg::function_params(step.op).size() != 2 * step.neutral.size())
        return no("the operator's arity does not match its neutral element");
      if (cg::function_results(step.op).size() != step.neutral.size())
        return no("the operator's results do not match its neutral element");
      break;
  }
  if (step.kind == plan::StepKind::SegHist) {
    // The element yields (i64 bin, the operator's values); anything else
    // is not a histogram the kernels of gpu/codegen/hist.cpp understand.
    std::vector<Prim> r = cg::function_results(step.element), t = cg::function_results(step.op);
    if (r.size() != t.size() + 1 || r[0] != Prim::I64) return no("the element does not yield (i64 bin, values)");
    if (!std::equal(t.begin(), t.end(), r.begin() + 1)) return no("the element's values differ from the operator's");
    if (step.bins < 0) return no("a negative bin count");
  }
  std::vector<Prim> params = cg::function_params(step.element);
  if (params.size() != 2 || params[0] != Prim::I64 || params[1] != Prim::I64)
    return no("the element function does not take (i64, i64)");
  if (step.reads.size() != step.element.free_arrays.size()) return no("free arrays are not all bound");
  // Private arrays live in each thread's local memory, which the driver
  // reserves for every thread the device can hold at once (about 270k on an
  // H100): larger ones would reserve gigabytes, so those plans stay on the host.
  if (step.element.local_bytes() > kMaxLocalBytes)
    return no(fmt::format("private arrays of {} bytes per element (more than {})", step.element.local_bytes(),
                          kMaxLocalBytes));
  if (!step.op.locals.empty()) return no("the operator uses private arrays");
  for (const kir::FreeArray& fa : step.element.free_arrays)
    if (fa.written && step.kind != plan::StepKind::SegMap)
      return no(fmt::format("{} step writes rows of a free array", plan::step_kind_name(step.kind)));
  if (step.kind == plan::StepKind::Scatter) {
    std::vector<Prim> r = cg::function_results(step.element);
    if (r.empty() || !is_integral(r[0])) return no("the scatter index is not an integer");
  }
  return true;
}

bool GpuBackend::supports(const plan::Plan& plan, std::string* why) {
  if (!plan.fallback.empty()) {
    if (why) *why = "the nest was not flattened: " + plan.fallback;
    return false;
  }
  for (const plan::Step& s : plan.steps)
    if (!supports(s, why)) return false;
  return true;
}

const DeviceProps& GpuBackend::props() const { return device_.props(); }

void GpuBackend::execute(const plan::Plan& plan, std::vector<BufferPtr>& buffers) {
  std::lock_guard<std::mutex> lock(holder().mu);
  if (broken_) throw Error(ErrorKind::Gpu, broken_why_);
  for (const plan::Step& s : plan.steps) {
    std::string why;
    if (!supports(s, &why))
      throw Error(ErrorKind::Gpu, fmt::format("{} step: {}", plan::step_kind_name(s.kind), why));
  }
  if (buffers.size() < plan.buffers.size()) buffers.resize(plan.buffers.size());
  device_.make_current();
  exec::RunContext ctx{device_, plan, buffers};
  std::vector<exec::MessageBase> bases = exec::message_bases(plan);
  int32_t flag = 0;
  try {
    if (!error_flag_) error_flag_ = new DeviceCopy(device_, sizeof(int32_t));
    ctx.err = error_flag_->ptr();
    if (error_flag_dirty_) {
      CU_CALL(cuMemsetD32Async, ctx.err, 0u, 1, device_.stream());
      error_flag_dirty_ = false;
    }
    // Until the flag has been read back as zero, treat it as set.
    error_flag_dirty_ = true;
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      // Ctrl-C: stop at a kernel boundary; what was queued is abandoned (the
      // written buffers go back to their host state below).
      check_cancel();
      const plan::Step& s = plan.steps[i];
      switch (s.kind) {
        case plan::StepKind::SegMap: exec::run_segmap(ctx, s, bases[i]); break;
        case plan::StepKind::SegRed: exec::run_segred(ctx, s, bases[i]); break;
        case plan::StepKind::SegScan: exec::run_segscan(ctx, s, bases[i]); break;
        case plan::StepKind::SegHist: exec::run_seghist(ctx, s, bases[i]); break;
        case plan::StepKind::Scatter: exec::run_scatter(ctx, s, bases[i]); break;
      }
    }
    // Reading the flag waits for every kernel: errors surface here, at the nest.
    CU_CALL(cuMemcpyDtoHAsync, &flag, ctx.err, sizeof flag, device_.stream());
    CU_CALL(cuStreamSynchronize, device_.stream());
    error_flag_dirty_ = flag != 0;
  } catch (const Error& e) {
    // Overwritten buffers hold nothing useful: back to their host state, so
    // a host fallback starts clean. Updated ones (scatter destinations) that
    // were current on the host still hold their contents from before the
    // plan there: drop the partly updated device copy. Those only on the
    // device keep it (a partly applied scatter is applied again in full by
    // the fallback, with the same result), and with it their Recovery, which
    // still describes the contents before this plan if the device is lost.
    for (int id : ctx.written)
      if (std::find(ctx.updated.begin(), ctx.updated.end(), id) == ctx.updated.end())
        if (BufferPtr& b = buffers[size_t(id)]) b->host_written();
    for (int id : ctx.updated)
      if (BufferPtr& b = buffers[size_t(id)]; b && b->host_valid) b->host_written();
    if (e.kind == ErrorKind::Gpu && is_sticky(e.message)) {
      broken_ = true;
      broken_why_ = "GPU disabled after a device fault: " + e.message;
    }
    throw;
  }
  for (int id : ctx.written) mark_written_on_device(*buffers[size_t(id)]);
  for (int id : ctx.updated) mark_written_on_device(*buffers[size_t(id)]);
  if (flag != 0) {
    // Find the Check that failed: its step, function and message.
    int id = flag - 1;
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      const plan::Step& s = plan.steps[i];
      for (const kir::Function* f : {&s.element, &s.op}) {
        int base = f == &s.element ? bases[i].elem : bases[i].op;
        if (id >= base && id < base + int(f->messages.size())) {
          size_t k = size_t(id - base);
          Loc loc = k < f->message_locs.size() && f->message_locs[k].known() ? f->message_locs[k] : s.loc;
          std::string text = kir::check_message(f->messages[k], nullptr);
          if (f->messages[k].find("{}") != std::string::npos) throw CheckWithoutValues(ErrorKind::Runtime, loc, text);
          throw Error(ErrorKind::Runtime, loc, text);
        }
      }
    }
    throw Error(ErrorKind::Internal, fmt::format("GPU kernel reported unknown error {}", flag));
  }
}

std::string GpuBackend::report() const {
  PoolStats ps = DevicePool::get(device_).stats();
  TransferStats ts = transfer_stats();
  auto mib = [](uint64_t b) { return double(b) / 1048576.0; };
  std::string s = fmt::format("device: {}\n", device_.props().describe());
  s += fmt::format("NVRTC: {} ({})\n", Nvrtc::get().version_string(), Nvrtc::get().path());
  s += fmt::format("kernel cache: {}\n", jit::KernelCache::get().disk().enabled()
                                             ? jit::KernelCache::get().disk().dir()
                                             : std::string("disk cache off"));
  s += fmt::format("memory pool: {:.1f} MiB in use, {:.1f} MiB cached, peak {:.1f} MiB; {} allocations, {} reuses\n",
                   mib(ps.in_use), mib(ps.cached), mib(ps.peak), ps.allocations, ps.reuses);
  s += fmt::format("transfers: {} uploads ({:.1f} MiB), {} downloads ({:.1f} MiB)\n", ts.uploads,
                   mib(ts.upload_bytes), ts.downloads, mib(ts.download_bytes));
  s += fmt::format("modules: {} loaded (at most {}, THORN_GPU_MAX_MODULES), {} unloaded\n",
                   jit::ModuleCache::loaded(), jit::ModuleCache::max_modules(), jit::ModuleCache::unloaded());
  jit::KernelTotals kt = jit::KernelCache::get().totals();
  s += fmt::format("kernel binaries in memory: {} (at most {}, THORN_GPU_MAX_KERNELS), {} dropped\n",
                   jit::KernelCache::get().size(), jit::KernelCache::max_kernels(), kt.dropped);
  if (ts.evictions)
    s += fmt::format("evictions: {} device copies of host arrays ({:.1f} MiB) dropped when memory ran short\n",
                     ts.evictions, mib(ts.eviction_bytes));
  return s;
}

}  // namespace thorn::gpu
