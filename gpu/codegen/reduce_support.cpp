#include "gpu/codegen/reduce_support.hpp"

#include <fmt/format.h>

#include "gpu/codegen/ctypes.hpp"
#include "gpu/codegen/kir_to_cuda.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::cg::detail {

namespace {

std::string acc_struct(const std::vector<Prim>& types) {
  std::string s = "struct thorn_acc {";
  for (size_t k = 0; k < types.size(); ++k) s += fmt::format(" {} c{};", reg_type(types[k]), k);
  return s + " };\n";
}

std::string neutral_fn(const plan::Step& step, const std::vector<Prim>& types) {
  if (step.neutral.size() != types.size())
    throw Error(ErrorKind::Internal, fmt::format("SegRed: {} neutral values for {} accumulators",
                                                 step.neutral.size(), types.size()));
  std::string s = "THORN_DEV thorn_acc thorn_neutral() {\n  thorn_acc a;\n";
  for (size_t k = 0; k < types.size(); ++k) {
    Scalar ne = step.neutral[k].type == types[k] ? step.neutral[k] : step.neutral[k].convert_to(types[k]);
    s += fmt::format("  a.c{} = {};\n", k, literal(ne));
  }
  return s + "  return a;\n}\n";
}

std::string combine_fn(size_t k) {
  std::string args;
  for (size_t i = 0; i < k; ++i) args += fmt::format(", a.c{}", i);
  for (size_t i = 0; i < k; ++i) args += fmt::format(", x.c{}", i);
  for (size_t i = 0; i < k; ++i) args += fmt::format(", r.c{}", i);
  return fmt::format(
      "THORN_DEV bool thorn_combine(const thorn_env& env, thorn_acc& a, const thorn_acc& x) {{\n"
      "  thorn_acc r;\n  if (!thorn_op(env{})) return false;\n  a = r;\n  return true;\n}}\n",
      args);
}

std::string shuffle_fn(size_t k) {
  std::string s = "THORN_DEV thorn_acc thorn_acc_shfl_down(const thorn_acc& a, int d) {\n  thorn_acc r;\n";
  for (size_t i = 0; i < k; ++i) s += fmt::format("  r.c{0} = thorn_shfl_down(a.c{0}, d);\n", i);
  return s + "  return r;\n}\n";
}

std::string elem_acc_fn(const plan::Step& step, const StepLayout& l, size_t k) {
  size_t m = size_t(step.num_map_outputs);
  std::string s = "THORN_DEV bool thorn_elem_acc(const thorn_env& env, i64 s, i64 j, thorn_acc& x) {\n";
  std::string args;
  for (size_t i = 0; i < m; ++i) {
    s += fmt::format("  {} m{};\n", reg_type(l.outs[i]), i);
    args += fmt::format(", m{}", i);
  }
  for (size_t i = 0; i < k; ++i) args += fmt::format(", x.c{}", i);
  s += fmt::format("  if (!thorn_elem(env, s, j{})) return false;\n", args);
  if (m > 0) {
    s += "  const i64 flat = s * env.n + j;\n";
    for (size_t i = 0; i < m; ++i)
      s += fmt::format("  env.out{0}[flat] = {1};\n", i, store_expr(l.outs[i], fmt::format("m{}", i)));
  }
  return s + "  return true;\n}\n";
}

std::string memory_fns(const StepLayout& l, size_t m, size_t k) {
  std::string red = "THORN_DEV void thorn_store_red(const thorn_env& env, i64 s, const thorn_acc& a) {\n";
  std::string store = "THORN_DEV void thorn_store_part(const thorn_env& env, i64 i, const thorn_acc& a) {\n";
  std::string load = "THORN_DEV thorn_acc thorn_load_part(const thorn_env& env, i64 i) {\n  thorn_acc a;\n";
  for (size_t i = 0; i < k; ++i) {
    Prim t = l.parts[i];
    red += fmt::format("  env.out{}[s] = {};\n", m + i, store_expr(t, fmt::format("a.c{}", i)));
    store += fmt::format("  env.part{}[i] = {};\n", i, store_expr(t, fmt::format("a.c{}", i)));
    load += fmt::format("  a.c{} = {};\n", i, load_expr(t, fmt::format("env.part{}[i]", i)));
  }
  return red + "}\n" + store + "}\n" + load + "  return a;\n}\n";
}

// Block- and warp-level code that does not depend on the operator's shape.
constexpr const char* kTrees = R"CUDA(
// Order-preserving reduction within aligned groups of `group` lanes (a power
// of two <= 32): the group's first lane ends with the group's result. All 32
// lanes must call it (the shuffles use the full mask).
THORN_DEV void thorn_warp_reduce(const thorn_env& env, thorn_acc& v, int group, bool& ok) {
  const int lane = threadIdx.x & 31;
  for (int d = 1; d < group; d <<= 1) {
    thorn_acc o = thorn_acc_shfl_down(v, d);
    if ((lane & (2 * d - 1)) == 0 && ok) ok = thorn_combine(env, v, o);
  }
}

// A warp folds elements [run0, run_end) of segment s, in order, into lane
// 0's `acc`: in steps of 32*V consecutive elements, lane l folds the V from
// l*V, an ordered warp tree combines the 32 lane values, and lane 0 appends
// the step's value. Each load instruction of a step spans 32*V consecutive
// elements and the step's other V-1 loads hit the same lines in L1, so the
// reads are coalesced with no shared memory. All 32 lanes must call it.
THORN_DEV void thorn_warp_run_fold(const thorn_env& env, thorn_acc& acc, i64 s, i64 run0, i64 run_end, bool& ok) {
  constexpr int V = 8;
  const int lane = threadIdx.x & 31;
  for (i64 base = run0; base < run_end; base += 32 * V) {  // warp-uniform bounds
    thorn_acc x = thorn_neutral();
    const i64 j0 = base + (i64)lane * V;
    if (base + 32 * V <= run_end) {
#pragma unroll
      for (int q = 0; q < V; ++q) {
        thorn_acc e;
        if (ok) ok = thorn_elem_acc(env, s, j0 + q, e) && thorn_combine(env, x, e);
      }
    } else {
      for (int q = 0; q < V; ++q) {
        thorn_acc e;
        if (ok && j0 + q < run_end) ok = thorn_elem_acc(env, s, j0 + q, e) && thorn_combine(env, x, e);
      }
    }
    thorn_warp_reduce(env, x, 32, ok);
    if (lane == 0 && ok) ok = thorn_combine(env, acc, x);
  }
}

// Ordered block reduction; thread 0 ends with the block's result. `parts`
// holds one value per warp (<= 32). Every thread of the block must call it.
THORN_DEV thorn_acc thorn_block_reduce(const thorn_env& env, thorn_acc v, thorn_acc* parts, bool& ok) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  thorn_warp_reduce(env, v, 32, ok);
  if (lane == 0) parts[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < nwarps ? parts[lane] : thorn_neutral();
    thorn_warp_reduce(env, v, 32, ok);
  }
  __syncthreads();
  return v;
}

