#include "gpu/codegen/common.hpp"

#include <fmt/format.h>

#include "gpu/codegen/ctypes.hpp"
#include "gpu/codegen/kir_to_cuda.hpp"
#include "gpu/codegen/prelude.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::cg::detail {

StepLayout layout_of(const plan::Step& step) {
  StepLayout l;
  std::vector<Prim> results = function_results(step.element);
  switch (step.kind) {
    case plan::StepKind::SegMap:
      l.outs = results;
      break;
    case plan::StepKind::SegScan: {
      // One output per scanned value; PART pointers are the look-back's
      // global state (scan.cpp): the dynamic block counter, the status
      // flags, then per-block aggregates and inclusive prefixes per value.
      l.outs = results;
      std::vector<Prim> vals = function_results(step.op);
      l.parts = {Prim::U32, Prim::U8};
      l.parts.insert(l.parts.end(), vals.begin(), vals.end());
      l.parts.insert(l.parts.end(), vals.begin(), vals.end());
      break;
    }
    case plan::StepKind::SegRed: {
      // Map-part outputs first, then one output per reduced value.
      if (size_t(step.num_map_outputs) > results.size())
        throw Error(ErrorKind::Internal, "SegRed: more map outputs than element results");
      l.outs.assign(results.begin(), results.begin() + step.num_map_outputs);
      std::vector<Prim> red = function_results(step.op);
      l.outs.insert(l.outs.end(), red.begin(), red.end());
      l.parts = red;
      break;
    }
    case plan::StepKind::SegHist: {
      // OUT: the destinations, updated in place; PART: the subhistogram
      // rows, one array per value, then the locks (hist.cpp).
      l.outs = function_results(step.op);
      l.parts = l.outs;
      l.parts.push_back(Prim::U32);
      break;
    }
    case plan::StepKind::Scatter:
      if (results.empty()) throw Error(ErrorKind::Internal, "Scatter: element yields no index");
      l.outs.assign(results.begin() + 1, results.end());
      break;
    default:
      throw Error(ErrorKind::Internal,
                  fmt::format("no GPU skeleton for {} steps", plan::step_kind_name(step.kind)));
  }
  for (const kir::FreeArray& fa : step.element.free_arrays) {
    l.frees.push_back(fa.elem);
    l.frees_written.push_back(fa.written);
  }
  l.consts = lift_constants(step);
  return l;
}

std::string env_struct(const StepLayout& l) {
  std::string s;
  if (!l.consts.values.empty())
    s += fmt::format("struct thorn_consts {{ u64 v[{}]; }};\n", l.consts.values.size());
  s += "struct thorn_env {\n  i32* err;\n  i32 msg_elem, msg_op;\n  i64 segments, n, p1, p2, p3;\n";
  if (!l.consts.values.empty()) s += "  thorn_consts kc;\n";
  for (size_t k = 0; k < l.outs.size(); ++k) s += fmt::format("  {}* out{};\n", mem_type(l.outs[k]), k);
  for (size_t k = 0; k < l.parts.size(); ++k) s += fmt::format("  {}* part{};\n", mem_type(l.parts[k]), k);
  for (size_t k = 0; k < l.frees.size(); ++k)
    s += fmt::format("  {}{}* fa{};\n", l.frees_written[k] ? "" : "const ", mem_type(l.frees[k]), k);
  return s + "};\n";
}

std::string kernel_begin(const std::string& entry, const StepLayout& l, int block_size, bool noalias) {
  std::vector<std::string> params = {"i32* err", "i32 msg_elem", "i32 msg_op", "i64 segments", "i64 n",
                                     "i64 p1", "i64 p2", "i64 p3"};
  if (!l.consts.values.empty()) params.push_back("thorn_consts kc");
  for (size_t k = 0; k < l.outs.size(); ++k) params.push_back(fmt::format("{}* out{}", mem_type(l.outs[k]), k));
  for (size_t k = 0; k < l.parts.size(); ++k) params.push_back(fmt::format("{}* part{}", mem_type(l.parts[k]), k));
  for (size_t k = 0; k < l.frees.size(); ++k)
    params.push_back(l.frees_written[k] ? fmt::format("{}* fa{}", mem_type(l.frees[k]), k)
                                        : fmt::format("const {}* {}fa{}", mem_type(l.frees[k]),
                                                      noalias ? "__restrict__ " : "", k));
  std::string s = fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}(", block_size, entry);
  for (size_t i = 0; i < params.size(); ++i) s += (i ? ", " : "") + params[i];
  s += ") {\n  thorn_env env;\n  env.err = err; env.msg_elem = msg_elem; env.msg_op = msg_op;\n"
       "  env.segments = segments; env.n = n; env.p1 = p1; env.p2 = p2; env.p3 = p3;\n";
  if (!l.consts.values.empty()) s += "  env.kc = kc;\n";
  for (size_t k = 0; k < l.outs.size(); ++k) s += fmt::format("  env.out{0} = out{0};\n", k);
  for (size_t k = 0; k < l.parts.size(); ++k) s += fmt::format("  env.part{0} = part{0};\n", k);
  for (size_t k = 0; k < l.frees.size(); ++k) s += fmt::format("  env.fa{0} = fa{0};\n", k);
  // A Check failed in an earlier kernel of the plan: its inputs may be
  // garbage (an out-of-bounds read's result), so do nothing. Read once per
  // block, so that the whole block returns before any __syncthreads.
  s += "  __shared__ i32 thorn_stop;\n"
       "  if (threadIdx.x == 0) thorn_stop = *(volatile i32*)err;\n"
       "  __syncthreads();\n"
       "  if (thorn_stop != 0) return;\n";
  return s;
}

std::string element_function(const plan::Step& step, const StepLayout& l, bool noalias) {
  std::vector<Prim> params = function_params(step.element);
  if (params.size() != 2 || params[0] != Prim::I64 || params[1] != Prim::I64)
    throw Error(ErrorKind::Internal,
                fmt::format("{}: element function must take (i64, i64)", plan::step_kind_name(step.kind)));
  FunctionEmitOptions o;
  o.name = "thorn_elem";
  o.msg_base = "env.msg_elem";
  o.read_only_cache = noalias;
  o.lifted = &l.consts;
  return emit_function(step.element, o);
}

std::string source_header(const plan::Step& step, const std::string& skeleton) {
  // Only what shapes the code goes here: no sizes and no source locations,
  // so the same nest at another place or size hits the kernel caches.
  std::string s = fmt::format("// thorn kernel: {} for {}\n", skeleton, plan::step_kind_name(step.kind));
  s += cuda_prelude();
  return s;
}

std::string kernel_name(const plan::Step& step, const std::string& skeleton) {
  std::string s = skeleton;
  if (!step.element.name.empty()) s += " " + step.element.name;
  if (step.loc.known()) s += " " + step.loc.str();
  return s;
}

}  // namespace thorn::gpu::cg::detail
