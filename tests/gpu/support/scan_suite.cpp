#include "tests/gpu/support/scan_suite.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "gpu/launch/params.hpp"
#include "interp/flatten/kernel_ir_builder.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::test {

using kir::BinOp;
using kir::Builder;
using kir::CmpOp;
using kir::Reg;

namespace {

bool is_red_op(ScanOp op) { return op != ScanOp::Lssp && op != ScanOp::Mixed; }
RedOp red_op(ScanOp op) { return RedOp(int(op)); }  // the first five agree

std::vector<Prim> value_types(Prim t, ScanOp op) {
  if (op == ScanOp::Lssp) return std::vector<Prim>(6, Prim::I32);
  if (op == ScanOp::Mixed) return {Prim::I8, Prim::F64, Prim::Bool};
  return std::vector<Prim>(size_t(red_op_arity(red_op(op))), t);
}

// ---- the two operators steps.hpp lacks

// (lss, lis, lcs, tl, first, last) of Futhark's lssp benchmark with pred1 =
// true, pred2 = (<=): the longest sorted run.
std::vector<Scalar> lssp_combine(const std::vector<Scalar>& x, const std::vector<Scalar>& y) {
  auto i = [](const Scalar& s) { return s.i; };
  auto mk = [](int64_t v) { return Scalar::signed_int(Prim::I32, int64_t(int32_t(uint32_t(v)))); };
  bool connect = i(x[5]) <= i(y[4]) || i(x[3]) == 0 || i(y[3]) == 0;
  int64_t lss = std::max(i(x[0]), i(y[0]));
  if (connect) lss = std::max(lss, i(x[2]) + i(y[1]));
  int64_t lis = (i(x[1]) == i(x[3]) && connect) ? i(x[1]) + i(y[1]) : i(x[1]);
  int64_t lcs = (i(y[2]) == i(y[3]) && connect) ? i(x[2]) + i(y[2]) : i(y[2]);
  return {mk(lss), mk(lis), mk(lcs), mk(i(x[3]) + i(y[3])), i(x[3]) == 0 ? y[4] : x[4], i(y[3]) == 0 ? x[5] : y[5]};
}

void lssp_op(Builder& b, const std::vector<Reg>& x, const std::vector<Reg>& y) {
  Reg zero = b.constant(Scalar::signed_int(Prim::I32, 0));
  Reg connect = b.binary(BinOp::LogOr, b.compare(CmpOp::Le, x[5], y[4]),
                         b.binary(BinOp::LogOr, b.compare(CmpOp::Eq, x[3], zero), b.compare(CmpOp::Eq, y[3], zero)));
  Reg both = b.binary(BinOp::Max, x[0], y[0]);
  Reg lss = b.select(connect, b.binary(BinOp::Max, both, b.binary(BinOp::Add, x[2], y[1])), both);
  Reg lis = b.select(b.binary(BinOp::LogAnd, b.compare(CmpOp::Eq, x[1], x[3]), connect), b.binary(BinOp::Add, x[1], y[1]),
                     x[1]);
  Reg lcs = b.select(b.binary(BinOp::LogAnd, b.compare(CmpOp::Eq, y[2], y[3]), connect), b.binary(BinOp::Add, x[2], y[2]),
                     y[2]);
  Reg tl = b.binary(BinOp::Add, x[3], y[3]);
  Reg first = b.select(b.compare(CmpOp::Eq, x[3], zero), y[4], x[4]);
  Reg last = b.select(b.compare(CmpOp::Eq, y[3], zero), x[5], y[5]);
  b.ret({lss, lis, lcs, tl, first, last});
}

// (a1, b1, c1) ⊕ (a2, b2, c2) = (a1 + a2, c2 ? b2 : b1 + b2, c1 || c2)
std::vector<Scalar> mixed_combine(const std::vector<Scalar>& x, const std::vector<Scalar>& y) {
  return {Scalar::signed_int(Prim::I8, int64_t(int8_t(uint8_t(x[0].i + y[0].i)))),
          y[2].b ? y[1] : Scalar::floating(Prim::F64, x[1].f + y[1].f), Scalar::boolean(x[2].b || y[2].b)};
}

std::vector<Scalar> lift(Prim t, ScanOp op, const Scalar& x) {
  if (is_red_op(op)) return red_op_lift(red_op(op), x);
  if (op == ScanOp::Lssp) {
    Scalar one = Scalar::signed_int(Prim::I32, 1);
    return {one, one, one, one, x, x};
  }
  return {Scalar::signed_int(Prim::I8, int64_t(int8_t(uint8_t(x.i)))), Scalar::floating(Prim::F64, double(x.i) / 4),
          Scalar::boolean(x.i % 7 == 0)};
}

std::vector<Scalar> neutral(Prim t, ScanOp op) {
  if (is_red_op(op)) return red_op_neutral(red_op(op), t);
  if (op == ScanOp::Lssp) return std::vector<Scalar>(6, Scalar::signed_int(Prim::I32, 0));
  return {Scalar::signed_int(Prim::I8, 0), Scalar::floating(Prim::F64, 0), Scalar::boolean(false)};
}

std::vector<Scalar> combine(ScanOp op, const std::vector<Scalar>& x, const std::vector<Scalar>& y) {
  if (is_red_op(op)) return red_op_combine(red_op(op), x, y);
  return op == ScanOp::Lssp ? lssp_combine(x, y) : mixed_combine(x, y);
}

// ---- running cases

// A launch configuration: the device's choice (0, 0) or forced.
// `aggregates_only`: tiles publish no late prefixes (gen_segscan), so
// look-backs go back to the last segment start over many windows.
struct Config {
  int block = 0, m = 0;
  bool aggregates_only = false;
  std::string name() const {
    return (block == 0 ? std::string("device m") : fmt::format("block {} m {}", block, m)) +
           (aggregates_only ? ", aggregates only" : "");
  }
  void apply() const {
    if (block == 0) {
      unsetenv("THORN_SCAN_BLOCK");
      unsetenv("THORN_SCAN_M");
    } else {
      setenv("THORN_SCAN_BLOCK", std::to_string(block).c_str(), 1);
      setenv("THORN_SCAN_M", std::to_string(m).c_str(), 1);
    }
    if (aggregates_only) setenv("THORN_SCAN_AGGREGATES_ONLY", "1", 1);
    else unsetenv("THORN_SCAN_AGGREGATES_ONLY");
  }
};
const Config kConfigs[] = {{0, 0, false}, {32, 3, false}, {64, 1, false}, {0, 0, true}, {32, 3, true}};
constexpr int kNumConfigs = sizeof kConfigs / sizeof kConfigs[0];

// Runs `c` twice in a row (the second launch must find the counter and the
// flags reset), comparing both times.
void run_scan_case(const Runner& run, const Case& c, const Config& cfg, const SuiteOptions& o, SuiteResult& r,
                   int times = 2) {
  std::string name = c.name + " [" + cfg.name() + "]";
  if (!o.filter.empty() && name.find(o.filter) == std::string::npos) return;
  ++r.cases;
  cfg.apply();
  std::string failure;
  for (int k = 0; k < times && failure.empty(); ++k) {
    std::vector<BufferPtr> buffers = c.buffers;
    try {
      run(c.plan, buffers);
      failure = compare(c, buffers);
    } catch (const Error& e) {
      failure = c.name + ": threw " + e.render();
    }
    if (!failure.empty() && k > 0) failure += " (on the repeated launch)";
  }
  Config{}.apply();
  if (!failure.empty()) {
    failure += " [" + cfg.name() + "]";
  }
  r.record(name, failure, o);
}

}  // namespace