// A warp folds 32 rows of elements, lane r folding row r in order. Row r is
// segment seg_base + r*seg_step from position j_base + r*j_step, of length
// min(row_len, n - start) (0 past the last segment); row lengths never grow
// with r. Instead of each lane reading its own row (32 scattered streams),
// the warp loads column blocks of w = 2^logw elements of all 32 rows
// together, consecutive lanes on consecutive columns (and, when rows are
// adjacent in memory, consecutive rows), into a padded shared-memory tile
// tile[32][w+1], then each lane folds its row from the tile: the coalescing
// transpose of notes-segred.md §2 ("Loop-in-map", "Transposition"), done in
// shared memory on the fly rather than as a separate pass over memory.
THORN_DEV bool thorn_tile_fold(const thorn_env& env, thorn_acc& acc, thorn_acc* tile, int logw,
                               i64 seg_base, i64 seg_step, i64 j_base, i64 j_step, i64 row_len) {
  const int lane = threadIdx.x & 31;
  const int w = 1 << logw;
  bool ok = true;
  auto len_of = [&](int r) -> i64 {
    if (seg_base + (i64)r * seg_step >= env.segments) return 0;
    const i64 left = env.n - (j_base + (i64)r * j_step);
    return left <= 0 ? 0 : (left < row_len ? left : row_len);
  };
  const i64 longest = len_of(0);  // warp-uniform
  const i64 mine = len_of(lane);
  for (i64 c0 = 0; c0 < longest; c0 += w) {
    for (int q = 0; q < w; ++q) {
      const int idx = lane + (q << 5);
      const int r = idx >> logw, c = idx & (w - 1);
      if (c0 + c < len_of(r)) {
        thorn_acc x;
        if (ok) ok = thorn_elem_acc(env, seg_base + (i64)r * seg_step, j_base + (i64)r * j_step + c0 + c, x);
        tile[r * (w + 1) + c] = x;
      }
    }
    __syncwarp();
    const i64 left = mine - c0;
    const int cend = left <= 0 ? 0 : (left < w ? (int)left : w);
    for (int c = 0; c < cend; ++c)
      if (ok) ok = thorn_combine(env, acc, tile[lane * (w + 1) + c]);
    __syncwarp();
  }
  return ok;
}
)CUDA";

}  // namespace

