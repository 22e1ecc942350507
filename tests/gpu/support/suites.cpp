#include "tests/gpu/support/suites.hpp"

#include <array>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "interp/flatten/kernel_ir_builder.hpp"
#include "interp/util/error.hpp"
#include "tests/gpu/support/reference.hpp"

namespace thorn::gpu::test {

void SuiteResult::record(const std::string& name, const std::string& failure, const SuiteOptions& o) {
  if (!failure.empty()) {
    ++failures;
    messages.push_back(failure);
    fmt::print(stderr, "FAIL: {}\n", failure);
  } else if (o.verbose) {
    fmt::print("ok: {}\n", name);
  }
}

void SuiteResult::add(const SuiteResult& other) {
  cases += other.cases;
  failures += other.failures;
  messages.insert(messages.end(), other.messages.begin(), other.messages.end());
}

namespace {

// Runs one case, comparing with its expectation; `strategy` forces the
// SegRed strategy through the launch module's override ("" = its choice).
void run_case(const Runner& run, const Case& c, const std::string& strategy, const SuiteOptions& o, SuiteResult& r) {
  std::string name = c.name + (strategy.empty() ? "" : " [" + strategy + "]");
  if (!o.filter.empty() && name.find(o.filter) == std::string::npos) return;
  ++r.cases;
  if (strategy.empty()) unsetenv("THORN_SEGRED_STRATEGY");
  else setenv("THORN_SEGRED_STRATEGY", strategy.c_str(), 1);
  std::vector<BufferPtr> buffers = c.buffers;
  std::string failure;
  try {
    run(c.plan, buffers);
    failure = compare(c, buffers);
  } catch (const Error& e) {
    failure = name + ": threw " + e.render();
  }
  unsetenv("THORN_SEGRED_STRATEGY");
  if (!failure.empty() && !strategy.empty()) failure += " [" + strategy + "]";
  r.record(name, failure, o);
}

void segred_all(const Runner& run, Prim t, RedOp op, bool comm, int maps, int64_t segs, int64_t n,
                const SuiteOptions& o, SuiteResult& r, uint64_t seed) {
  Case c = segred_case(t, op, comm, maps, segs, n, seed);
  run_case(run, c, "", o, r);
  if (!o.all_strategies) return;
  for (const char* s : {"tps", "small", "warp", "large"}) {
    if (std::string(s) == "small" && n > o.block) continue;  // the small kernel holds a segment in one block
    run_case(run, c, s, o, r);
  }
}

}  // namespace

SuiteResult run_segred_suite(const Runner& run, const SuiteOptions& o) {
  SuiteResult r;
  const int N = o.log_n;
  const int64_t B = o.block;
  uint64_t seed = 1;
  // §5.1: the sweep, commutative sum and non-commutative MSS.
  for (int k = 0; k <= N; ++k) {
    int64_t segs = int64_t(1) << k, n = int64_t(1) << (N - k);
    run_case(run, segred_case(Prim::F32, RedOp::Sum, true, 0, segs, n, seed++), "", o, r);
    run_case(run, segred_case(Prim::I32, RedOp::Mss, false, 0, segs, n, seed++), "", o, r);
  }
  // Every strategy on a spread of shapes, every operator and type.
  struct Shape {
    int64_t segs, n;
  };
  const int64_t M = int64_t(1) << (N / 2);
  std::vector<Shape> shapes = {
      {1, int64_t(1) << N},      // §5.2 [1][N]: many blocks and a second pass
      {int64_t(1) << N, 1},      // [N][1]: the element function still applies
      {int64_t(1) << (N - 1), 2},  // [N/2][2]
      {o.many, B / 2}, {o.many, B / 2 + 1}, {o.many, B + 1}, {o.many, 255},  // §5.3 thresholds
      {10, 70}, {11, 100}, {10, 3}, {33, 5}, {7, 33},               // §5.4 partial last blocks
      {1, 100}, {1, B},                                            // §5.5 one segment
      {12, 1000},                                                  // §5.10 [2][3][2][n]
      {M, 3}, {3, M},
  };
  const RedOp ops[] = {RedOp::Sum, RedOp::Max, RedOp::Mss, RedOp::Mat2, RedOp::Affine};
  for (const Shape& sh : shapes)
    for (RedOp op : ops) {
      std::vector<Prim> types;
      switch (op) {
        case RedOp::Sum:
        case RedOp::Max: types = {Prim::I32, Prim::I64, Prim::F32, Prim::F64, Prim::F16, Prim::U8, Prim::Bool}; break;
        case RedOp::Mss: types = {Prim::I32, Prim::F32, Prim::F16, Prim::I64}; break;
        case RedOp::Mat2: types = {Prim::I32, Prim::U8}; break;
        case RedOp::Affine: types = {Prim::I64}; break;
      }
      for (Prim t : types) {
        bool comm = op == RedOp::Sum || op == RedOp::Max;
        segred_all(run, t, op, comm, 0, sh.segs, sh.n, o, r, seed++);
        // A commutative operator may also be marked non-commutative: the ordered paths.
        if (comm && t == Prim::I32) segred_all(run, t, op, false, 0, sh.segs, sh.n, o, r, seed++);
      }
    }
  // §5.6: empty segments and no segments.
  for (Shape sh : std::vector<Shape>{{o.many, 0}, {0, 1000}, {0, 0}, {1, 0}})
    for (RedOp op : {RedOp::Sum, RedOp::Max, RedOp::Mss})
      segred_all(run, Prim::I32, op, op != RedOp::Mss, 0, sh.segs, sh.n, o, r, seed++);
  // §5.8: redomap with map-part outputs (one and two), §5.9 MSS on both kernels.
  for (Shape sh : std::vector<Shape>{{o.many, 100}, {3, 5000}, {1, 100 * o.many}, {100 * o.many, 3}})
    for (int maps : {1, 2}) {
      segred_all(run, Prim::F32, RedOp::Sum, true, maps, sh.segs, sh.n, o, r, seed++);
      segred_all(run, Prim::I32, RedOp::Mss, false, maps, sh.segs, sh.n, o, r, seed++);
    }
  return r;
}

SuiteResult run_map_scatter_suite(const Runner& run, const SuiteOptions& o) {
  SuiteResult r;
  uint64_t seed = 1000;
  const int64_t big = int64_t(1) << o.log_n;
  for (Prim t : {Prim::I32, Prim::I64, Prim::F32, Prim::F64, Prim::F16, Prim::U8})
    for (auto [s, n] : std::vector<std::pair<int64_t, int64_t>>{{1, big}, {big / 4, 4}, {3, 1001}, {1, 1}, {0, 5}, {5, 0}})
      run_case(run, segmap_case(t, s, n, seed++), "", o, r);
  // Rows built in private arrays (LocalRead/LocalWrite, Write): f16 sums
  // of multiples of 1/4 stay exact for rows this short.
  for (Prim t : {Prim::I32, Prim::I64, Prim::F32, Prim::F64, Prim::F16, Prim::U8, Prim::Bool})
    for (auto [rows, row] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {big / 64, 7}, {1000, 64}, {0, 5}})
      run_case(run, private_rows_case(t, rows, row, seed++), "", o, r);
  for (Prim t : {Prim::I32, Prim::F64, Prim::F16, Prim::U8, Prim::Bool})
    for (int k : {1, 2})
      for (auto [s, n, d] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
               {1, 1000, 1500}, {20, 100, 100}, {1, big / 2, big}, {0, 10, 10}, {3, 0, 7}})
        run_case(run, scatter_case(t, k, s, n, d, seed++), "", o, r);
  return r;
}

