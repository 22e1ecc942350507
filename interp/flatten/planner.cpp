// SOAC calls -> segmented plans (see planner.hpp): the entry point, maps
// (choosing among the forms in planner_map.cpp) and their plan-cache keys.
#include "interp/flatten/planner_impl.hpp"

#include <array>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>

namespace thorn::flatten::planning {

Value Planner::run(Builder& pb) {
  // Only a SegMap's or Scatter's tiles narrow for large private arrays (kernel_ir.hpp).
  for (const plan::Step& st : pb.plan.steps) {
    bool narrows = st.kind == plan::StepKind::SegMap || st.kind == plan::StepKind::Scatter;
    if ((!narrows && st.element.local_bytes() > kir::kPrivateBytes) || st.op.local_bytes() > kir::kPrivateBytes)
      throw Fallback(fmt::format("private arrays of more than {} KiB per element of a {}", kir::kPrivateBytes / 1024,
                                 plan::step_kind_name(st.kind)));
  }
  if (want_listing) out.listing = plan::to_string(pb.plan);
  execute(pb.plan, pb.bufs);
  return Value();
}

// ---- map
Value Planner::map() {
  const Value& fv = call.args.at(0);
  size_t nin = call.args.size() - 1;
  int64_t n = -1;
  for (size_t k = 1; k <= nin; ++k) {
    if (call.args[k].kind != Value::Kind::Array) throw Fallback("map over a non-array");
    int64_t len = call.args[k].arr().outer();
    if (n >= 0 && len != n) throw Fallback("map over arrays of different lengths");
    n = len;
  }
  if (n == 0) throw Fallback("map over an empty array");
  std::string key;
  bool cacheable = plan_cache_enabled() && map_key(key);
  // A delayed input is fused into the element as code, which a key cannot
  // hold. A map whose rows are built once each (map_rows) reads each input
  // row once, so fusing gains nothing there: its call site materialises
  // delayed inputs first, so that its plan is cached (finpar/InterestCalib
  // evaluates a population of proposals, a delayed map, at every step).
  auto materialise_and_key = [&] {
    materialise_inputs();
    key.clear();
    cacheable = map_key(key);
  };
  std::string site;
  if (!cacheable && plan_cache_enabled() && delayed_inputs()) {
    call_site_key(site);
    if (!signature(fv, false, site, nullptr, nullptr)) site.clear();
    if (!site.empty() && rows_site(site, false)) materialise_and_key();
  }
  // A map called again at the same site (a time loop's steps) whose inputs
  // or captured arrays are small delayed arrays: lowering its function at
  // every call costs more than copying them (rodinia/cfd's 2000 steps read
  // transposed rows and a captured transposed state). From its second call
  // they are materialised, and its plan is cached and then hit.
  if (plan_cache_enabled() && !site.empty() && !cacheable && plan_cache().hot_site(site)) {
    copy_delayed_up_to = kCopyDelayedUpTo;
    key.clear();
    cacheable = map_key(key);
  }
  auto rows = [&] {
    if (!site.empty() && !cacheable) {
      rows_site(site, true);
      materialise_and_key();
      if (cacheable)
        if (std::optional<Value> v = cached_map(key, n)) return std::move(*v);  // else counts the miss
    }
    return map_rows(n, cacheable ? &key : nullptr);
  };
  if (cacheable) {
    if (std::optional<Value> v = cached_map(key, n)) return std::move(*v);
    // Missed again at a site planned before: a captured delayed array
    // kept the last plan out of the cache (its producer is code in it).
    if (copy_delayed_up_to == 0 && plan_cache().hot_site(key)) copy_delayed_up_to = kCopyDelayedUpTo;
  }
  // A first lowering to see what the function returns.
  Sym probe;
  {
    kir::Function f;
    Lowerer lw(f);
    lw.max_private_bytes = kir::kMaxSegMapPrivateBytes;  // rows() below if it needs more than kPrivateBytes
    Reg i = lw.b().param(Prim::I64);
    std::vector<Sym> xs;
    for (size_t k = 1; k <= nin; ++k) xs.push_back(lw.index(input(lw, k), i, call.loc, false));
    probe = lw.apply(lw.from_value(fv), xs, call.loc, true);
    // Its destination may be a copy of any size (`copy xs`): the segmented
    // scatter needs no private storage. Private arrays the body builds
    // (a loop's state) would be built again by every element of both
    // steps: one element per row builds them once.
    if (probe.kind == Sym::Kind::Soac && probe.soac->kind == SoacKind::Scatter)
      return f.locals.empty() ? map_of_scatter(*probe.soac, n) : rows();
    // Private arrays past what a fused or segmented element may hold: one
    // element per row, computed once (knn-by-kdtree's radix sorts per node).
    if (f.local_bytes() > kir::kPrivateBytes) return rows();
    // Over an array whose length depends on the element, the SOAC runs
    // sequentially inside each element instead (map_flat).
    if (probe.kind == Sym::Kind::Soac) {
      const SymSoac& soac = *probe.soac;
      if (soac.kind == SoacKind::ReduceByIndex) return map_of_hist(soac, n);
      bool regular = soac.arr.kind == Sym::Kind::Array && !Lowerer::dynamic(soac.arr) && soac.arr.arr->dims.size() == 1;
      // Private arrays the body builds before its SOAC (a costly map's
      // result, materialised once per row) would be built again by every
      // element of a segmented step: m times the row's work (finpar/
      // InterestCalib's quotes of every swaption, per swaption). With as
      // many private elements as the segment has, one element per row
      // builds them once and runs the SOAC sequentially.
      int64_t private_elems = 0;
      for (const kir::LocalArray& l : f.locals) private_elems += l.count;
      if (regular && private_elems >= soac.arr.arr->dims[0]) return rows();
      if (regular) {
        // A neutral element or operator that differs per element cannot
        // be one segmented step's: sequential inside each element instead.
        try {
          return segmented(soac, n);
        } catch (const PerElementOperands&) {
          return rows();
        } catch (const Fallback&) {
          // Accumulators with arrays no segmented step takes (tuples of
          // arrays of different ranks): sequential inside each element.
          if (!has_array(soac.ne)) throw;
          return rows();
        }
      }
      // Over arrays of arrays (a vectorised operator) or a length known
      // only in the element: sequential inside each element; a result
      // with arrays in it is written once per row.
      if (soac.kind == SoacKind::Scan || has_array(soac.ne)) return rows();
    }
    if (probe.kind == Sym::Kind::Array) {
      if (Lowerer::dynamic(probe)) throw Fallback(kIrregularRows);
      std::vector<int64_t> dims = probe.arr->dims;
      // A row built in private arrays is computed once per row, not once
      // per element; rows of tuples with arrays in them are written part by
      // part.
      if (!f.locals.empty()) return rows();
      if (Sym like = lw.element_like(probe, call.loc); has_array(like)) return rows();
      return map_nested(n, dims, cacheable ? &key : nullptr);
    }
    // A tuple with array components: each row's parts written once per row.
    if (has_array(probe)) return rows();
  }
  return map_flat(n, {}, cacheable ? &key : nullptr);
}

bool Planner::speculates(const kir::Function& f) {
  for (const std::string& m : f.messages)
    if (m == kir::kBoundExceeded) return true;
  return false;
}

std::string Planner::speculation_text() const {
  return fmt::format("arrays whose length each element computes are stored under a guessed bound of {} elements "
                     "(a run that outgrows it is planned again with a larger one)",
                     speculative_bound);
}

void Planner::speculation_note(const kir::Function& f, plan::Plan& p) const {
  if (speculates(f)) p.notes.push_back(speculation_text());
}

bool Planner::delayed_inputs() const {
  std::function<bool(const ArrayValue&)> delayed = [&](const ArrayValue& a) {
    if (delayed_producer(a)) return true;
    for (const ArrayPtr& c : a.components)
      if (delayed(*c)) return true;
    return false;
  };
  for (size_t k = 1; k < call.args.size(); ++k)
    if (call.args[k].kind == Value::Kind::Array && delayed(call.args[k].arr())) return true;
  return false;
}

void Planner::materialise_inputs() {
  for (size_t k = 1; k < call.args.size(); ++k)
    if (call.args[k].kind == Value::Kind::Array) materialise_leaves(call.args[k].arr());
}

// Call sites (with the mapped function's code identity) whose map built
// rows once each from delayed inputs. Addresses of AST nodes: a freed
// node's address reused by another call site costs that site only an
// early materialisation, never a wrong plan. A fixed table of hashes, so
// that it allocates nothing per site (see PlanCache::hot_site); a slot
// taken by another site only makes this one learn it again.
bool Planner::rows_site(const std::string& site, bool add) {
  static std::mutex mu;
  static std::array<uint64_t, 1024> sites{};
  const uint64_t h = std::hash<std::string>{}(site) | 1;  // 0 marks an empty slot
  std::lock_guard<std::mutex> lock(mu);
  uint64_t& slot = sites[h % sites.size()];
  if (!add) return slot == h;
  slot = h;
  return true;
}

// The key of a map: call site, the function's code identity and the
// inputs' structure without their outer size (captures.hpp). Captured
// values are not in it: a hit finds and checks them again (map_hit).
bool Planner::map_key(std::string& k) {
  k.reserve(128);
  call_site_key(k);
  if (!signature(call.args.at(0), false, k, nullptr, nullptr)) return false;
  for (size_t a = 1; a < call.args.size(); ++a)
    if (!signature(call.args[a], true, k, nullptr, nullptr, copy_delayed_up_to)) return false;
  return true;
}

void Planner::call_site_key(std::string& k) const {
  auto num = [&](uint64_t v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
  num(uint64_t(call.kind));
  num(uint64_t(reinterpret_cast<uintptr_t>(call.loc.file)));
  num(call.loc.line);
  num(uint64_t(call.loc.col) << 32 | call.loc.end_col);
}

std::optional<Value> Planner::cached_map(const std::string& key, int64_t n) {
  if (skip_cache) return std::nullopt;
  CachedPlanPtr c = plan_cache().find(key);
  if (!c) return std::nullopt;
  if (std::optional<Value> v = map_hit(*c, n)) return v;
  plan_cache().stale();
  return std::nullopt;
}

// A cached map: its producer with this call's buffers and parameters.
std::optional<Value> Planner::map_hit(const CachedPlan& c, int64_t n) {
  if (!c.producer && !c.rows) return std::nullopt;
  std::vector<BufferPtr> reads;
  if (!rebind(c.sources, c.reads, c.aliases, call.args.at(0), call.args, reads, c.copy_delayed_up_to))
    return std::nullopt;
  speculative_bound = c.speculative_bound;  // what a retry grows (run_on_host)
  if (c.rows) {
    return run_rows(c.rows->step, std::move(reads), c.rows->parts, c.rows->skeleton, n,
                    plan_cache_summary() + " (this call: cached plan)\n");
  }
  auto p = std::make_shared<Producer>(*c.producer);
  p->reads = std::move(reads);
  p->shape.at(0) = n;
  if (want_listing)
    out.listing = fmt::format("delayed {} at {}: {} elements, computed where it is consumed\n{}{} (this call: cached plan)\n",
                              p->what, call.loc.str(), p->count(), kir::to_string(p->elem), plan_cache_summary());
  return delayed_or_now(p);
}

}  // namespace thorn::flatten::planning

namespace thorn::flatten {

using planning::Planner;
using exec::SoacKind;


namespace {

// Runs one of the Planner's repeats outside a call (exec's distribution
// asks for them): null where the planner cannot read xs.
std::optional<Value> plan_repeat(const Value& xs, int64_t times, bool each, const Loc& loc) {
  exec::SoacCall call;
  call.kind = SoacKind::Replicate;
  call.loc = loc;
  const PlanExecutor none;
  Planner pl{call, none, {}, false};
  try {
    return pl.repeat(xs, times, each);
  } catch (const Fallback&) {
    return std::nullopt;
  } catch (const Planner::Internal&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<Value> repeat_each(const Value& xs, int64_t m, const Loc& loc) { return plan_repeat(xs, m, true, loc); }

std::optional<Value> repeat_whole(const Value& xs, int64_t n, const Loc& loc) {
  return plan_repeat(xs, n, false, loc);
}

namespace {

// The first bound for private arrays of unbounded length, and the factor
// each retry grows it by; past kMaxSpeculativeBound none is guessed (the
// arrays stay recomputed, which needs no bound).
constexpr int64_t kFirstSpeculativeBound = 16;
constexpr int64_t kMaxSpeculativeBound = 8192;

bool bound_exceeded(const Error& e) { return e.message.find(kir::kBoundExceeded) != std::string::npos; }

// The bound a call site last needed (keyed by its source location), so
// that a call the plan cache does not hold starts there, not at the first
// guess, on its next run. A larger bound than needed costs only memory.
// set: records `bound` and returns it.
int64_t site_bound(const Loc& loc, std::optional<int64_t> set = std::nullopt) {
  static std::mutex mu;
  static std::map<std::tuple<const void*, uint32_t, uint32_t>, int64_t> bounds;
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_tuple(static_cast<const void*>(loc.file), loc.line, loc.col);
  if (set) {
    if (bounds.size() >= 4096) bounds.clear();
    bounds[key] = *set;
    return *set;
  }
  auto it = bounds.find(key);
  return it == bounds.end() ? kFirstSpeculativeBound : it->second;
}

}  // namespace

HostRun run_on_host(exec::SoacCall& call, const PlanExecutor& execute, bool want_listing) {
  int64_t bound = site_bound(call.loc);
  bool retry = false;
  for (;;) {
    Planner pl{call, execute, {}, want_listing};
    pl.speculative_bound = bound;
    pl.skip_cache = retry;
    try {
      Value v;
      switch (call.kind) {
        case SoacKind::Map: v = pl.map(); break;
        case SoacKind::Reduce:
        case SoacKind::ReduceComm: v = pl.reduce_or_scan(false); break;
        case SoacKind::Scan: v = pl.reduce_or_scan(true); break;
        case SoacKind::ReduceByIndex: v = pl.hist_or_scatter(true); break;
        case SoacKind::Scatter: v = pl.hist_or_scatter(false); break;
        case SoacKind::Iota: v = pl.iota(); break;
        case SoacKind::Replicate: v = pl.replicate(); break;
        case SoacKind::Transpose: v = pl.transpose(); break;
        default: return pl.out;  // not a nest we flatten: the reference runs it, no remark
      }
      pl.out.value = std::move(v);
    } catch (const Fallback& f) {
      pl.out.fallback = f.what();
      pl.out.value.reset();
    } catch (const Planner::Internal&) {
      pl.out.fallback = "internal: the plan's structure changed between two lowerings";
      pl.out.value.reset();
    } catch (const Error& e) {
      // A private array outgrew its guessed bound: plan again with a larger
      // one (the plan ran nothing else: its outputs are fresh buffers).
      if (bound_exceeded(e) && pl.speculative_bound > 0) {
        bound = pl.speculative_bound * 8 > kMaxSpeculativeBound ? 0 : pl.speculative_bound * 8;
        site_bound(call.loc, bound);
        retry = true;
        continue;
      }
      throw;  // a run-time error of the program (a failed Check): the program's error
    } catch (const std::exception& e) {
      // A gap in the lowering (not a Fallback it anticipated): the reference
      // backend still runs the call correctly; the log shows what happened.
      pl.out.fallback = std::string("internal: ") + e.what();
      pl.out.value.reset();
    }
    return pl.out;
  }
}


}  // namespace thorn::flatten
