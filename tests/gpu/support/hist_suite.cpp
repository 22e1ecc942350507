#include "tests/gpu/support/hist_suite.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "gpu/exec/step_runner.hpp"
#include "interp/flatten/kernel_ir_builder.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::test {

using kir::BinOp;
using kir::Builder;
using kir::CmpOp;
using kir::Reg;

namespace {

constexpr int32_t kSatMax = (1 << 24) - 1;

// The values each element contributes, and the histogram's types.
std::vector<Prim> value_types(Prim t, HistOp op) {
  switch (op) {
    case HistOp::ArgMax: return {Prim::I32, Prim::I32};
    case HistOp::Vec3: return {t, t, t};
    case HistOp::Pair: return {Prim::I64, Prim::F64};
    case HistOp::Or: return {Prim::Bool};
    case HistOp::SatAdd: return {Prim::I32};
    default: return {t};
  }
}
Prim input_type(Prim t, HistOp op) {
  return op == HistOp::ArgMax || op == HistOp::SatAdd ? Prim::I32 : op == HistOp::Or ? Prim::Bool : t;
}

Scalar lowest(Prim t) {
  if (is_float(t)) return Scalar::floating(t, -std::numeric_limits<double>::infinity());
  if (is_unsigned_int(t)) return Scalar::unsigned_int(t, 0);
  return Scalar::signed_int(t, int64_t(-1) << (prim_bytes(t) * 8 - 1));
}
Scalar highest(Prim t) {
  if (is_float(t)) return Scalar::floating(t, std::numeric_limits<double>::infinity());
  if (is_unsigned_int(t)) return Scalar::unsigned_int(t, ~uint64_t(0));
  return Scalar::signed_int(t, int64_t((uint64_t(1) << (prim_bytes(t) * 8 - 1)) - 1));
}
Scalar zero(Prim t) {
  if (t == Prim::Bool) return Scalar::boolean(false);
  if (is_float(t)) return Scalar::floating(t, 0);
  return is_unsigned_int(t) ? Scalar::unsigned_int(t, 0) : Scalar::signed_int(t, 0);
}

Scalar one(Prim t) {
  if (is_float(t)) return Scalar::floating(t, 1);
  return is_unsigned_int(t) ? Scalar::unsigned_int(t, 1) : Scalar::signed_int(t, 1);
}

std::vector<Scalar> neutral(Prim t, HistOp op) {
  switch (op) {
    case HistOp::Min: return {highest(t)};
    case HistOp::Max: return {lowest(t)};
    case HistOp::ArgMax: return {lowest(Prim::I32), Scalar::i32(-1)};
    case HistOp::Vec3: return {zero(t), zero(t), zero(t)};
    case HistOp::Pair: return {Scalar::i64(0), lowest(Prim::F64)};
    case HistOp::Or: return {Scalar::boolean(false)};
    case HistOp::SatAdd: return {Scalar::i32(0)};
    default: return {zero(t)};
  }
}

// ---- the reference operators on scalars

Scalar add(const Scalar& a, const Scalar& b) {
  if (is_float(a.type)) return Scalar::floating(a.type, a.f + b.f);
  if (is_unsigned_int(a.type)) return Scalar::unsigned_int(a.type, a.u + b.u);
  return Scalar::signed_int(a.type, int64_t(uint64_t(a.i) + uint64_t(b.i)));
}
Scalar minmax(const Scalar& a, const Scalar& b, bool max) {
  if (is_float(a.type)) return Scalar::floating(a.type, max ? std::fmax(a.f, b.f) : std::fmin(a.f, b.f));
  bool less = is_unsigned_int(a.type) ? a.u < b.u : a.i < b.i;
  return (less == max) ? b : a;
}

std::vector<Scalar> combine(HistOp op, const std::vector<Scalar>& a, const std::vector<Scalar>& x) {
  switch (op) {
    case HistOp::Add: return {add(a[0], x[0])};
    case HistOp::Min: return {minmax(a[0], x[0], false)};
    case HistOp::Max: return {minmax(a[0], x[0], true)};
    case HistOp::Xor:
      return {is_unsigned_int(a[0].type) ? Scalar::unsigned_int(a[0].type, a[0].u ^ x[0].u)
                                         : Scalar::signed_int(a[0].type, a[0].i ^ x[0].i)};
    case HistOp::SatAdd: return {Scalar::i32(int32_t(std::min<int64_t>(a[0].i + x[0].i, kSatMax)))};
    case HistOp::ArgMax: {
      bool first = a[0].i > x[0].i || (a[0].i == x[0].i && a[1].i < x[1].i);
      return first ? a : x;
    }
    case HistOp::Vec3: return {add(a[0], x[0]), add(a[1], x[1]), add(a[2], x[2])};
    case HistOp::Pair: return {add(a[0], x[0]), minmax(a[1], x[1], true)};
    case HistOp::Or: return {Scalar::boolean(a[0].b || x[0].b)};
  }
  return a;
}

// What element f with input v contributes.
std::vector<Scalar> lift(Prim t, HistOp op, const Scalar& v, int64_t f) {
  switch (op) {
    case HistOp::ArgMax: return {v, Scalar::i32(int32_t(f))};
    case HistOp::Vec3: {
      Scalar minus_one = is_float(t) ? Scalar::floating(t, -1) : is_unsigned_int(t) ? Scalar::unsigned_int(t, ~0ull)
                                                                                    : Scalar::signed_int(t, -1);
      return {v, add(v, v), add(v, minus_one)};
    }
    case HistOp::Pair: return {v, Scalar::floating(Prim::F64, double(v.i))};
    default: return {v};
  }
}

// Fresh copies of the destinations (updated in place by a run).
std::vector<BufferPtr> fresh_buffers(const Case& c) {
  std::vector<BufferPtr> out = c.buffers;
  for (int id : c.plan.steps.at(0).writes) {
    const Buffer& from = *c.buffers[size_t(id)];
    auto b = std::make_shared<Buffer>(from.elem(), from.count());
    if (from.bytes()) std::memcpy(b->host_mut(), from.host(), from.bytes());
    out[size_t(id)] = b;
  }
  return out;
}

// A plan of one step: is (0), vs (1), then the destinations.
Case make_case(plan::Step st, Prim in_t, const std::vector<Prim>& types, const std::vector<Scalar>& is,
               const std::vector<Scalar>& vs, const std::vector<std::vector<Scalar>>& dest,
               const std::vector<std::vector<Scalar>>& want) {
  Case c;
  const int64_t total = st.segments * st.segment_size, hist = st.segments * st.bins;
  st.reads = {0, 1};
  c.plan.buffers = {desc(Prim::I64, total, "is", true), desc(in_t, total, "vs", true)};
  c.buffers = {buffer_of(Prim::I64, is), buffer_of(in_t, vs)};
  c.expected = {nullptr, nullptr};
  for (size_t r = 0; r < types.size(); ++r) {
    st.writes.push_back(int(c.plan.buffers.size()));
    c.plan.buffers.push_back(desc(types[r], hist, fmt::format("dest{}", r), true));
    c.buffers.push_back(buffer_of(types[r], dest[r]));
    c.expected.push_back(buffer_of(types[r], want[r]));
  }
  c.plan.results = st.writes;
  c.plan.steps.push_back(std::move(st));
  c.tolerance.assign(c.buffers.size(), {});
  return c;
}

// ---- launch configurations (gpu/launch/hist_launch.hpp's overrides)

struct Config {
  const char* atomic = "";  // THORN_HIST_ATOMIC
  const char* memory = "";  // THORN_HIST_MEMORY
  int64_t m = 0;            // THORN_HIST_M
  int64_t passes = 0;       // THORN_HIST_CHUNK = ceil(bins / passes)
  std::string name() const {
    if (!*atomic && !*memory && !m && !passes) return "model";
    std::string s;
    if (*atomic) s += fmt::format("{} ", atomic);
    if (*memory) s += fmt::format("{} ", memory);
    if (m) s += fmt::format("M={} ", m);
    if (passes) s += fmt::format("passes={} ", passes);
    s.pop_back();
    return s;
  }
  void apply(int64_t bins) const {
    auto set = [](const char* var, const std::string& v) {
      if (v.empty() || v == "0") unsetenv(var);
      else setenv(var, v.c_str(), 1);
    };
    set("THORN_HIST_ATOMIC", atomic);
    set("THORN_HIST_MEMORY", memory);
    set("THORN_HIST_M", std::to_string(m));
    set("THORN_HIST_CHUNK", passes ? std::to_string(std::max<int64_t>(1, (bins + passes - 1) / passes)) : "");
  }
};

const Config kConfigs[] = {
    {},                              // the model's choice
    {"", "global", 1, 0},            // global memory, straight into the destinations
    {"", "global", 5, 0},            // five global subhistograms and the combine
    {"", "shared", 0, 3},            // shared memory, three passes
    {"", "global", 3, 4},            // global subhistograms, four passes
    {"", "shared", 1, 0},            // one shared copy per block
    {"cas", "", 0, 0},               // the operator's CAS loop instead of hardware atomics
    {"lock", "", 0, 0},              // locks instead
    {"lock", "shared", 0, 2},        // locks in shared memory, two passes
    {"cas", "global", 4, 2},         // CAS on global subhistograms, two passes
};
constexpr int kNumConfigs = sizeof kConfigs / sizeof kConfigs[0];

void run_hist_case(const Runner& run, const Case& c, const Config& cfg, const SuiteOptions& o, SuiteResult& r,
                   int times = 2) {
  std::string name = c.name + " [" + cfg.name() + "]";
  if (!o.filter.empty() && name.find(o.filter) == std::string::npos) return;
  ++r.cases;
  cfg.apply(c.plan.steps.at(0).segments * c.plan.steps.at(0).bins);
  std::string failure;
  for (int k = 0; k < times && failure.empty(); ++k) {
    std::vector<BufferPtr> buffers = fresh_buffers(c);
    try {
      run(c.plan, buffers);
      failure = compare(c, buffers);
    } catch (const Error& e) {
      failure = c.name + ": threw " + e.render();
    }
    if (!failure.empty() && k > 0) failure += " (on the repeated launch)";
  }
  Config{}.apply(0);
  if (!failure.empty()) {
    failure += " [" + cfg.name() + "]";
  }
  r.record(name, failure, o);
}

// A failing Check in the element ("thirteen": a value 13) or in the
// operator ("minus seven": a value -7 reaching ⊕) must reach the caller as
// Error(Runtime) with its message, on every configuration (a lock must be
// released, a CAS loop left), and without one the result must be right.
void run_hist_errors(const Runner& run, const SuiteOptions& o, SuiteResult& r) {
  const int64_t n = 3000, bins = 50;
  plan::Step st;
  st.kind = plan::StepKind::SegHist;
  st.segment_size = n;
  st.bins = bins;
  st.commutative = true;
  {
    Builder b(st.element);
    st.element.name = "hist_elem_checked";
    int is = b.free_array(Prim::I64, "is"), vs = b.free_array(Prim::I32, "vs");
    b.param(Prim::I64);
    Reg j = b.param(Prim::I64);
    Reg v = b.read(vs, j);
    b.check(b.compare(CmpOp::Ne, v, b.i32(13)), "thirteen (test)");
    b.ret({b.read(is, j), v});
  }
  {
    Builder b(st.op);
    st.op.name = "op_checked";
    Reg a = b.param(Prim::I32), x = b.param(Prim::I32);
    b.check(b.compare(CmpOp::Ne, x, b.i32(-7)), "minus seven (test)");
    b.ret({b.binary(BinOp::Add, a, x)});
  }
  st.neutral = {Scalar::i32(0)};
  for (const Config& cfg : kConfigs)
    for (int planted : {0, 13, -7}) {
      const std::string name = fmt::format("seghist check {} [{}]", planted, cfg.name());
      if (!o.filter.empty() && name.find(o.filter) == std::string::npos) continue;
      ++r.cases;
      // Positive values below 13: no partial sum is ever -7 or 13 by chance
      // in the operator (it sees partial sums, never checked against 13).
      std::vector<Scalar> is, vs, dest(size_t(bins), Scalar::i32(0)), want = dest;
      uint64_t state = 99;
      for (int64_t f = 0; f < n; ++f) {
        const int64_t b = int64_t(next(state) % uint64_t(bins));
        const int32_t v = f == n / 2 && planted ? planted : int32_t(1 + next(state) % 12);
        is.push_back(Scalar::i64(b));
        vs.push_back(Scalar::i32(v));
        want[size_t(b)] = Scalar::i32(int32_t(want[size_t(b)].i + v));
      }
      Case c = make_case(st, Prim::I32, {Prim::I32}, is, vs, {dest}, {want});
      c.name = name;
      cfg.apply(bins);
      std::vector<BufferPtr> buffers = fresh_buffers(c);
      std::string failure;
      try {
        run(c.plan, buffers);
        failure = planted ? name + ": a failing Check did not raise an error" : compare(c, buffers);
      } catch (const Error& e) {
        const char* want_msg = planted == 13 ? "thirteen (test)" : "minus seven (test)";
        if (!planted) failure = name + ": unexpected error " + e.render();
        else if (e.kind != ErrorKind::Runtime || e.message.find(want_msg) == std::string::npos)
          failure = name + ": wrong error " + e.render();
      }
      Config{}.apply(0);
      r.record(name, failure, o);
    }
}

}  // namespace