const char* scan_op_name(ScanOp op) {
  switch (op) {
    case ScanOp::Lssp: return "lssp";
    case ScanOp::Mixed: return "mixed";
    default: return red_op_name(red_op(op));
  }
}

plan::Step segscan(Prim t, ScanOp op, int64_t segments, int64_t n) {
  if (is_red_op(op)) {
    // The reduction's element and operator are the scan's.
    plan::Step st = segred(t, red_op(op), false, 0, segments, n);
    st.kind = plan::StepKind::SegScan;
    st.element.name = std::string("scan_elem_") + scan_op_name(op);
    return st;
  }
  plan::Step st;
  st.kind = plan::StepKind::SegScan;
  st.segments = segments;
  st.segment_size = n;
  {
    Builder b(st.element);
    st.element.name = std::string("scan_elem_") + scan_op_name(op);
    int x = b.free_array(Prim::I32, "x");
    Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
    Reg v = b.read(x, b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(n)), j));
    if (op == ScanOp::Lssp) {
      Reg one = b.constant(Scalar::signed_int(Prim::I32, 1));
      b.ret({one, one, one, one, v, v});
    } else {
      Reg quarter = b.binary(BinOp::Div, b.convert(Prim::F64, v), b.constant(Scalar::floating(Prim::F64, 4)));
      Reg restart = b.compare(CmpOp::Eq, b.binary(BinOp::Mod, v, b.constant(Scalar::signed_int(Prim::I32, 7))),
                              b.constant(Scalar::signed_int(Prim::I32, 0)));
      b.ret({b.convert(Prim::I8, v), quarter, restart});
    }
  }
  {
    Builder b(st.op);
    st.op.name = std::string("op_") + scan_op_name(op);
    std::vector<Prim> types = value_types(t, op);
    std::vector<Reg> x, y;
    for (Prim p : types) x.push_back(b.param(p));
    for (Prim p : types) y.push_back(b.param(p));
    if (op == ScanOp::Lssp) {
      lssp_op(b, x, y);
    } else {
      b.ret({b.binary(BinOp::Add, x[0], y[0]), b.select(y[2], y[1], b.binary(BinOp::Add, x[1], y[1])),
             b.binary(BinOp::LogOr, x[2], y[2])});
    }
  }
  st.neutral = neutral(t, op);
  return st;
}

