// The dispatch threshold (gpu/executor.hpp: should_offload).
#include <cstdlib>

#include <fmt/format.h>

#include "gpu/driver/dynlib.hpp"
#include "gpu/executor.hpp"
#include "gpu/jit/kernel_cache.hpp"
#include "gpu/memory/residency.hpp"

namespace thorn::gpu {

namespace {

int64_t instructions(const kir::Function& f, const kir::Block& b, int depth = 0) {
  int64_t n = 0;
  for (const kir::Instr& in : b.instrs) {
    ++n;
    for (const kir::Block& nb : in.blocks) n += 8 * instructions(f, nb, depth);  // loops run more than once
    // A call costs its subroutine's body (no recursion: the depth is a guard).
    if (in.op == kir::Opcode::Call && depth < 64 && in.aux >= 0 && size_t(in.aux) < f.subs.size())
      n += instructions(f, f.subs[size_t(in.aux)].body, depth + 1);
  }
  return n;
}

}  // namespace

std::string kernels_report() { return jit::format_kernel_stats(jit::KernelCache::get().stats()); }

int64_t gpu_threshold() {
  return env_int("THORN_GPU_THRESHOLD", int64_t(1) << 18);
}

OffloadDecision should_offload(const plan::Plan& plan, const std::vector<BufferPtr>& buffers) {
  OffloadDecision d;
  d.threshold = gpu_threshold();
  for (const plan::Step& s : plan.steps) {
    // One unit: an element through about four IR instructions.
    int64_t per = 1 + instructions(s.element, s.element.body) / 4;
    if (s.kind == plan::StepKind::SegRed || s.kind == plan::StepKind::SegScan || s.kind == plan::StepKind::SegHist)
      per += instructions(s.op, s.op.body) / 4;
    d.work += s.segments * s.segment_size * per;
  }
  for (size_t i = 0; i < plan.buffers.size() && i < buffers.size(); ++i) {
    if (!plan.buffers[i].is_input || !buffers[i]) continue;
    const Buffer& b = *buffers[i];
    if (!current_device_copy(b))
      d.upload_bytes += int64_t(b.bytes());  // the GPU must upload it
    else if (!b.host_valid)
      d.download_bytes += int64_t(b.bytes());  // only on the device: the host must download it
  }
  // Moving a byte over PCIe costs about an eighth of a unit of host work:
  // data already on the device makes small nests worth offloading (running
  // them on the host would download it), and a cheap map over freshly read
  // input rarely is. A threshold of 0 or less offloads every plan.
  int64_t net = d.work - d.upload_bytes / 8 + d.download_bytes / 8;
  d.offload = d.threshold <= 0 || net >= d.threshold;
  d.why = fmt::format("work {} - upload {} B / 8 + download {} B / 8 {} threshold {}", d.work, d.upload_bytes,
                      d.download_bytes, d.offload ? ">=" : "<", d.threshold);
  return d;
}

}  // namespace thorn::gpu