const char* hist_op_name(HistOp op) {
  switch (op) {
    case HistOp::Add: return "add";
    case HistOp::Min: return "min";
    case HistOp::Max: return "max";
    case HistOp::Xor: return "xor";
    case HistOp::SatAdd: return "satadd";
    case HistOp::ArgMax: return "argmax";
    case HistOp::Vec3: return "vec3";
    case HistOp::Pair: return "pair";
    case HistOp::Or: return "or";
  }
  return "?";
}

plan::Step seghist(Prim t, HistOp op, int64_t segments, int64_t n, int64_t bins) {
  plan::Step st;
  st.kind = plan::StepKind::SegHist;
  st.segments = segments;
  st.segment_size = n;
  st.bins = bins;
  st.commutative = true;
  const std::vector<Prim> types = value_types(t, op);
  const Prim in_t = input_type(t, op);
  {
    Builder b(st.element);
    st.element.name = std::string("hist_elem_") + hist_op_name(op);
    int is = b.free_array(Prim::I64, "is"), vs = b.free_array(in_t, "vs");
    Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
    Reg f = b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(n)), j);
    Reg bin = b.read(is, f), v = b.read(vs, f);
    switch (op) {
      case HistOp::ArgMax: b.ret({bin, v, b.convert(Prim::I32, f)}); break;
      case HistOp::Vec3: b.ret({bin, v, b.binary(BinOp::Add, v, v), b.binary(BinOp::Sub, v, b.constant(one(t)))}); break;
      case HistOp::Pair: b.ret({bin, v, b.convert(Prim::F64, v)}); break;
      default: b.ret({bin, v}); break;
    }
  }
  {
    Builder b(st.op);
    st.op.name = std::string("op_") + hist_op_name(op);
    std::vector<Reg> a, x;
    for (Prim p : types) a.push_back(b.param(p));
    for (Prim p : types) x.push_back(b.param(p));
    switch (op) {
      case HistOp::Add: b.ret({b.binary(BinOp::Add, a[0], x[0])}); break;
      case HistOp::Min: b.ret({b.binary(BinOp::Min, a[0], x[0])}); break;
      case HistOp::Max: b.ret({b.binary(BinOp::Max, a[0], x[0])}); break;
      case HistOp::Xor: b.ret({b.binary(BinOp::Xor, a[0], x[0])}); break;
      case HistOp::Or: b.ret({b.binary(BinOp::LogOr, a[0], x[0])}); break;
      case HistOp::SatAdd:
        b.ret({b.binary(BinOp::Min, b.binary(BinOp::Add, a[0], x[0]), b.i32(kSatMax))});
        break;
      case HistOp::ArgMax: {
        Reg first = b.binary(BinOp::LogOr, b.compare(CmpOp::Gt, a[0], x[0]),
                             b.binary(BinOp::LogAnd, b.compare(CmpOp::Eq, a[0], x[0]), b.compare(CmpOp::Lt, a[1], x[1])));
        b.ret({b.select(first, a[0], x[0]), b.select(first, a[1], x[1])});
        break;
      }
      case HistOp::Vec3:
        b.ret({b.binary(BinOp::Add, a[0], x[0]), b.binary(BinOp::Add, a[1], x[1]), b.binary(BinOp::Add, a[2], x[2])});
        break;
      case HistOp::Pair: b.ret({b.binary(BinOp::Add, a[0], x[0]), b.binary(BinOp::Max, a[1], x[1])}); break;
    }
  }
  st.neutral = neutral(t, op);
  return st;
}

