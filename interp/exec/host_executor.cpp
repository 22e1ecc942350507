#include "interp/exec/host_executor.hpp"
#include "interp/exec/host_tiled.hpp"

#include <fmt/format.h>

#include "interp/exec/host_step.hpp"
#include "interp/flatten/delayed.hpp"
#include "interp/util/error.hpp"

namespace thorn::host {

namespace {

[[noreturn]] void bad_plan(const plan::Step& s, const std::string& what) {
  throw Error(ErrorKind::Internal, s.loc,
              fmt::format("host executor: malformed {} step: {}", plan::step_kind_name(s.kind), what));
}

void need(const plan::Step& s, std::vector<BufferPtr>& bufs, int id, Prim t, int64_t count,
          const char* role) {
  if (id < 0 || size_t(id) >= bufs.size() || !bufs[size_t(id)])
    bad_plan(s, fmt::format("{} buffer b{} is missing", role, id));
  const Buffer& b = *bufs[size_t(id)];
  if (b.elem() != t)
    bad_plan(s, fmt::format("{} buffer b{} holds {}, expected {}", role, id, prim_name(b.elem()),
                            prim_name(t)));
  if (b.count() < count)
    bad_plan(s, fmt::format("{} buffer b{} has {} elements, needs {}", role, id, b.count(), count));
}

// Checks the step's shape against its functions and buffers before running,
// so that kernels can index without checks of their own.
void check_step(const plan::Step& s, std::vector<BufferPtr>& bufs) {
  if (s.segments < 0 || s.segment_size < 0) bad_plan(s, "negative sizes");
  if (std::string err = kir::verify(s.element); !err.empty()) bad_plan(s, "element: " + err);
  auto params = s.element.param_types();
  if (params.size() != 2 || params[0] != Prim::I64 || params[1] != Prim::I64)
    bad_plan(s, "the element function must take (i64, i64)");
  auto res = s.element.result_types();
  int64_t total = s.segments * s.segment_size;
  size_t k = 0;  // operator arity
  if (s.kind == plan::StepKind::SegRed || s.kind == plan::StepKind::SegScan ||
      s.kind == plan::StepKind::SegHist) {
    if (std::string err = kir::verify(s.op); !err.empty()) bad_plan(s, "operator: " + err);
    auto ot = s.op.result_types();
    auto op_params = s.op.param_types();
    k = ot.size();
    if (op_params.size() != 2 * k) bad_plan(s, "the operator must take 2k parameters for k results");
    for (size_t r = 0; r < k; ++r)
      if (op_params[r] != ot[r] || op_params[k + r] != ot[r]) bad_plan(s, "operator types disagree");
    if (s.neutral.size() != k) bad_plan(s, "neutral element arity differs from the operator's");
  }
  switch (s.kind) {
    case plan::StepKind::SegMap:
      if (s.writes.size() != res.size()) bad_plan(s, "one output buffer per result expected");
      for (size_t r = 0; r < res.size(); ++r) need(s, bufs, s.writes[r], res[r], total, "output");
      break;
    case plan::StepKind::SegRed: {
      size_t m = size_t(s.num_map_outputs);
      if (res.size() != m + k) bad_plan(s, "element results must be map-part outputs then operator inputs");
      if (s.writes.size() != m + k) bad_plan(s, "one output buffer per result expected");
      for (size_t r = 0; r < m + k; ++r) {
        if (r >= m && res[r] != s.op.result_types()[r - m]) bad_plan(s, "element and operator types differ");
        need(s, bufs, s.writes[r], res[r], r < m ? total : s.segments, "output");
      }
      break;
    }
    case plan::StepKind::SegScan:
      if (res.size() != k || s.writes.size() != k) bad_plan(s, "one output buffer per scanned value expected");
      for (size_t r = 0; r < k; ++r) {
        if (res[r] != s.op.result_types()[r]) bad_plan(s, "element and operator types differ");
        need(s, bufs, s.writes[r], res[r], total, "output");
      }
      break;
    case plan::StepKind::SegHist:
      if (res.size() != k + 1 || res[0] != Prim::I64) bad_plan(s, "element must yield (i64 bin, values...)");
      if (s.writes.size() != k) bad_plan(s, "one histogram buffer per value expected");
      if (s.bins < 0) bad_plan(s, "negative bin count");
      for (size_t r = 0; r < k; ++r) {
        if (res[r + 1] != s.op.result_types()[r]) bad_plan(s, "element and operator types differ");
        need(s, bufs, s.writes[r], res[r + 1], s.segments * s.bins, "histogram");
      }
      break;
    case plan::StepKind::Scatter:
      if (res.empty() || res[0] != Prim::I64) bad_plan(s, "element must yield (i64 index, values...)");
      if (s.writes.size() != res.size() - 1) bad_plan(s, "one destination buffer per value expected");
      if (s.dest_size < 0) bad_plan(s, "negative destination size");
      for (size_t r = 0; r + 1 < res.size(); ++r)
        need(s, bufs, s.writes[r], res[r + 1], s.segments * s.dest_size, "destination");
      break;
  }
  for (size_t a = 0; a < s.reads.size(); ++a)
    need(s, bufs, s.reads[a], a < s.element.free_arrays.size() ? s.element.free_arrays[a].elem : Prim::I32,
         0, "input");
}

}  // namespace

void execute_step(const plan::Step& step, std::vector<BufferPtr>& buffers, const ExecOptions& options) {
  check_step(step, buffers);
  // Buffers may be delayed or on the GPU: bring every one this step touches
  // to the host now, on this thread (worker threads must not trigger it).
  // A `written` free array (Write) is an output the element stores into:
  // host_mut(), like `writes`.
  for (size_t k = 0; k < step.reads.size(); ++k) {
    Buffer& b = *buffers[size_t(step.reads[k])];
    if (k < step.element.free_arrays.size() && step.element.free_arrays[k].written)
      b.host_mut();
    else
      b.host();
  }
  for (int id : step.writes) buffers[size_t(id)]->host_mut();  // written here: a device copy is stale from now on
  // Matmul-like nests: the tiled schedule, in both tiers (host_tiled.cpp).
  if (step.kind == plan::StepKind::SegMap && tiled_enabled())
    if (auto t = plan::recognise_tiled(step))
      if (run_tiled(*t, step, buffers, options)) return;
  StepEnv env(step, buffers, options);
  switch (step.kind) {
    case plan::StepKind::SegMap: run_segmap(env); break;
    case plan::StepKind::SegRed: run_segred(env); break;
    case plan::StepKind::SegScan: run_segscan(env); break;
    case plan::StepKind::SegHist: run_seghist(env); break;
    case plan::StepKind::Scatter: run_scatter(env); break;
  }
}

// Delayed arrays (interp/flatten/delayed.hpp) materialise through this
// executor when something reads their data; the planner never runs plans.
const bool kRunsDelayedArrays = [] {
  flatten::set_plan_runner([](const plan::Plan& p, std::vector<BufferPtr>& b) { execute(p, b); });
  return true;
}();

void execute(const plan::Plan& p, std::vector<BufferPtr>& buffers, const ExecOptions& options) {
  if (!p.fallback.empty())
    throw Error(ErrorKind::Internal, p.loc, "host executor: asked to run a plan that fell back: " + p.fallback);
  if (buffers.size() < p.buffers.size()) buffers.resize(p.buffers.size());
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const plan::BufferDesc& d = p.buffers[i];
    if (buffers[i]) continue;
    if (d.is_input)
      throw Error(ErrorKind::Internal, p.loc,
                  fmt::format("host executor: input buffer b{} ({}) is not bound", i, d.name));
    buffers[i] = std::make_shared<Buffer>(d.elem, d.count, Buffer::NoInit{});
  }
  for (const plan::Step& s : p.steps) execute_step(s, buffers, options);
}

}  // namespace thorn::host
