#include "interp/exec/host_backend.hpp"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "interp/eval/evaluator.hpp"
#include "interp/exec/host_executor.hpp"
#include "interp/exec/host_gpu.hpp"
#include "interp/exec/host_work.hpp"
#include "interp/exec/map_distribute.hpp"
#include "interp/exec/map_interchange.hpp"
#include "interp/exec/map_jacobian.hpp"
#include "interp/exec/reference.hpp"
#include "interp/flatten/delayed.hpp"
#include "interp/flatten/elem_tree.hpp"
#include "interp/flatten/planner.hpp"

namespace thorn::exec::host_backend {

namespace {

double tolerance(Prim t, double rel_tol) {
  double eps = t == Prim::F16 ? 9.765625e-4 : t == Prim::F32 ? double(std::numeric_limits<float>::epsilon())
                                                              : std::numeric_limits<double>::epsilon();
  // Reassociated float sums lose more than one rounding: allow a few
  // thousand ulps, but never less than asked.
  return std::max(rel_tol, std::min(5e-2, 1000 * eps));
}

bool scalars_agree(const Scalar& a, const Scalar& b, double rel_tol, double abs_tol) {
  if (a.type != b.type) return false;
  if (!is_float(a.type)) return a == b;
  if (std::isnan(a.f) || std::isnan(b.f)) return std::isnan(a.f) && std::isnan(b.f);
  if (std::isinf(a.f) || std::isinf(b.f)) return a.f == b.f;
  double tol = tolerance(a.type, rel_tol);
  return std::fabs(a.f - b.f) <= abs_tol + tol * std::max(std::fabs(a.f), std::fabs(b.f));
}

std::string index_path(const std::vector<int64_t>& shape, int64_t flat) {
  std::string s;
  std::vector<int64_t> idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    idx[k] = shape[k] ? flat % shape[k] : 0;
    flat = shape[k] ? flat / shape[k] : 0;
  }
  for (int64_t i : idx) s += fmt::format("[{}]", i);
  return s;
}

std::string diff(const Value& a, const Value& b, const std::string& path, double rel, double abs);

std::string diff_arrays(const ArrayValue& a, const ArrayValue& b, const std::string& path, double rel, double abs) {
  if (a.shape != b.shape)
    return fmt::format("{}: shape {} vs {}", path.empty() ? "result" : path, eval::shape_string(a.shape),
                       eval::shape_string(b.shape));
  if (a.elem.kind != b.elem.kind) return fmt::format("{}: element structure differs", path);
  switch (a.elem.kind) {
    case ElemShape::Kind::Prim: {
      int64_t n = a.count();
      for (int64_t i = 0; i < n; ++i) {
        Scalar x = prim_element(a, i), y = prim_element(b, i);
        if (!scalars_agree(x, y, rel, abs))
          return fmt::format("at {}{}: host {} vs reference {}", path, index_path(a.shape, i), format_scalar(x),
                             format_scalar(y));
      }
      return {};
    }
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record:
      for (size_t k = 0; k < a.components.size() && k < b.components.size(); ++k) {
        std::string field = a.elem.kind == ElemShape::Kind::Record && k < a.elem.names.size()
                                ? "." + a.elem.names[k]
                                : fmt::format(".{}", k);
        std::string d = diff_arrays(*a.components[k], *b.components[k], path + field, rel, abs);
        if (!d.empty()) return d;
      }
      return {};
    case ElemShape::Kind::Boxed: {
      int64_t n = a.count();
      for (int64_t i = 0; i < n; ++i) {
        std::string d = diff((*a.boxed)[size_t(a.offset + i)], (*b.boxed)[size_t(b.offset + i)],
                             path + index_path(a.shape, i), rel, abs);
        if (!d.empty()) return d;
      }
      return {};
    }
  }
  return {};
}

std::string diff(const Value& a, const Value& b, const std::string& path, double rel, double abs) {
  if (a.kind != b.kind) return fmt::format("{}: different kinds of value", path.empty() ? "result" : path);
  switch (a.kind) {
    case Value::Kind::Scalar:
      if (scalars_agree(a.scalar, b.scalar, rel, abs)) return {};
      return fmt::format("{}: host {} vs reference {}", path.empty() ? "result" : path, format_scalar(a.scalar),
                         format_scalar(b.scalar));
    case Value::Kind::Array: return diff_arrays(a.arr(), b.arr(), path, rel, abs);
    case Value::Kind::Tuple:
    case Value::Kind::Record:
    case Value::Kind::Sum:
      if (a.elems->size() != b.elems->size()) return fmt::format("{}: different structure", path);
      for (size_t k = 0; k < a.elems->size(); ++k) {
        std::string d = diff((*a.elems)[k], (*b.elems)[k], path + fmt::format(".{}", k), rel, abs);
        if (!d.empty()) return d;
      }
      return {};
    case Value::Kind::Function:
    case Value::Kind::AD: return {};
  }
  return {};
}

}  // namespace