Case segscan_case(Prim t, ScanOp op, int64_t segments, int64_t n, uint64_t seed, bool random_floats,
                  std::vector<Scalar> x) {
  Case c;
  Prim in_t = is_red_op(op) ? t : Prim::I32;
  c.name = fmt::format("segscan {} {}{} [{}][{}]", scan_op_name(op), prim_name(in_t),
                       random_floats ? " (random floats)" : "", segments, n);
  std::vector<Prim> types = value_types(t, op);
  const size_t k = types.size();
  plan::Step st = segscan(t, op, segments, n);
  st.reads = {0};
  c.plan.buffers.push_back(desc(in_t, segments * n, "x", true));
  for (size_t i = 0; i < k; ++i) {
    st.writes.push_back(int(c.plan.buffers.size()));
    c.plan.buffers.push_back(desc(types[i], segments * n, fmt::format("scan{}", i), false));
  }
  c.plan.results = st.writes;
  c.plan.steps.push_back(std::move(st));

  const size_t total = size_t(segments * n);
  if (x.empty()) {
    uint64_t state = seed;
    x.resize(total);
    for (Scalar& v : x) {
      if (random_floats && is_float(in_t)) v = Scalar::floating(in_t, double(int64_t(next(state) % 2000001) - 1000000) / 999983.0);
      else if (op == ScanOp::Lssp) v = Scalar::signed_int(Prim::I32, int64_t(next(state) % 4));  // sorted runs of some length
      else v = random_value(in_t, state);
    }
  }
  c.buffers.assign(c.plan.buffers.size(), nullptr);
  c.buffers[0] = buffer_of(in_t, x);

  std::vector<std::vector<Scalar>> out(k, std::vector<Scalar>(total));
  std::vector<double> tol(total, 0.0);
  for (int64_t s = 0; s < segments; ++s) {
    std::vector<Scalar> acc = neutral(t, op);
    double exact = 0, magnitude = 0;  // random floats: the sum in double
    for (int64_t j = 0; j < n; ++j) {
      const size_t at = size_t(s * n + j);
      acc = combine(op, acc, lift(t, op, x[at]));
      if (is_float(t) && is_red_op(op)) {
        magnitude += std::fabs(x[at].f);
        exact += x[at].f;
        // Another association order rounds differently: bound the error by
        // the magnitude times a rounding per operation on the longest chain
        // (the tiles before this one, the tile's own tree).
        double eps = t == Prim::F16 ? std::ldexp(1.0, -11) : t == Prim::F32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
        if (random_floats || t == Prim::F16) tol[at] = magnitude * eps * (double(j) / 32 + 100) + (t == Prim::F16 ? 1e-3 : 0);
        if (random_floats && op == ScanOp::Sum) acc[0] = Scalar::floating(t, exact);
      }
      for (size_t i = 0; i < k; ++i) out[i][at] = acc[i];
    }
  }
  c.expected.assign(c.plan.buffers.size(), nullptr);
  c.tolerance.assign(c.plan.buffers.size(), {});
  for (size_t i = 0; i < k; ++i) {
    c.expected[1 + i] = buffer_of(types[i], out[i]);
    if (is_float(types[i]) && (random_floats || types[i] == Prim::F16)) c.tolerance[1 + i] = tol;
  }
  return c;
}

