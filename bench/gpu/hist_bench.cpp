#include "bench/gpu/hist_bench.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "gpu/codegen/skeleton.hpp"
#include "gpu/exec/step_runner.hpp"
#include "interp/flatten/kernel_ir_builder.hpp"

#include "tests/gpu/support/reference.hpp"

namespace thorn::bench {

namespace {

using kir::BinOp;
using kir::Builder;
using kir::CmpOp;
using kir::Reg;

enum class Op { Add, SatAdd, ArgMax };
const char* op_name(Op op) { return op == Op::Add ? "add" : op == Op::SatAdd ? "satadd" : "argmax"; }

// hist op over xs (i32, non-negative) into `bins` bins, the bin of x being
// (x % max(1, bins/rf)) * rf (the paper's §V-A), fused into the element as
// the flattener fuses a producing map.
plan::Step hist_step(Op op, int64_t n, int64_t bins, int64_t rf) {
  plan::Step st;
  st.kind = plan::StepKind::SegHist;
  st.segments = 1;
  st.segment_size = n;
  st.bins = bins;
  st.commutative = true;
  {
    Builder b(st.element);
    st.element.name = fmt::format("bench_hist_{}", op_name(op));
    int xs = b.free_array(Prim::I32, "xs");
    b.param(Prim::I64);
    Reg j = b.param(Prim::I64);
    Reg x = b.read(xs, j);
    Reg q = b.i64(std::max<int64_t>(1, bins / rf));
    Reg bin = b.binary(BinOp::Mul, b.binary(BinOp::Mod, b.convert(Prim::I64, x), q), b.i64(rf));
    switch (op) {
      case Op::Add: b.ret({bin, b.i32(1)}); break;
      case Op::SatAdd: b.ret({bin, b.binary(BinOp::And, x, b.i32(255))}); break;
      case Op::ArgMax: b.ret({bin, b.binary(BinOp::And, x, b.i32(0xffff)), b.convert(Prim::I32, j)}); break;
    }
  }
  {
    Builder b(st.op);
    st.op.name = fmt::format("op_{}", op_name(op));
    const int k = op == Op::ArgMax ? 2 : 1;
    std::vector<Reg> a, x;
    for (int i = 0; i < k; ++i) a.push_back(b.param(Prim::I32));
    for (int i = 0; i < k; ++i) x.push_back(b.param(Prim::I32));
    switch (op) {
      case Op::Add: b.ret({b.binary(BinOp::Add, a[0], x[0])}); break;
      case Op::SatAdd: b.ret({b.binary(BinOp::Min, b.binary(BinOp::Add, a[0], x[0]), b.i32((1 << 24) - 1))}); break;
      case Op::ArgMax: {
        Reg first = b.binary(BinOp::LogOr, b.compare(CmpOp::Gt, a[0], x[0]),
                             b.binary(BinOp::LogAnd, b.compare(CmpOp::Eq, a[0], x[0]), b.compare(CmpOp::Lt, a[1], x[1])));
        b.ret({b.select(first, a[0], x[0]), b.select(first, a[1], x[1])});
        break;
      }
    }
    st.neutral = op == Op::ArgMax ? std::vector<Scalar>{Scalar::i32(std::numeric_limits<int32_t>::min()), Scalar::i32(-1)}
                                  : std::vector<Scalar>{Scalar::i32(0)};
  }
  return st;
}

// The same pseudo-random non-negative ints as cub_peer's `fill_random`.
BufferPtr random_ints(int64_t n) {
  auto b = std::make_shared<Buffer>(Prim::I32, n);
  int32_t* p = b->data_mut<int32_t>();
  for (int64_t i = 0; i < n; ++i) {
    uint64_t z = uint64_t(i) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    p[i] = int32_t((z ^ (z >> 31)) & 0x7fffffff);
  }
  return b;
}

void set_env(const char* var, int64_t v) {
  if (v <= 0) unsetenv(var);
  else setenv(var, std::to_string(v).c_str(), 1);
}

// The paper's fixed choices: (memory, M, chunk) with chunk 0 = all bins.
struct Fixed {
  const char* memory;
  int64_t m;
  std::string name() const { return fmt::format("{} M={}", memory, m); }
};
std::vector<Fixed> fixed_choices(int64_t bins) {
  const int64_t B = gpu::cg::kHistSharedBlock;
  std::vector<Fixed> f = {{"shared", 1}};
  for (int64_t k : {1, 3, 6, 9}) f.push_back({"shared", std::max<int64_t>(1, k * B / std::min(bins, B))});
  for (int64_t m : {1, 4, 8, 16, 32}) f.push_back({"global", m});
  return f;
}

}  // namespace

std::vector<int64_t> hist_bench_sizes() {
  return {31, 127, 505, 2048, 6144, 12288, 24576, 49152, 196608, 393216, 786432, 1572864};
}

void run_hist_benchmarks(gpu::GpuBackend& gpu, int64_t n, bool fixed, const HistBenchHooks& hooks) {
  BufferPtr xs = random_ints(n);
  for (Op op : {Op::Add, Op::SatAdd, Op::ArgMax})
    for (int64_t rf : {1, 63})
      for (int64_t bins : hist_bench_sizes()) {
        plan::Plan p;
        plan::Step st = hist_step(op, n, bins, rf);
        const int k = op == Op::ArgMax ? 2 : 1;
        p.buffers = {gpu::test::desc(Prim::I32, n, "", true)};
        st.reads = {0};
        for (int i = 0; i < k; ++i) {
          st.writes.push_back(int(p.buffers.size()));
          p.buffers.push_back(gpu::test::desc(Prim::I32, bins, "", true));
        }
        p.steps.push_back(std::move(st));
        // The destinations are updated in place; their contents do not
        // matter for the timing.
        std::vector<BufferPtr> bufs = {xs};
        for (int i = 0; i < k; ++i) bufs.push_back(std::make_shared<Buffer>(Prim::I32, bins));
        auto run = [&] { gpu.execute(p, bufs); };
        const std::string name = fmt::format("hist_{}_rf{}", op_name(op), rf);
        const std::string peer = op == Op::Add ? fmt::format("cub_histogram_even_rf{}", rf)
                                               : fmt::format("cub_sort_reduce_{}_rf{}", op_name(op), rf);
        const double ms = hooks.time_ms(run, 0);
        hooks.record(name, peer, bins, n, double(n) * 4, ms, gpu::exec::last_hist_trace().why);
        if (!fixed) continue;
        double best = 0;
        std::string best_name;
        for (const Fixed& f : fixed_choices(bins)) {
          setenv("THORN_HIST_MEMORY", f.memory, 1);
          set_env("THORN_HIST_M", f.m);
          set_env("THORN_HIST_CHUNK", std::string(f.memory) == "global" ? bins : 0);
          const double t = hooks.time_ms(run, 3);  // ten choices per size: fewer repetitions
          if (best_name.empty() || t < best) best = t, best_name = f.name();
        }
        unsetenv("THORN_HIST_MEMORY");
        unsetenv("THORN_HIST_M");
        unsetenv("THORN_HIST_CHUNK");
        hooks.record(name + "_model_vs_fixed", "", bins, n, double(n) * 4, ms,
                     fmt::format("best fixed {}: {:.4f} ms; model / best = {:.3f}", best_name, best, ms / best));
      }
}

}  // namespace thorn::bench