Case seghist_case(Prim t, HistOp op, int64_t segments, int64_t n, int64_t bins, uint64_t seed, const HistInput& in) {
  const Prim in_t = input_type(t, op);
  const std::vector<Prim> types = value_types(t, op);
  const size_t k = types.size();
  const int64_t total = segments * n, hist = segments * bins;
  uint64_t state = seed;
  std::vector<Scalar> is(static_cast<size_t>(total)), vs(static_cast<size_t>(total));
  const int64_t stride = std::max<int64_t>(1, in.race_factor);
  const int64_t active = std::max<int64_t>(1, bins / stride);
  for (int64_t f = 0; f < total; ++f) {
    const uint64_t r = next(state);
    int64_t b;
    if (bins > 0 && double(r % 1000000) >= in.out_of_bounds * 1e6) {
      b = int64_t(next(state) % uint64_t(active)) * stride;  // the paper's (x % (H/RF)) * RF
      if (b >= bins) b = bins - 1;
    } else {
      const int64_t odd[] = {-1, bins, bins + 5, -bins - 1, std::numeric_limits<int64_t>::min(),
                             std::numeric_limits<int64_t>::max()};
      b = odd[next(state) % 6];
    }
    is[size_t(f)] = Scalar::i64(b);
    Scalar v;
    const uint64_t q = next(state);
    if (op == HistOp::SatAdd) v = Scalar::i32(int32_t(q % (1 << 20)));  // non-negative; sums saturate
    else if (op == HistOp::ArgMax) v = Scalar::i32(int32_t(q % 16) - 8);  // many ties
    else if (in.specials && is_float(in_t) && q % 16 == 0) {
      const double sp[] = {std::nan(""), -0.0, std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
      v = Scalar::floating(in_t, sp[(q >> 8) % 4]);
    } else if (in.random_floats && is_float(in_t)) {
      v = Scalar::floating(in_t, double(int64_t(q % 2000001) - 1000000) / 999983.0);
    } else {
      v = random_value(in_t, state);
    }
    vs[size_t(f)] = v;
  }
  std::vector<std::vector<Scalar>> dest(k, std::vector<Scalar>(size_t(hist)));
  const std::vector<Scalar> ne = neutral(t, op);
  for (int64_t i = 0; i < hist; ++i) {
    std::vector<Scalar> d = in.neutral_dest ? ne : lift(t, op, op == HistOp::SatAdd ? Scalar::i32(int32_t(next(state) % 1000)) : op == HistOp::ArgMax ? Scalar::i32(int32_t(next(state) % 16) - 8) : random_value(in_t, state), -1 - i);
    for (size_t r = 0; r < k; ++r) dest[r][size_t(i)] = d[r];
  }
  // The sequential reference (notes-hist.md Fig. 5).
  std::vector<std::vector<Scalar>> want = dest;
  std::vector<double> magnitude(size_t(hist), 0.0), count(size_t(hist), 0.0);
  for (int64_t s = 0; s < segments; ++s)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t f = s * n + j, b = is[size_t(f)].i;
      if (b < 0 || b >= bins) continue;
      const size_t at = size_t(s * bins + b);
      std::vector<Scalar> acc(k), x = lift(t, op, vs[size_t(f)], f);
      for (size_t r = 0; r < k; ++r) acc[r] = want[r][at];
      acc = combine(op, acc, x);
      for (size_t r = 0; r < k; ++r) want[r][at] = acc[r];
      if (is_float(in_t)) magnitude[at] += std::fabs(vs[size_t(f)].f) * 3;
      count[at] += 1;
    }
  Case c = make_case(seghist(t, op, segments, n, bins), in_t, types, is, vs, dest, want);
  c.name = fmt::format("seghist {} {}{}{}{} [{}][{}] -> [{}][{}]", hist_op_name(op), prim_name(in_t),
                       in.random_floats ? " (random floats)" : "", in.specials ? " (nan, -0, inf)" : "",
                       in.race_factor > 1 ? fmt::format(" RF={}", in.race_factor) : "", segments, n, segments, bins);
  // Float sums in another order round differently: the usual bound of the
  // error of a sum of `count` terms, plus the destination's value.
  for (size_t r = 0; r < k; ++r)
    if (is_float(types[r]) && (in.random_floats || types[r] == Prim::F16) && op != HistOp::Max && op != HistOp::Min) {
      const double eps = types[r] == Prim::F16 ? std::ldexp(1.0, -11)
                         : types[r] == Prim::F32 ? std::ldexp(1.0, -24)
                                                 : std::ldexp(1.0, -53);
      std::vector<double> tol(static_cast<size_t>(hist));
      for (size_t i = 0; i < tol.size(); ++i)
        tol[i] = (magnitude[i] + 4) * eps * (count[i] + 2) + (types[r] == Prim::F16 ? 1e-3 : 0);
      c.tolerance[2 + r] = tol;
    }
  return c;
}

