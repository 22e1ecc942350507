#include "gpu/exec/step_runner.hpp"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "gpu/codegen/constants.hpp"
#include "gpu/codegen/fingerprint.hpp"
#include "gpu/driver/cuda.hpp"
#include "gpu/memory/residency.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::exec {

std::vector<MessageBase> message_bases(const plan::Plan& plan) {
  std::vector<MessageBase> out;
  int next = 0;
  for (const plan::Step& s : plan.steps) {
    MessageBase b;
    b.elem = next;
    next += int(s.element.messages.size());
    b.op = next;
    next += int(s.op.messages.size());
    out.push_back(b);
  }
  return out;
}

Buffer& plan_buffer(RunContext& ctx, int id) {
  if (id < 0 || size_t(id) >= ctx.plan.buffers.size())
    throw Error(ErrorKind::Internal, fmt::format("plan refers to buffer {} of {}", id, ctx.plan.buffers.size()));
  if (ctx.buffers.size() < ctx.plan.buffers.size()) ctx.buffers.resize(ctx.plan.buffers.size());
  BufferPtr& b = ctx.buffers[size_t(id)];
  if (!b) {
    const plan::BufferDesc& d = ctx.plan.buffers[size_t(id)];
    if (d.is_input)
      throw Error(ErrorKind::Internal, fmt::format("input buffer {} ({}) was not provided", id, d.name));
    b = std::make_shared<Buffer>(d.elem, d.count);
  }
  return *b;
}

namespace {
void keep_copy(RunContext& ctx, Buffer& b) {
  if (b.device) ctx.keep.push_back(b.device);
}
void note(std::vector<int>& ids, int id) {
  if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
}
}  // namespace

CUdeviceptr read_ptr(RunContext& ctx, int id) {
  Buffer& b = plan_buffer(ctx, id);
  CUdeviceptr p = resident_for_read(ctx.device, b);
  keep_copy(ctx, b);
  return p;
}

CUdeviceptr write_ptr(RunContext& ctx, int id) {
  Buffer& b = plan_buffer(ctx, id);
  CUdeviceptr p = resident_for_write(ctx.device, b);
  keep_copy(ctx, b);
  note(ctx.written, id);
  return p;
}

CUdeviceptr update_ptr(RunContext& ctx, int id) {
  Buffer& b = plan_buffer(ctx, id);
  CUdeviceptr p = resident_for_update(ctx.device, b);
  keep_copy(ctx, b);
  note(ctx.updated, id);
  return p;
}

void expect_buffer(RunContext& ctx, const plan::Step& step, int id, Prim t, int64_t count, const char* what) {
  Buffer& b = plan_buffer(ctx, id);
  if (b.elem() != t || b.count() < count)
    throw Error(ErrorKind::Internal,
                fmt::format("{} step: {} buffer {} holds {} x {}, needs {} x {}", plan::step_kind_name(step.kind),
                            what, id, b.count(), prim_name(b.elem()), count, prim_name(t)));
}

std::vector<CUdeviceptr> free_array_ptrs(RunContext& ctx, const plan::Step& step) {
  if (step.reads.size() != step.element.free_arrays.size())
    throw Error(ErrorKind::Internal, fmt::format("{} step binds {} buffers to {} free arrays",
                                                 plan::step_kind_name(step.kind), step.reads.size(),
                                                 step.element.free_arrays.size()));
  std::vector<CUdeviceptr> out;
  for (size_t k = 0; k < step.reads.size(); ++k) {
    expect_buffer(ctx, step, step.reads[k], step.element.free_arrays[k].elem, 0, "input");
    // A `written` free array is an output the kernel stores rows into: no upload.
    out.push_back(step.element.free_arrays[k].written ? write_ptr(ctx, step.reads[k]) : read_ptr(ctx, step.reads[k]));
  }
  return out;
}