SuiteResult run_error_suite(const Runner& run, const SuiteOptions& o) {
  SuiteResult r;
  // A map whose element fails a bounds Check at one position.
  const int64_t n = int64_t(1) << std::min(o.log_n, 16);
  plan::Plan p;
  plan::BufferDesc in, out;
  in.elem = Prim::I64;
  in.count = n;
  in.is_input = true;
  out.elem = Prim::I64;
  out.count = n;
  p.buffers = {in, out};
  plan::Step st;
  st.kind = plan::StepKind::SegMap;
  st.segments = 1;
  st.segment_size = n;
  {
    kir::Builder b(st.element);
    int xs = b.free_array(Prim::I64, "xs");
    b.param(Prim::I64);
    kir::Reg j = b.param(Prim::I64);
    kir::Reg idx = b.read(xs, j);
    b.check(b.compare(kir::CmpOp::Lt, idx, b.i64(n)), "index out of bounds (test)");
    b.ret({b.read(xs, idx)});
  }
  st.reads = {0};
  st.writes = {1};
  p.steps.push_back(std::move(st));
  // A second kernel that trusts the first one's output as indices, without
  // a Check of its own: after the first failed, that output is garbage
  // (fresh device memory), so this kernel must not run (the error flag is
  // tested first) or it reads far outside xs.
  {
    plan::Step second;
    second.kind = plan::StepKind::SegMap;
    second.segments = 1;
    second.segment_size = n;
    kir::Builder b(second.element);
    int xs = b.free_array(Prim::I64, "xs"), ys = b.free_array(Prim::I64, "ys");
    b.param(Prim::I64);
    kir::Reg j = b.param(Prim::I64);
    b.ret({b.read(xs, b.read(ys, j))});
    second.reads = {0, 1};
    second.writes = {2};
    p.buffers.push_back(out);
    p.steps.push_back(std::move(second));
  }
  auto xs = std::make_shared<Buffer>(Prim::I64, n);
  for (int64_t i = 0; i < n; ++i) xs->data_mut<int64_t>()[i] = (i * 7) % n;
  for (bool fail : {false, true}) {
    if (!o.filter.empty() && std::string("error check").find(o.filter) == std::string::npos) break;
    ++r.cases;
    if (fail) {
      xs->data_mut<int64_t>()[n / 3] = n + 5;
      xs->host_written();
    }
    std::vector<BufferPtr> buffers = {xs, nullptr, nullptr};
    std::string failure;
    try {
      run(p, buffers);
      if (fail) failure = "error check: a failing Check did not raise an error";
      else
        for (int64_t i = 0; i < n && failure.empty(); ++i)
          if (buffers[1]->data<int64_t>()[i] != (((i * 7) % n) * 7) % n)
            failure = fmt::format("error check: element {} wrong", i);
    } catch (const Error& e) {
      if (!fail) failure = "error check: unexpected error " + e.render();
      else if (e.kind != ErrorKind::Runtime || e.message.find("index out of bounds (test)") == std::string::npos)
        failure = "error check: wrong error " + e.render();
    }
    if (!failure.empty()) {
      ++r.failures;
      r.messages.push_back(failure);
      fmt::print(stderr, "FAIL: {}\n", failure);
    }
  }
  return r;
}