std::string reduce_support(const plan::Step& step, const StepLayout& l, bool noalias) {
  std::vector<Prim> op_params = function_params(step.op);
  std::vector<Prim> types = function_results(step.op);
  size_t k = types.size();
  if (k == 0 || op_params.size() != 2 * k)
    throw Error(ErrorKind::Internal, fmt::format("SegRed: operator takes {} values and yields {}; expected 2k -> k",
                                                 op_params.size(), k));
  for (size_t i = 0; i < k; ++i)
    if (op_params[i] != types[i] || op_params[k + i] != types[i])
      throw Error(ErrorKind::Internal, "SegRed: operator parameter types differ from its result types");
  std::vector<Prim> elem = function_results(step.element);
  size_t m = size_t(step.num_map_outputs);
  if (elem.size() != m + k)
    throw Error(ErrorKind::Internal, fmt::format("SegRed: element yields {} values, expected {} map + {} reduced",
                                                 elem.size(), m, k));
  for (size_t i = 0; i < k; ++i)
    if (elem[m + i] != types[i])
      throw Error(ErrorKind::Internal, "SegRed: element's reduced values differ in type from the operator's");
  if (!step.op.free_arrays.empty())
    throw Error(ErrorKind::Internal, "SegRed: the operator reads free arrays (not supported on the GPU)");

  std::string s = acc_struct(types);
  s += neutral_fn(step, types);
  FunctionEmitOptions o;
  o.name = "thorn_op";
  o.msg_base = "env.msg_op";
  o.lifted = &l.consts;
  s += emit_function(step.op, o);
  s += combine_fn(k);
  s += shuffle_fn(k);
  s += element_function(step, l, noalias);
  s += elem_acc_fn(step, l, k);
  s += memory_fns(l, m, k);
  s += kTrees;
  return s;
}

std::string operator_support(const plan::Step& step, const StepLayout& l, const char* what) {
  std::vector<Prim> op_params = function_params(step.op);
  std::vector<Prim> types = function_results(step.op);
  size_t k = types.size();
  if (k == 0 || op_params.size() != 2 * k)
    throw Error(ErrorKind::Internal, fmt::format("{}: operator takes {} values and yields {}; expected 2k -> k", what,
                                                 op_params.size(), k));
  for (size_t i = 0; i < k; ++i)
    if (op_params[i] != types[i] || op_params[k + i] != types[i])
      throw Error(ErrorKind::Internal, fmt::format("{}: operator parameter types differ from its result types", what));
  if (!step.op.free_arrays.empty())
    throw Error(ErrorKind::Internal, fmt::format("{}: the operator reads free arrays (not supported on the GPU)", what));
  std::string s = acc_struct(types);
  s += neutral_fn(step, types);
  FunctionEmitOptions o;
  o.name = "thorn_op";
  o.msg_base = "env.msg_op";
  o.lifted = &l.consts;
  s += emit_function(step.op, o);
  s += combine_fn(k);
  s += shuffle_fn(k);
  return s;
}

}  // namespace thorn::gpu::cg::detail