KernelArgs step_args(const RunContext& ctx, const plan::Step& step, const cg::detail::StepLayout& layout,
                     MessageBase msg, int64_t p1, int64_t p2, int64_t p3, const std::vector<CUdeviceptr>& outs,
                     const std::vector<CUdeviceptr>& parts, const std::vector<CUdeviceptr>& frees) {
  KernelArgs a;
  a.ptr(ctx.err);
  a.i32(msg.elem);
  a.i32(msg.op);
  a.i64(step.segments);
  a.i64(step.segment_size);
  a.i64(p1);
  a.i64(p2);
  a.i64(p3);
  if (!layout.consts.values.empty()) {
    std::vector<uint64_t> bits = cg::constant_bits(layout.consts);
    a.bytes(bits.data(), bits.size() * sizeof(uint64_t));
  }
  auto add_all = [&](const std::vector<CUdeviceptr>& ps, size_t expected, const char* what) {
    if (ps.size() != expected)
      throw Error(ErrorKind::Internal, fmt::format("{} step: {} {} pointers for {} parameters",
                                                   plan::step_kind_name(step.kind), ps.size(), what, expected));
    for (CUdeviceptr p : ps) a.ptr(p);
  };
  add_all(outs, layout.outs.size(), "output");
  add_all(parts, layout.parts.size(), "partial");
  add_all(frees, layout.frees.size(), "input");
  return a;
}

const jit::Module& step_module(const Device& device, const plan::Step& step, const std::string& variant,
                               const std::function<cg::KernelSource()>& generate) {
  // Process-wide, by structure: skips code generation on a hit. Entries
  // made before the module cache last unloaded modules are stale (their
  // module may be gone); the map is then started afresh.
  static std::mutex mu;
  static auto* modules = new std::unordered_map<std::string, const jit::Module*>();
  static uint64_t generation = 0;
  // With `mu` held. Several keys may name one module (the map may hold
  // more entries than modules are loaded): bounded too, started afresh
  // past 4x the modules.
  auto forget_if_stale = [] {
    if (generation != jit::ModuleCache::generation() || modules->size() >= 4 * jit::ModuleCache::max_modules()) {
      modules->clear();
      generation = jit::ModuleCache::generation();
    }
  };
  std::string key = variant + '\0' + cg::structural_key(step);
  {
    std::lock_guard<std::mutex> lock(mu);
    forget_if_stale();
    auto it = modules->find(key);
    if (it != modules->end()) {
      jit::KernelCache::get().note_memory_hit(it->second->stats());
      return *it->second;
    }
  }
  const jit::Module& m = jit::ModuleCache::load(device, generate());
  std::lock_guard<std::mutex> lock(mu);
  forget_if_stale();  // the load may have unloaded modules
  (*modules)[key] = &m;
  return m;
}

void launch_kernel(const Device& device, const jit::Module& module, const std::string& entry,
                   const launch::Grid& grid, KernelArgs& args) {
  const jit::LoadedKernel& k = module.kernel(entry);
  const DeviceProps& p = device.props();
  if (grid.blocks <= 0) return;
  if (grid.blocks > p.max_grid_x)
    throw Error(ErrorKind::Gpu, fmt::format("kernel {} needs {} blocks, more than the device's {}", module.name(),
                                            grid.blocks, p.max_grid_x));
  if (grid.threads > k.max_threads)
    throw Error(ErrorKind::Gpu, fmt::format("kernel {} can run {} threads per block, not {}", module.name(),
                                            k.max_threads, grid.threads));
  if (grid.dynamic_smem > size_t(p.shared_per_block)) {
    // Beyond 48 KiB a kernel must opt in.
    if (grid.dynamic_smem + size_t(k.static_smem) > size_t(p.shared_per_block_optin))
      throw Error(ErrorKind::Gpu, fmt::format("kernel {} needs {} bytes of shared memory", module.name(),
                                              grid.dynamic_smem + size_t(k.static_smem)));
    CU_CALL(cuFuncSetAttribute, k.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(grid.dynamic_smem));
  }
  CU_CALL(cuLaunchKernel, k.fn, unsigned(grid.blocks), 1, 1, unsigned(grid.threads), 1, 1,
          unsigned(grid.dynamic_smem), device.stream(), args.pointers(), nullptr);
  jit::KernelCache::get().note_launch(module.stats());
}

CUdeviceptr scratch(RunContext& ctx, size_t bytes) {
  auto copy = std::make_shared<DeviceCopy>(ctx.device, bytes);
  CUdeviceptr p = copy->ptr();
  ctx.keep.push_back(std::move(copy));
  return p;
}

cg::CodegenOptions codegen_options(const std::vector<CUdeviceptr>& outs, const std::vector<CUdeviceptr>& frees) {
  cg::CodegenOptions o;
  o.block_size = launch::kBlock;
  // Inputs may be read through the read-only cache when no output of the
  // step is also one of its inputs.
  o.noalias = std::none_of(outs.begin(), outs.end(), [&](CUdeviceptr w) {
    return w != 0 && std::find(frees.begin(), frees.end(), w) != frees.end();
  });
  return o;
}

}  // namespace thorn::gpu::exec