SuiteResult run_transpose_suite(const TransposeFn& transpose, const SuiteOptions& o) {
  SuiteResult r;
  const int64_t big = int64_t(1) << std::min(o.log_n, 16);
  std::vector<std::array<int64_t, 3>> shapes = {  // batches, rows, cols
      {1, 1, big}, {1, big, 1}, {1, 32, 32}, {1, 33, 31}, {1, 1000, 7}, {2, 7, 1000}, {1, 0, 5}, {3, 5, 0}};
  for (int64_t h = 2; h <= 33; ++h) shapes.push_back({1, h, 97});
  for (int64_t w : {2, 3, 16, 17, 31, 33}) shapes.push_back({1, 301, w});
  shapes.push_back({5, 64, 65});
  uint64_t state = 77;
  for (Prim t : {Prim::U8, Prim::I16, Prim::F32, Prim::F64, Prim::Bool})
    for (auto [b, rows, cols] : shapes) {
      std::string name = fmt::format("transpose {} [{}][{}][{}]", prim_name(t), b, rows, cols);
      if (!o.filter.empty() && name.find(o.filter) == std::string::npos) continue;
      ++r.cases;
      const int64_t offset = 3, count = b * rows * cols;
      auto in = std::make_shared<Buffer>(t, offset + count);
      size_t w = size_t(prim_bytes(t));
      for (int64_t i = 0; i < offset + count; ++i) store_scalar(in->host_mut() + size_t(i) * w, random_value(t, state));
      std::string failure;
      try {
        BufferPtr out = transpose(in, offset, b, rows, cols);
        if (!out || out->count() != count) failure = name + ": wrong output size";
        for (int64_t k = 0; k < b && failure.empty(); ++k)
          for (int64_t i = 0; i < rows && failure.empty(); ++i)
            for (int64_t j = 0; j < cols && failure.empty(); ++j) {
              const std::byte* want = in->host() + size_t(offset + k * rows * cols + i * cols + j) * w;
              const std::byte* got = out->host() + size_t(k * rows * cols + j * rows + i) * w;
              if (std::memcmp(want, got, w) != 0)
                failure = fmt::format("{}: element [{}][{}][{}] wrong", name, k, i, j);
            }
      } catch (const Error& e) {
        failure = name + ": threw " + e.render();
      }
      r.record(name, failure, o);
    }
  return r;
}

}  // namespace thorn::gpu::test
