#include "interp/exec/gpu_recovery.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "gpu/memory/residency.hpp"
#include "interp/exec/host_executor.hpp"

namespace thorn::exec::host_gpu {

namespace {

// One input of a recorded plan: a buffer to read (host() recovers it if
// needed), or, for an output of another GPU plan, only that plan's Lineage:
// holding the buffer would keep its device memory alive along a chain.
struct Source {
  BufferPtr buf;
  std::shared_ptr<const struct Lineage> lineage;
};

struct Lineage final : gpu::Recovery {
  std::shared_ptr<const plan::Plan> plan;
  std::vector<Source> inputs;  // per plan buffer; both empty: allocated by the plan, or `out`
  int out = -1;
  bool update = false;                     // `out` is an input updated in place (scatter destination)
  std::shared_ptr<const Lineage> before;   // update: how the device copy got its contents before this plan
  int depth = 1;

  static BufferPtr fresh(const Buffer& like) {
    return std::make_shared<Buffer>(like.elem(), like.count(), Buffer::NoInit{});
  }

  void recompute(std::byte* host, size_t bytes) const override {
    if (std::getenv("THORN_DEBUG_RECOVERY")) std::fprintf(stderr, "recovery: recomputing buffer %d (%zu B)\n", out, bytes);
    std::vector<BufferPtr> bufs(plan->buffers.size());
    for (size_t i = 0; i < bufs.size(); ++i) {
      const plan::BufferDesc& d = plan->buffers[i];
      if (int(i) == out) {
        if (!update) continue;
        // The update starts from the host bytes, brought up to date by the
        // plans that updated the device copy before this one.
        auto b = std::make_shared<Buffer>(d.elem, int64_t(bytes / size_t(prim_bytes(d.elem))), Buffer::NoInit{});
        std::memcpy(b->host_mut(), host, bytes);
        if (before) before->recompute(b->host_mut(), bytes);
        bufs[i] = b;
      } else if (inputs[i].buf) {
        bufs[i] = inputs[i].buf;
      } else if (inputs[i].lineage) {
        auto b = std::make_shared<Buffer>(d.elem, d.count, Buffer::NoInit{});
        inputs[i].lineage->recompute(b->host_mut(), b->bytes());
        bufs[i] = b;
      } else if (d.is_input) {
        bufs[i] = std::make_shared<Buffer>(d.elem, d.count);  // another updated output, discarded
      }
    }
    host::execute(*plan, bufs);
    std::memcpy(host, bufs[size_t(out)]->host(), bytes);
  }
};

std::shared_ptr<const Lineage> lineage_of(const Buffer& b) {
  const gpu::DeviceCopy* dc = gpu::current_device_copy(b);
  return dc ? std::dynamic_pointer_cast<const Lineage>(dc->recovery) : nullptr;
}

std::vector<char> written_by(const plan::Plan& p) {
  std::vector<char> w(p.buffers.size(), 0);
  for (const plan::Step& s : p.steps) {
    for (int id : s.writes) w.at(size_t(id)) = 1;
    for (size_t k = 0; k < s.reads.size() && k < s.element.free_arrays.size(); ++k)
      if (s.element.free_arrays[k].written) w.at(size_t(s.reads[k])) = 1;
  }
  return w;
}

}  // namespace

std::vector<char> host_valid_before(const std::vector<BufferPtr>& buffers) {
  std::vector<char> v;
  // A delayed producer counts: the GPU runs it into the host copy before uploading.
  for (const BufferPtr& b : buffers)
    v.push_back(b && (b->host_valid || (b->device && !b->device->in_device_memory())));
  return v;
}

void attach_recovery(const plan::Plan& p, std::vector<BufferPtr>& buffers, const std::vector<char>& valid_before) {
  std::vector<char> written = written_by(p);
  std::vector<Source> inputs(p.buffers.size());
  int depth = 0;
  bool recoverable = true;
  for (size_t i = 0; i < p.buffers.size() && i < buffers.size(); ++i) {
    if (!p.buffers[i].is_input || written[i] || !buffers[i]) continue;
    const BufferPtr& b = buffers[i];
    std::shared_ptr<const Lineage> lin = b->host_valid ? nullptr : lineage_of(*b);
    if (b->host_valid) {
      inputs[i].buf = b;
    } else if (!lin) {
      recoverable = false;  // lost with the device: download the results now
    } else {
      // An update's lineage needs that buffer's host bytes: keep the buffer.
      if (lin->update) inputs[i].buf = b;
      else inputs[i].lineage = lin;
      depth = std::max(depth, lin->depth);
    }
  }
  auto shared_plan = std::make_shared<const plan::Plan>(p);
  for (size_t w = 0; w < p.buffers.size() && w < buffers.size(); ++w) {
    if (!written[w] || !buffers[w]) continue;
    Buffer& b = *buffers[w];
    gpu::DeviceCopy* dc = gpu::current_device_copy(b);
    if (!dc || b.host_valid) continue;
    auto lin = std::make_shared<Lineage>();
    lin->plan = shared_plan;
    lin->inputs = inputs;
    lin->out = int(w);
    lin->update = p.buffers[w].is_input;
    lin->depth = depth + 1;
    bool ok = recoverable;
    if (lin->update && !(w < valid_before.size() && valid_before[w])) {
      // Only on the device before: its previous recovery (same copy) first.
      lin->before = std::dynamic_pointer_cast<const Lineage>(dc->recovery);
      if (!lin->before) ok = false;
      else lin->depth = std::max(lin->depth, lin->before->depth + 1);
    }
    if (ok && lin->depth <= kMaxRecoveryDepth) {
      dc->recovery = std::move(lin);
    } else {
      dc->recovery = nullptr;
      b.host();  // a checkpoint: current on the host too, nothing to recover
    }
  }
}

}  // namespace thorn::exec::host_gpu