SuiteResult run_scan_suite(const Runner& run, const DeviceProps& dev, const SuiteOptions& o) {
  SuiteResult r;
  uint64_t seed = 5000;

  // §7.5: LSSP's known answers (the last element's lss).
  {
    struct Known {
      std::vector<int64_t> xs;
      int64_t lss;
    };
    for (const Known& kn : std::vector<Known>{{{1, 2, 3, 1, 2}, 3}, {{5, 4, 3, 2, 1}, 1}, {{3, 1, 2, 3, 4, 0}, 4}}) {
      std::vector<Scalar> xs;
      for (int64_t v : kn.xs) xs.push_back(Scalar::signed_int(Prim::I32, v));
      Case c = segscan_case(Prim::I32, ScanOp::Lssp, 1, int64_t(xs.size()), 0, false, xs);
      int64_t got = c.expected[1]->data<int32_t>()[xs.size() - 1];
      if (got != kn.lss) {
        ++r.failures;
        r.messages.push_back(fmt::format("lssp reference: {} for a known {}", got, kn.lss));
        fmt::print(stderr, "FAIL: {}\n", r.messages.back());
      }
      run_scan_case(run, c, Config{}, o, r);
    }
  }

  struct OpType {
    ScanOp op;
    Prim t;
    bool full;  // the whole size sweep (else a few sizes)
  };
  const std::vector<OpType> ops = {
      {ScanOp::Sum, Prim::I32, true},   {ScanOp::Sum, Prim::F32, true},    {ScanOp::Mat2, Prim::I32, true},
      {ScanOp::Lssp, Prim::I32, true},  {ScanOp::Mixed, Prim::I32, true},  {ScanOp::Affine, Prim::I64, true},
      {ScanOp::Sum, Prim::I64, false},  {ScanOp::Sum, Prim::F64, false},   {ScanOp::Sum, Prim::F16, false},
      {ScanOp::Sum, Prim::U8, false},   {ScanOp::Sum, Prim::Bool, false},  {ScanOp::Max, Prim::I32, false},
      {ScanOp::Max, Prim::F32, false},  {ScanOp::Mss, Prim::I32, false},   {ScanOp::Mss, Prim::F32, false},
      {ScanOp::Mat2, Prim::U8, false},
  };
  for (const Config& cfg : kConfigs)
    for (const OpType& ot : ops) {
      cfg.apply();
      const int64_t G = launch::plan_segscan(dev, segscan(ot.t, ot.op, 1, 1), 1).tile;
      Config{}.apply();
      const int64_t m = G / (cfg.block ? cfg.block : launch::kBlock);
      // §7.6 segment sizes: 1, < m, odd sizes dividing nothing, = G, between
      // G and 2G, > 33 G (look-back windows must move), and = n (one
      // segment); §7.7: n not a multiple of G, n < G.
      std::vector<int64_t> sizes = {1, std::max<int64_t>(1, m - 1), 3, 7, 33, 129, G - 1, G, G + 1, G + G / 2,
                                    2 * G - 1, 2 * G + 1, 33 * G + 7};
      if (!ot.full) sizes = {1, 7, G + 1, 3 * G + 5};
      for (int64_t size : sizes) {
        // About 4 tiles of data (2 segments of the largest size).
        int64_t segs = std::max<int64_t>(2, (4 * G + size - 1) / size);
        run_scan_case(run, segscan_case(ot.t, ot.op, segs, size, seed++), cfg, o, r);
      }
      // One segment: n < G, n = G, n = 5G, n = 5G + 3.
      for (int64_t n : {G / 2 + 1, G, 5 * G, 5 * G + 3})
        run_scan_case(run, segscan_case(ot.t, ot.op, 1, n, seed++), cfg, o, r);
    }
  // §7.10: f32 sums of values that do not add exactly, with a tolerance.
  for (const Config& cfg : kConfigs)
    for (auto [segs, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 10000}, {40, 250}, {3, 3001}, {1000, 1}})
      run_scan_case(run, segscan_case(Prim::F32, ScanOp::Sum, segs, n, seed++, true), cfg, o, r);
  // §7.7: n = 0 launches nothing.
  for (auto [segs, n] : std::vector<std::pair<int64_t, int64_t>>{{0, 5}, {5, 0}, {0, 0}})
    run_scan_case(run, segscan_case(Prim::I32, ScanOp::Sum, segs, n, seed++), Config{}, o, r);
  return r;
}

SuiteResult run_scan_stress(const Runner& run, int launches, uint64_t seed, const SuiteOptions& o) {
  SuiteResult r;
  uint64_t state = seed;
  const ScanOp ops[] = {ScanOp::Sum, ScanOp::Mat2, ScanOp::Lssp};
  for (int i = 0; i < launches; ++i) {
    const Config& cfg = kConfigs[next(state) % kNumConfigs];
    ScanOp op = ops[next(state) % 3];
    // Sizes up to a few tiles of the small configurations, n from 1 to 700.
    int64_t n = 1 + int64_t(next(state) % 700);
    int64_t segs = int64_t(next(state) % std::max<int64_t>(1, 4000 / n)) + (next(state) % 8 == 0 ? 0 : 1);
    Case c = segscan_case(Prim::I32, op, segs, n, next(state));
    c.name = fmt::format("stress {}: {}", i, c.name);
    SuiteResult one;
    run_scan_case(run, c, cfg, o, one, 1);
    r.add(one);
  }
  return r;
}

}  // namespace thorn::gpu::test