Case seghist_known(const std::vector<int32_t>& dest, const std::vector<int64_t>& is, const std::vector<int32_t>& vs) {
  const int64_t n = int64_t(is.size()), bins = int64_t(dest.size());
  std::vector<Scalar> sis, svs, d, want;
  for (int64_t i : is) sis.push_back(Scalar::i64(i));
  for (int32_t v : vs) svs.push_back(Scalar::i32(v));
  for (int32_t v : dest) d.push_back(Scalar::i32(v));
  want = d;
  for (size_t f = 0; f < is.size(); ++f)
    if (is[f] >= 0 && is[f] < bins) want[size_t(is[f])] = Scalar::i32(want[size_t(is[f])].i + vs[f]);
  Case c = make_case(seghist(Prim::I32, HistOp::Add, 1, n, bins), Prim::I32, {Prim::I32}, sis, svs, {d}, {want});
  c.name = fmt::format("seghist known add i32 [{}] -> [{}]", n, bins);
  return c;
}

Case seghist_one_bin(HistOp op, int64_t n, uint64_t seed) {
  // Raw buffers: 10^7 elements as Scalars would need gigabytes.
  const Prim t = Prim::I32;
  plan::Step st = seghist(t, op, 1, n, 1);
  st.reads = {0, 1};
  Case c;
  c.name = fmt::format("seghist one bin {} i32 [{}] -> [1]", hist_op_name(op), n);
  c.plan.buffers = {desc(Prim::I64, n, "is", true), desc(t, n, "vs", true), desc(t, 1, "dest0", true)};
  st.writes = {2};
  c.plan.results = st.writes;
  c.plan.steps.push_back(std::move(st));
  auto is = std::make_shared<Buffer>(Prim::I64, n);  // zeros: bin 0
  auto vs = std::make_shared<Buffer>(t, n);
  int32_t* v = reinterpret_cast<int32_t*>(vs->host_mut());
  uint64_t state = seed;
  int32_t best = std::numeric_limits<int32_t>::min();
  for (int64_t i = 0; i < n; ++i) {
    v[i] = op == HistOp::Add ? 1 : int32_t(next(state) % 2000000000u) - 1000000000;
    best = std::max(best, v[i]);
  }
  c.buffers = {is, vs, buffer_of(t, {neutral(t, op)[0]})};
  c.expected = {nullptr, nullptr, buffer_of(t, {Scalar::i32(op == HistOp::Add ? int32_t(n) : best)})};
  c.tolerance.assign(3, {});
  return c;
}