std::string first_difference(const Value& host, const Value& reference, double rel_tol, double abs_tol) {
  return diff(host, reference, "", rel_tol, abs_tol);
}

namespace {
std::atomic<bool> g_log_plans{std::getenv("THORN_LOG_PLAN") != nullptr};
}
void set_log_plans(bool on) { g_log_plans = on; }
bool log_plans() { return g_log_plans; }

int64_t min_work() {
  static const int64_t v = [] {
    const char* env = std::getenv("THORN_HOST_MIN_WORK");
    return env ? std::max<int64_t>(0, std::atoll(env)) : kDefaultMinWork;
  }();
  return v;
}

// Elements the call iterates over: its input array's element count.
int64_t work_of(const SoacCall& call) {
  size_t input = 0;
  switch (call.kind) {
    case SoacKind::Iota:
    case SoacKind::Replicate: return call.args.empty() ? 0 : call.args[0].scalar.as_i64();
    case SoacKind::Map: input = 1; break;
    case SoacKind::Reduce:
    case SoacKind::ReduceComm:
    case SoacKind::Scan: input = 2; break;
    case SoacKind::ReduceByIndex: input = 4; break;
    case SoacKind::Scatter: input = 2; break;
    default: input = 0; break;
  }
  if (input >= call.args.size() || call.args[input].kind != Value::Kind::Array) return 0;
  const ArrayValue& a = call.args[input].arr();
  int64_t n = 1;
  for (int64_t d : a.shape) n *= d;
  return n;
}

// A call over no elements (an empty input, iota 0, replicate 0 x).
bool empty_call(const SoacCall& call) {
  switch (call.kind) {
    case SoacKind::Iota:
    case SoacKind::Replicate:
      return !call.args.empty() && call.args[0].kind == Value::Kind::Scalar && call.args[0].scalar.as_i64() == 0;
    case SoacKind::Transpose:  // [1][0] has rows but no elements
      return !call.args.empty() && call.args[0].kind == Value::Kind::Array && call.args[0].arr().count() == 0;
    default: break;
  }
  for (const Value& v : call.args)
    if (v.kind == Value::Kind::Array && !v.arr().shape.empty() && v.arr().shape[0] == 0) return true;
  return false;
}

// Set while --validate computes the reference result of a flattened call:
// the SOACs nested in it then run on the reference too, so the comparison
// is against the sequential semantics (with operators that are associative
// only up to rounding or scale, a host scan nested in the check would
// differ from the reference for reasons that are not the flattener's).
thread_local int g_reference_check_depth = 0;

// The length of a map's inputs, or -1 when they are not arrays of one
// length (the planner says why).
int64_t map_length(const SoacCall& call) {
  int64_t n = -1;
  for (size_t k = 1; k < call.args.size(); ++k) {
    if (call.args[k].kind != Value::Kind::Array) return -1;
    int64_t len = call.args[k].arr().outer();
    if (n >= 0 && len != n) return -1;
    n = len;
  }
  return n;
}

// A map is first offered to the two run-time rewrites, which turn it into
// other SOAC calls dispatched on their own (interchange: one map per
// iteration of a loop; distribution: one map per let); otherwise the
// planner makes its plan. The rewrites' decisions, taken or not, head the
// listing or the fallback's reason.
flatten::HostRun rewrite_or_plan(SoacCall& call, eval::Evaluator& ev, const flatten::PlanExecutor& execute,
                                 bool want_listing) {
  std::string note;
  if (const int64_t n = call.kind == SoacKind::Map ? map_length(call) : -1; n > 0) {
    Interchange ic = try_interchange(call, ev, n);
    if (ic.value) return flatten::HostRun{std::move(ic.value), "", want_listing ? ic.note : ""};
    note = ic.note;
    Distribution dist = try_distribute(call, ev, n);
    if (dist.value) return flatten::HostRun{std::move(dist.value), "", want_listing ? note + dist.note : ""};
    note += dist.note;
  }
  flatten::HostRun r = flatten::run_on_host(call, execute, want_listing);
  // A map of derivatives the element-wise transformation could not
  // differentiate: as vector AD when only the seed varies.
  if (!r.value && call.kind == SoacKind::Map)
    if (Jacobian j = try_jacobian(call, ev, map_length(call)); j.value)
      return flatten::HostRun{std::move(j.value), "", want_listing ? note + j.note : ""};
  if (!note.empty()) {
    if (r.value && want_listing) r.listing = note + r.listing;
    else if (!r.value && !r.fallback.empty()) r.fallback += "; " + note.substr(0, note.size() - 1);
  }
  return r;
}