SuiteResult run_hist_suite(const Runner& run, const DeviceProps& dev, const SuiteOptions& o) {
  (void)dev;
  SuiteResult r;
  uint64_t seed = 7000;
  const Config model{};
  // §5.1-5.4: known answers, out-of-bounds indices, empty inputs and histograms.
  for (const Config& cfg : kConfigs) {
    run_hist_case(run, seghist_known({0, 0, 0, 0, 0}, {0, 1, 1, 3, 3, 3}, {1, 1, 1, 1, 1, 1}), cfg, o, r);
    run_hist_case(run, seghist_known({10, 20, 30}, {0, 2, 2}, {1, 2, 3}), cfg, o, r);
    const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    run_hist_case(run, seghist_known({0, 0, 0}, {-1, 3, 5, 0, 2, lo, hi}, {1, 1, 1, 1, 1, 1, 1}), cfg, o, r);
    std::vector<int32_t> big(24577, 0);
    run_hist_case(run, seghist_known(big, {-1, 24577, 24576, 0, 12288, lo, hi, 24576, 30000}, {1, 1, 1, 1, 1, 1, 1, 1, 1}),
                  cfg, o, r);
  }
  run_hist_errors(run, o, r);
  run_hist_case(run, seghist_known({4, 5}, {}, {}), model, o, r);
  run_hist_case(run, seghist_known({}, {0, 1}, {1, 1}), model, o, r);
  run_hist_case(run, seghist_case(Prim::I32, HistOp::Add, 0, 5, 7, seed++), model, o, r);
  run_hist_case(run, seghist_case(Prim::I32, HistOp::Add, 4, 0, 7, seed++), model, o, r);

  // §5.6, §5.8, §5.9, §5.12: the main operators on every configuration.
  struct Shape {
    int64_t segments, n, bins;
  };
  const Shape shapes[] = {{1, 2000, 31}, {1, 3000, 127}, {1, 1500, 505}, {1, 1000, 5000}, {1, 4000, 1},
                          {100, 40, 22}, {1, 777, 1},    {3, 700, 61}};
  struct OpType {
    HistOp op;
    Prim t;
    bool all_configs;
  };
  const OpType ops[] = {
      {HistOp::Add, Prim::I32, true},  {HistOp::Add, Prim::F32, true},    {HistOp::SatAdd, Prim::I32, true},
      {HistOp::ArgMax, Prim::I32, true}, {HistOp::Add, Prim::I64, false}, {HistOp::Add, Prim::F64, false},
      {HistOp::Add, Prim::U8, false},  {HistOp::Add, Prim::F16, false},   {HistOp::Min, Prim::I32, false},
      {HistOp::Max, Prim::I64, false}, {HistOp::Max, Prim::F32, false},   {HistOp::Min, Prim::F64, false},
      {HistOp::Xor, Prim::U32, false}, {HistOp::Xor, Prim::I64, false},   {HistOp::Vec3, Prim::I32, false},
      {HistOp::Vec3, Prim::F32, false}, {HistOp::Pair, Prim::I64, false}, {HistOp::Or, Prim::Bool, false},
  };
  for (const OpType& ot : ops)
    for (const Config& cfg : kConfigs) {
      if (!ot.all_configs && cfg.name() != "model" && std::string(cfg.atomic).empty() && cfg.passes == 0) continue;
      for (const Shape& sh : shapes) {
        if (ot.t == Prim::F16 && sh.n * sh.segments > 1000) continue;  // f16 sums must stay exact
        run_hist_case(run, seghist_case(ot.t, ot.op, sh.segments, sh.n, sh.bins, seed++), cfg, o, r);
      }
    }
  // Sparse histograms (RF = 63, as in the paper's experiments) and a
  // neutral destination.
  for (const Config& cfg : kConfigs) {
    HistInput in;
    in.race_factor = 63;
    run_hist_case(run, seghist_case(Prim::I32, HistOp::Add, 1, 3000, 2048, seed++, in), cfg, o, r);
    run_hist_case(run, seghist_case(Prim::I32, HistOp::ArgMax, 1, 3000, 2048, seed++, in), cfg, o, r);
    in.race_factor = 1;
    in.neutral_dest = true;
    run_hist_case(run, seghist_case(Prim::I32, HistOp::SatAdd, 1, 3000, 100, seed++, in), cfg, o, r);
  }
  // §5.13: floats that do not add exactly (a tolerance), NaN, -0.0 and infinities.
  for (const Config& cfg : kConfigs) {
    HistInput rnd;
    rnd.random_floats = true;
    run_hist_case(run, seghist_case(Prim::F32, HistOp::Add, 1, 5000, 31, seed++, rnd), cfg, o, r);
    run_hist_case(run, seghist_case(Prim::F64, HistOp::Add, 2, 2000, 64, seed++, rnd), cfg, o, r);
    HistInput sp;
    sp.specials = true;
    run_hist_case(run, seghist_case(Prim::F32, HistOp::Add, 1, 3000, 40, seed++, sp), cfg, o, r);
    run_hist_case(run, seghist_case(Prim::F32, HistOp::Max, 1, 3000, 40, seed++, sp), cfg, o, r);
    run_hist_case(run, seghist_case(Prim::F64, HistOp::Min, 1, 3000, 40, seed++, sp), cfg, o, r);
  }
  // §5.6 sizes and §5.12 histograms too large for shared memory, on the
  // model's choice and a few forced ones.
  const Config few[] = {model, kConfigs[1], kConfigs[3], kConfigs[7]};
  for (const Config& cfg : few) {
    for (int64_t bins : {24576, 24577, 786432})
      run_hist_case(run, seghist_case(Prim::I32, HistOp::Add, 1, 20000, bins, seed++), cfg, o, r);
    run_hist_case(run, seghist_case(Prim::I32, HistOp::ArgMax, 4, 5000, 100000, seed++), cfg, o, r);
  }
  run_hist_case(run, seghist_case(Prim::I32, HistOp::Add, 1, 1000, int64_t(1) << 24, seed++), model, o, r, 1);
  // The race-factor inspector: histograms the global-memory model takes,
  // with input enough to sample (16 x the bins), uniform and sparse.
  for (int64_t rf : {1, 63}) {
    HistInput in;
    in.race_factor = rf;
    Case c = seghist_case(Prim::I32, HistOp::Add, 1, 1600000, 100000, seed++, in);
    if (!o.filter.empty() && (c.name + " [model]").find(o.filter) == std::string::npos) continue;
    SuiteResult one;
    run_hist_case(run, c, model, o, one, 1);
    const exec::HistTrace t = exec::last_hist_trace();
    const bool plausible = rf == 1 ? t.race_factor < 3 : t.race_factor > 30 && t.race_factor < 100;
    if (one.failures == 0 && (!t.inspected || !plausible)) {
      ++one.failures;
      one.messages.push_back(fmt::format("{}: the inspector {} (RF {:.3g}; {})", c.name,
                                         t.inspected ? "measured an implausible race factor" : "did not run",
                                         t.race_factor, t.why));
      fmt::print(stderr, "FAIL: {}\n", one.messages.back());
    } else if (o.verbose) {
      fmt::print("inspector: RF {:.3g} for inputs of RF {}: {}\n", t.race_factor, rf, t.why);
    }
    r.add(one);
  }
  // §5.5: ten million inputs into one bin.
  run_hist_case(run, seghist_one_bin(HistOp::Add, 10000000, seed++), model, o, r, 1);
  run_hist_case(run, seghist_one_bin(HistOp::Max, 10000000, seed++), model, o, r, 1);
  return r;
}

SuiteResult run_hist_stress(const Runner& run, int launches, uint64_t seed, const SuiteOptions& o) {
  SuiteResult r;
  uint64_t state = seed;
  const HistOp ops[] = {HistOp::Add, HistOp::SatAdd, HistOp::ArgMax, HistOp::Vec3};
  for (int i = 0; i < launches; ++i) {
    const Config& cfg = kConfigs[next(state) % kNumConfigs];
    const HistOp op = ops[next(state) % 4];
    const int64_t segments = 1 + int64_t(next(state) % 4) * int64_t(next(state) % 4);
    const int64_t n = int64_t(next(state) % 1500);
    const int64_t bins = next(state) % 16 == 0 ? 0 : 1 + int64_t(next(state) % (next(state) % 2 ? 64 : 5000));
    HistInput in;
    in.race_factor = next(state) % 3 == 0 ? 63 : 1;
    Case c = seghist_case(Prim::I32, op, segments, n, bins, next(state), in);
    c.name = fmt::format("stress {}: {}", i, c.name);
    SuiteResult one;
    run_hist_case(run, c, cfg, o, one, 1);
    r.add(one);
  }
  return r;
}

}  // namespace thorn::gpu::test