std::optional<Value> run(SoacCall& call, eval::Evaluator& ev) {
  if (g_reference_check_depth > 0) return std::nullopt;
  // Below this much work a plan costs more than it saves: the reference
  // runs the call (and a delayed input is simply materialised). Unless each
  // element runs loops, inner SOACs or much code (host_work.hpp): the
  // reference evaluator walks the syntax tree, the host executor runs
  // kernel IR, and the flattener distributes inner SOACs over the nest.
  if (const int64_t work = work_of(call); work < min_work() && (work == 0 || !heavy_elements(call)))
    return std::nullopt;
  // Nothing to run: the reference makes the empty result without a plan.
  if (empty_call(call)) return std::nullopt;
  bool validate = ev.options().validate;
  std::optional<SoacCall> ref_call;
  if (validate) ref_call = call;  // shares the arguments; destinations are then copied, not updated
  // THORN_LOG_PLAN=1 (or `thorn run --log plan`) prints every plan to
  // stderr when nobody else listens.
  const bool log_env = log_plans();
  static const flatten::PlanExecutor gpu_exec = host_gpu::plan_executor();
  static const flatten::PlanExecutor host_exec = [](const plan::Plan& p, std::vector<BufferPtr>& bufs) {
    thorn::host::execute(p, bufs);
  };
  flatten::HostRun r = rewrite_or_plan(call, ev, ev.options().backend == "gpu" ? gpu_exec : host_exec,
                                       validate || ev.on_plan || log_env);
  auto log = [&](const std::string& text) {
    if (ev.on_plan) ev.on_plan(text);
    else if (log_env) std::fprintf(stderr, "%s", text.c_str());
  };
  // A let of a distributed map whose rows have lengths computed per
  // element: the reference would build them only to find them irregular.
  if (!r.value && call.kind == SoacKind::Map && distributing() &&
      r.fallback.find(flatten::kIrregularRows) != std::string::npos) {
    if (ev.on_plan || log_env)
      log(fmt::format("{} at {}: a let of a map being distributed: {}\n", soac_name(call.kind), call.loc.str(),
                      flatten::kIrregularRows));
    throw Error(ErrorKind::Runtime, call.loc, flatten::kIrregularRows);
  }
  if (ev.on_plan || log_env) {
    if (r.value) log(r.listing);
    else if (!r.fallback.empty())
      log(fmt::format("{} at {}: runs on the reference backend: {}\n", soac_name(call.kind), call.loc.str(),
                      r.fallback));
  }
  if (!r.value) return std::nullopt;
  if (validate) {
    Value ref;
    {
      ++g_reference_check_depth;
      struct Leave { ~Leave() { --g_reference_check_depth; } } leave;
      ref = reference::run(*ref_call, ev);
    }
    // A delayed result is compared when (if ever) it is materialised;
    // consumers that fuse it are validated themselves.
    if (r.value->kind == Value::Kind::Array) {
      Loc loc = call.loc;
      std::string what(soac_name(call.kind)), listing = r.listing;
      auto shape = r.value->arr().shape;
      ElemShape elem = r.value->arr().elem;
      bool delayed = flatten::on_materialise(r.value->arr(), [ref, loc, what, listing, shape, elem](
                                                                 const std::vector<BufferPtr>& outs) {
        std::vector<ArrayPtr> leaves;
        for (const BufferPtr& b : outs) leaves.push_back(make_prim_array(b, shape));
        size_t pos = 0;
        Value host = Value::make_array(flatten::nest_leaves(elem, leaves, pos, shape));
        std::string d = first_difference(host, ref);
        if (!d.empty())
          throw Error(ErrorKind::Internal, loc,
                      fmt::format("--validate: the host backend's {} differs from the reference {}", what, d),
                      {"plan:\n" + listing});
      });
      if (delayed) return r.value;
    }
    std::string d = first_difference(*r.value, ref);
    if (!d.empty())
      throw Error(ErrorKind::Internal, call.loc,
                  fmt::format("--validate: the host backend's {} differs from the reference {}", soac_name(call.kind), d),
                  {"plan:\n" + r.listing});
  }
  return r.value;
}

}  // namespace thorn::exec::host_backend
