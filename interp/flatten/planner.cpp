// SOAC calls -> segmented plans (see planner.hpp).
#include "interp/flatten/planner.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "interp/eval/callable.hpp"
#include "interp/eval/value_ops.hpp"
#include "interp/exec/host_executor.hpp"
#include "interp/flatten/captures.hpp"
#include "interp/flatten/delayed.hpp"
#include "interp/flatten/elem_tree.hpp"
#include "interp/flatten/interchange.hpp"
#include "interp/flatten/lower.hpp"
#include "interp/flatten/planner_cache.hpp"

namespace thorn::flatten {

namespace {

using exec::SoacKind;
using kir::Reg;

// ------------------------------------------------------------------ structure helpers

// A register-free Sym with the structure of a value (tuples/records of scalars).
Sym shape_of_value(const Value& v) {
  if (v.kind == Value::Kind::Scalar) return Sym::scalar(kir::kNoReg, v.scalar.type);
  if (v.kind != Value::Kind::Tuple && v.kind != Value::Kind::Record)
    throw Fallback("a neutral element that is not a scalar or a tuple of scalars");
  Sym s;
  s.kind = v.kind == Value::Kind::Tuple ? Sym::Kind::Tuple : Sym::Kind::Record;
  s.names = v.names;
  for (const Value& e : *v.elems) s.elems.push_back(shape_of_value(e));
  return s;
}

void leaf_prims(const Sym& s, std::vector<Prim>& out) {
  if (s.kind == Sym::Kind::Scalar) {
    out.push_back(s.prim);
    return;
  }
  if (s.kind != Sym::Kind::Tuple && s.kind != Sym::Kind::Record)
    throw Fallback("results that are not scalars or tuples of scalars");
  for (const Sym& e : s.elems) leaf_prims(e, out);
}

ElemShape elem_shape_of(const Sym& like) { return elem_shape_of_sym(like); }

Value array_from_leaves(const Sym& like, const std::vector<BufferPtr>& bufs, const std::vector<int64_t>& shape) {
  std::vector<ArrayPtr> leaves;
  for (const BufferPtr& b : bufs) leaves.push_back(make_prim_array(b, shape));
  size_t pos = 0;
  return Value::make_array(nest_leaves(elem_shape_of(like), leaves, pos, shape));
}

Value value_from_scalars(const Sym& like, const std::vector<Scalar>& xs, size_t& pos) {
  if (like.kind == Sym::Kind::Scalar) return Value(xs.at(pos++));
  std::vector<Value> elems;
  for (const Sym& e : like.elems) elems.push_back(value_from_scalars(e, xs, pos));
  if (like.kind == Sym::Kind::Record) {
    std::vector<std::pair<std::string, Value>> fields;
    for (size_t k = 0; k < elems.size(); ++k) fields.emplace_back((*like.names)[k], elems[k]);
    return Value::record(std::move(fields));
  }
  return Value::tuple(std::move(elems));
}

std::vector<Scalar> value_scalars(const Value& v) {
  std::vector<Scalar> out;
  std::function<void(const Value&)> go = [&](const Value& x) {
    if (x.kind == Value::Kind::Scalar) out.push_back(x.scalar);
    else if (x.kind == Value::Kind::Tuple || x.kind == Value::Kind::Record)
      for (const Value& e : *x.elems) go(e);
    else throw Fallback("a neutral element that is not a scalar or a tuple of scalars");
  };
  go(v);
  return out;
}

// ------------------------------------------------------------------ plan assembly

struct Builder {
  plan::Plan plan;
  std::vector<BufferPtr> bufs;

  int add(const BufferPtr& b, std::string name) {
    for (size_t i = 0; i < bufs.size(); ++i)
      if (bufs[i] == b) return int(i);
    plan.buffers.push_back({b->elem(), b->count(), std::move(name), true});
    bufs.push_back(b);
    return int(bufs.size() - 1);
  }
  std::vector<int> reads(const Lowerer& lw) {
    std::vector<int> ids;
    for (size_t k = 0; k < lw.reads().size(); ++k) ids.push_back(add(lw.reads()[k], fmt::format("in{}", k)));
    return ids;
  }
  BufferPtr output(Prim t, int64_t count, const std::string& name, std::vector<int>& writes) {
    auto b = std::make_shared<Buffer>(t, count, Buffer::NoInit{});
    writes.push_back(add(b, name));
    return b;
  }
};

std::string join(const std::vector<std::string>& xs) {
  std::string s;
  for (const std::string& x : xs)
    if (s.find(x) == std::string::npos) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The operator as a kir function of 2k parameters (accumulators, then values).
kir::Function lower_operator(eval::Evaluator& ev, const std::function<Sym(Lowerer&)>& get_op, const Sym& like,
                             const Loc& loc) {
  kir::Function f;
  f.name = "op";
  Lowerer lw(f, ev);
  std::vector<Prim> types;
  leaf_prims(like, types);
  std::vector<Reg> acc, x;
  for (Prim t : types) acc.push_back(lw.b().param(t));
  for (Prim t : types) x.push_back(lw.b().param(t));
  size_t p1 = 0, p2 = 0;
  Sym a = lw.rebuild(like, acc, p1), b = lw.rebuild(like, x, p2);
  Sym r = lw.apply(get_op(lw), {a, b}, loc);
  if (lw.leaf_types(r) != types) throw Fallback("the operator's result type differs from its arguments'");
  lw.b().ret(lw.leaves(r));
  if (!lw.reads().empty()) throw Fallback("the operator reads arrays");
  if (std::string err = kir::verify(f); !err.empty()) throw Fallback("operator: " + err);
  return f;
}

// Indexes `v` at the row-major position `flat % inner` over `dims` (whose
// product is `inner`), one index per dimension, outermost first.
Sym index_row_major(Lowerer& lw, Sym v, Reg flat, int64_t inner, const std::vector<int64_t>& dims, const Loc& loc) {
  kir::Builder& b = lw.b();
  Reg rest = b.binary(kir::BinOp::Rem, flat, b.i64(inner));
  int64_t stride = inner;
  for (int64_t d : dims) {
    stride /= d;
    Reg ix = rest;
    if (stride != 1) {
      ix = b.binary(kir::BinOp::Quot, rest, b.i64(stride));
      rest = b.binary(kir::BinOp::Rem, rest, b.i64(stride));
    } else {
      rest = b.i64(0);  // dimensions of size 1 may follow ([3][1]): their index is 0
    }
    v = lw.index(v, ix, loc, false);
  }
  return v;
}

Sym shape_like(const Sym& s) {
  if (s.kind == Sym::Kind::Scalar) return Sym::scalar(kir::kNoReg, s.prim);
  Sym out;
  out.kind = s.kind;
  out.names = s.names;
  if (s.kind != Sym::Kind::Tuple && s.kind != Sym::Kind::Record) throw Fallback("non-scalar element values");
  for (const Sym& e : s.elems) out.elems.push_back(shape_like(e));
  return out;
}

void finish_function(kir::Function& f, const char* what) {
  if (std::string err = kir::verify(f); !err.empty())
    throw Error(ErrorKind::Internal, fmt::format("flattener produced invalid kernel IR for {}: {}\n{}", what, err,
                                                 kir::to_string(f)));
}

// A step over `segments` regular segments of `size` elements each, at the
// SOAC call `loc`; its element function is written by the caller.
plan::Step new_step(plan::StepKind kind, const Loc& loc, int64_t segments, int64_t size) {
  plan::Step st;
  st.kind = kind;
  st.loc = loc;
  st.segments = segments;
  st.segment_size = size;
  st.element.name = "element";
  return st;
}

// ------------------------------------------------------------------ the calls

struct Planner {
  exec::SoacCall& call;
  eval::Evaluator& ev;
  const PlanExecutor& execute;
  HostRun out;
  std::string note;  // a decision to show before the listing (interchange.hpp)
  // Listings cost a formatted plan per call: made only when someone reads them.
  bool want_listing = true;

  Sym input(Lowerer& lw, size_t k) { return lw.array_of(call.args.at(k)); }

  Value run(Builder& pb) {
    if (want_listing) out.listing = plan::to_string(pb.plan);
    if (execute) execute(pb.plan, pb.bufs);
    else host::execute(pb.plan, pb.bufs);
    return Value();
  }

  // ---- map
  Value map() {
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
    // A map around a loop: interchanged, or (noted) sequentialised below.
    Interchange ic = try_interchange(call, ev, n);
    if (ic.value) {
      if (want_listing) out.listing = ic.note;
      return std::move(*ic.value);
    }
    note = ic.note;
    std::string key;
    bool cacheable = plan_cache_enabled() && map_key(key);
    if (cacheable)
      if (CachedPlanPtr c = plan_cache().find(key)) {
        if (std::optional<Value> v = map_hit(*c, n)) return std::move(*v);
        plan_cache().stale();
      }
    // A first lowering to see what the function returns.
    Sym probe;
    {
      kir::Function f;
      Lowerer lw(f, ev);
      Reg i = lw.b().param(Prim::I64);
      std::vector<Sym> xs;
      for (size_t k = 1; k <= nin; ++k) xs.push_back(lw.index(input(lw, k), i, call.loc, false));
      probe = lw.apply(lw.from_value(fv), xs, call.loc, true);
      // Over an array whose length depends on the element, the SOAC runs
      // sequentially inside each element instead (map_flat).
      if (probe.kind == Sym::Kind::Soac) {
        const SymSoac& soac = *probe.soac;
        bool regular = soac.arr.kind == Sym::Kind::Array && !Lowerer::dynamic(soac.arr) && soac.arr.arr->dims.size() == 1;
        if (regular) return segmented(soac, n);
        // Over arrays of arrays (a vectorised operator) or a length known
        // only in the element: sequential inside each element; a result
        // with arrays in it is written once per row.
        if (soac.kind == SoacKind::Scan || has_array(soac.ne)) return map_rows(n);
      }
      if (probe.kind == Sym::Kind::Array) {
        if (Lowerer::dynamic(probe)) throw Fallback("map producing arrays whose length depends on the element (irregular)");
        std::vector<int64_t> dims = probe.arr->dims;
        // A row built in private arrays is computed once per row, not once per element.
        if (!f.locals.empty()) return map_rows(n);
        return map_nested(n, dims, cacheable ? &key : nullptr);
      }
      // A tuple with array components: each row's parts written once per row.
      if (has_array(probe)) return map_rows(n);
    }
    return map_flat(n, {}, cacheable ? &key : nullptr);
  }

  // The key of a map: call site, the function's code identity and the
  // inputs' structure without their outer size (captures.hpp). Captured
  // values are not in it: a hit finds and checks them again (map_hit).
  bool map_key(std::string& k) {
    k.reserve(128);
    call_site_key(k);
    if (!signature(call.args.at(0), false, k, nullptr, nullptr)) return false;
    for (size_t a = 1; a < call.args.size(); ++a)
      if (!signature(call.args[a], true, k, nullptr, nullptr)) return false;
    return true;
  }

  void call_site_key(std::string& k) const {
    auto num = [&](uint64_t v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
    num(uint64_t(call.kind));
    num(uint64_t(reinterpret_cast<uintptr_t>(call.loc.file)));
    num(call.loc.line);
    num(uint64_t(call.loc.col) << 32 | call.loc.end_col);
  }

  // A cached map: its producer with this call's buffers and parameters.
  std::optional<Value> map_hit(const CachedPlan& c, int64_t n) {
    if (!c.producer) return std::nullopt;
    std::vector<BufferPtr> reads;
    if (!rebind(c.sources, c.reads, c.aliases, call.args.at(0), call.args, reads)) return std::nullopt;
    auto p = std::make_shared<Producer>(*c.producer);
    p->reads = std::move(reads);
    p->shape.at(0) = n;
    if (want_listing)
      out.listing = fmt::format("delayed {} at {}: {} elements, computed where it is consumed\n{}{} (this call: cached plan)\n",
                                p->what, call.loc.str(), p->count(), kir::to_string(p->elem), plan_cache_summary());
    return make_delayed_array(p);
  }

  // map whose element is a scalar (dims empty) or an array of constant dims:
  // a delayed array over the flattened domain. With a key, the producer is
  // cached with its captured scalars lifted into parameters; if the
  // lowering needed one of them as a constant (a size, a range bound), it
  // is lowered again the old way, with constants, and not cached.
  Value map_flat(int64_t n, const std::vector<int64_t>& dims, const std::string* key = nullptr) {
    if (key) {
      CaptureLog log;
      try {
        return map_flat_once(n, dims, &log, key);
      } catch (const Fallback&) {
        if (!log.lifted) throw;
      }
    }
    return map_flat_once(n, dims, nullptr, nullptr);
  }

  Value map_flat_once(int64_t n, const std::vector<int64_t>& dims, CaptureLog* log, const std::string* key) {
    const Value& fv = call.args.at(0);
    size_t nin = call.args.size() - 1;
    auto p = std::make_shared<Producer>();
    p->elem.name = "map";
    Lowerer lw(p->elem, ev);
    lw.set_capture_log(log);
    kir::Builder& b = lw.b();
    Reg flat = b.param(Prim::I64);
    int64_t inner = 1;
    for (int64_t d : dims) inner *= d;
    Reg i = dims.empty() ? flat : b.binary(kir::BinOp::Quot, flat, b.i64(inner));
    Sym fs = log ? lw.from_source(fv, log->source(-1, CaptureSource::Step::Fn, "", 0).first) : lw.from_value(fv);
    std::vector<Sym> xs;
    for (size_t k = 1; k <= nin; ++k) {
      Sym in = log ? lw.from_source(call.args[k], log->source(-1, CaptureSource::Step::Input, "", int(k)).first)
                   : input(lw, k);
      xs.push_back(lw.index(in, i, call.loc, false));
    }
    Sym r = lw.apply(fs, xs, call.loc);
    // The rows' shape came from the probe, lowered with captured scalars as
    // constants. With them as parameters, a shape that depends on one
    // (`replicate n x`, n captured) is not the same in every later call that
    // hits the cache: lower again with constants, uncached (map_flat).
    if (log && !dims.empty() && (r.kind != Sym::Kind::Array || Lowerer::dynamic(r) || r.arr->dims != dims))
      throw Fallback("the rows' shape depends on a captured scalar");
    if (!dims.empty()) r = index_row_major(lw, r, flat, inner, dims, call.loc);
    Sym like = shape_like(r);
    b.ret(lw.leaves(r));
    finish_function(p->elem, "map");
    p->reads = lw.reads();
    p->shape = {n};
    for (int64_t d : dims) p->shape.push_back(d);
    p->elem_shape = elem_shape_of(like);
    leaf_prims(like, p->leaves);
    p->what = lw.fused.empty() ? "map" : "map, " + join(lw.fused);
    p->loc = call.loc;
    if (want_listing) out.listing = fmt::format("delayed {} at {}: {} elements, computed where it is consumed\n{}", p->what,
                              call.loc.str(), p->count(), kir::to_string(p->elem));
    if (log && key) {
      if (log->cacheable && log->reads.size() == p->elem.free_arrays.size()) {
        auto c = std::make_shared<CachedPlan>();
        auto proto = std::make_shared<Producer>(*p);
        proto->reads.clear();
        c->producer = proto;
        c->sources = log->sources;
        c->reads = log->reads;
        c->aliases = log->aliases;
        plan_cache().insert(*key, std::move(c));
        if (want_listing)
        {
          size_t params = 0;
          for (const ReadBinding& r : log->reads) params += r.kind == ReadBinding::Kind::Param;
          out.listing += plan_cache_summary() + fmt::format(" (this call: planned; {} captured scalar{} as parameters)\n",
                                                            params, params == 1 ? "" : "s");
        }
      } else if (want_listing) {
        out.listing += "not cached: " + log->why_not + "\n";
      }
    }
    return make_delayed_array(p);
  }

  static bool has_array(const Sym& s) {
    if (s.kind == Sym::Kind::Array) return true;
    if (s.kind != Sym::Kind::Tuple && s.kind != Sym::Kind::Record) return false;
    for (const Sym& e : s.elems)
      if (has_array(e)) return true;
    return false;
  }

  // One part of a map_rows result: a scalar (dims empty) or a regular array
  // of each row's result, with its element structure and output buffers.
  struct RowPart {
    std::vector<int64_t> dims;
    Sym like;
    std::vector<BufferPtr> outs;
    std::vector<int> ids;  // written free arrays of the element function
  };

  void row_parts(Lowerer& lw, const Sym& r, std::vector<RowPart>& parts) {
    switch (r.kind) {
      case Sym::Kind::Scalar: parts.push_back({{}, shape_like(r), {}, {}}); return;
      case Sym::Kind::Tuple:
      case Sym::Kind::Record:
        for (const Sym& e : r.elems) row_parts(lw, e, parts);
        return;
      case Sym::Kind::Array:
        if (Lowerer::dynamic(r)) throw Fallback("map producing arrays whose length depends on the element (irregular)");
        parts.push_back({r.arr->dims, shape_like(lw.element_like(r, call.loc)), {}, {}});
        return;
      default: throw Fallback("map producing functions or nested SOACs");
    }
  }

  // The result value: parts as arrays with n rows, tuples of them zipped
  // into arrays of tuples (components with more dimensions than [n]).
  Value row_value(const Sym& r, std::vector<RowPart>& parts, size_t& k, int64_t n) {
    if (r.kind == Sym::Kind::Tuple || r.kind == Sym::Kind::Record) {
      auto a = std::make_shared<ArrayValue>();
      a->shape = {n};
      a->elem.kind = r.kind == Sym::Kind::Record ? ElemShape::Kind::Record : ElemShape::Kind::Tuple;
      if (r.names) a->elem.names = *r.names;
      for (const Sym& e : r.elems) {
        Value v = row_value(e, parts, k, n);
        a->elem.children.push_back(v.arr().elem);
        a->components.push_back(v.array);
      }
      return Value::make_array(a);
    }
    RowPart& p = parts.at(k++);
    std::vector<int64_t> shape{n};
    shape.insert(shape.end(), p.dims.begin(), p.dims.end());
    return array_from_leaves(p.like, p.outs, shape);
  }

  // map whose function builds its result in private arrays (a scan inside
  // it, in-place updates, a loop over an array) or returns a tuple with
  // array components: a SegMap with one element per row, which computes
  // its row once and writes each part to its outputs (written free
  // arrays), instead of once per element of the row.
  Value map_rows(int64_t n) {
    const Value& fv = call.args.at(0);
    size_t nin = call.args.size() - 1;
    Builder pb;
    plan::Step st = new_step(plan::StepKind::SegMap, call.loc, n, 1);
    Lowerer lw(st.element, ev);
    kir::Builder& b = lw.b();
    Reg s = b.param(Prim::I64);
    b.param(Prim::I64);
    std::vector<Sym> xs;
    for (size_t k = 1; k <= nin; ++k) xs.push_back(lw.index(input(lw, k), s, call.loc, false));
    Sym r = lw.apply(lw.from_value(fv), xs, call.loc);
    std::vector<RowPart> parts;
    row_parts(lw, r, parts);
    int64_t row_elems = 0;
    for (RowPart& p : parts) {
      int64_t inner = 1;
      for (int64_t d : p.dims) inner *= d;
      row_elems += inner;
      std::vector<Prim> types;
      leaf_prims(p.like, types);
      for (Prim t : types) {
        p.outs.push_back(std::make_shared<Buffer>(t, n * inner, Buffer::NoInit{}));
        p.ids.push_back(lw.output_array(p.outs.back(), fmt::format("out{}", pb.bufs.size() + p.outs.size())));
      }
    }
    // Write each part of the row: scalars at the row, arrays row-major.
    size_t k = 0;
    std::function<void(const Sym&)> write = [&](const Sym& v) {
      if (v.kind == Sym::Kind::Tuple || v.kind == Sym::Kind::Record) {
        for (const Sym& e : v.elems) write(e);
        return;
      }
      const RowPart& p = parts.at(k++);
      if (p.dims.empty()) {
        std::vector<Reg> regs = lw.leaves(v);
        for (size_t l = 0; l < regs.size(); ++l) b.write(p.ids[l], s, regs[l]);
        return;
      }
      int64_t inner = 1;
      for (int64_t d : p.dims) inner *= d;
      Reg base = b.binary(kir::BinOp::Mul, s, b.i64(inner));
      b.for_(b.i64(inner), {}, [&](Reg j, const std::vector<Reg>&) {
        std::vector<Reg> regs = lw.leaves(index_row_major(lw, v, j, inner, p.dims, call.loc));
        Reg at = b.binary(kir::BinOp::Add, base, j);
        for (size_t l = 0; l < regs.size(); ++l) b.write(p.ids[l], at, regs[l]);
        return std::vector<Reg>{};
      });
    };
    write(r);
    b.ret({});
    finish_function(st.element, "map rows");
    st.reads = pb.reads(lw);
    int out_no = 0;
    for (const RowPart& p : parts)
      for (const BufferPtr& o : p.outs) {
        plan::BufferDesc& d = pb.plan.buffers[size_t(pb.add(o, ""))];
        d.name = fmt::format("out{}", out_no++);
        d.is_input = false;
        pb.plan.results.push_back(pb.add(o, ""));
      }
    st.fused = join(lw.fused);
    pb.plan.source = fmt::format("map at {}", call.loc.str());
    pb.plan.loc = call.loc;
    pb.plan.notes.push_back(fmt::format("rows built once each ({} bytes of private arrays per row): one element per row, [{}] rows of {} elements",
                                        st.element.local_bytes(), n, row_elems));
    pb.plan.steps.push_back(std::move(st));
    run(pb);
    k = 0;
    return row_value(r, parts, k, n);
  }

  Value map_nested(int64_t n, const std::vector<int64_t>& dims, const std::string* key = nullptr) {
    for (int64_t d : dims)
      if (d == 0) throw Fallback("map producing empty arrays");
    return map_flat(n, dims, key);
  }

  // map (\x -> reduce/scan op ne (... x ...)) xs: one segmented step.
  Value segmented(const SymSoac& probe_soac, int64_t n) {
    const Value& fv = call.args.at(0);
    size_t nin = call.args.size() - 1;
    if (probe_soac.arr.kind != Sym::Kind::Array) throw Fallback("a nested SOAC over a non-array");

    int64_t m = probe_soac.arr.arr->dims.at(0);
    if (probe_soac.arr.arr->dims.size() != 1) throw Fallback("a nested SOAC over arrays of arrays");
    bool scan = probe_soac.kind == SoacKind::Scan;
    Builder pb;
    plan::Step st = new_step(scan ? plan::StepKind::SegScan : plan::StepKind::SegRed, call.loc, n, m);
    Lowerer lw(st.element, ev);
    kir::Builder& b = lw.b();
    Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
    std::vector<Sym> xs;
    for (size_t k = 1; k <= nin; ++k) xs.push_back(lw.index(input(lw, k), s, call.loc, false));
    Sym r = lw.apply(lw.from_value(fv), xs, call.loc, true);
    if (r.kind != Sym::Kind::Soac) throw Internal();
    const SymSoac& soac = *r.soac;
    Sym x = lw.index(soac.arr, j, soac.loc, false);
    Sym like = shape_like(soac.ne);
    if (lw.leaf_types(x) != lw.leaf_types(soac.ne)) throw Fallback("the nested SOAC's neutral element and array differ in type");
    b.ret(lw.leaves(x));
    finish_function(st.element, "segmented element");
    // Neutral elements must be the same for every segment: plan-time constants.
    std::function<void(const Sym&)> neutrals = [&](const Sym& v) {
      if (v.kind == Sym::Kind::Scalar) {
        if (!v.known) throw Fallback("a neutral element that depends on the mapped element");
        st.neutral.push_back(*v.known);
      } else {
        for (const Sym& e : v.elems) neutrals(e);
      }
    };
    neutrals(soac.ne);
    Sym op_sym = soac.op;
    st.op = lower_operator(ev, [&](Lowerer& ol) { return ol.import(op_sym); }, like, soac.loc);
    st.commutative = soac.kind == SoacKind::ReduceComm;
    st.reads = pb.reads(lw);
    st.fused = join(lw.fused);
    std::vector<Prim> types;
    leaf_prims(like, types);
    std::vector<BufferPtr> outs;
    for (size_t k = 0; k < types.size(); ++k)
      outs.push_back(pb.output(types[k], scan ? n * m : n, fmt::format("out{}", k), st.writes));
    pb.plan.source = fmt::format("map ({}) at {}", scan ? "scan" : "reduce", call.loc.str());
    pb.plan.loc = call.loc;
    pb.plan.notes.push_back(fmt::format("map-{} flattened to one {} over [{}][{}]", scan ? "scan" : "reduce",
                                        scan ? "SegScan" : "SegRed", n, m));
    pb.plan.steps.push_back(std::move(st));
    for (size_t k = 0; k < outs.size(); ++k) pb.plan.results.push_back(pb.plan.steps[0].writes[k]);
    run(pb);
    return array_from_leaves(like, outs, scan ? std::vector<int64_t>{n, m} : std::vector<int64_t>{n});
  }

  struct Internal : std::exception {};

  // The scalar operator f of a vectorised operator (`map2 f`, or any
  // function that combines two [m] arrays element by element), found by
  // applying it to arrays whose every element is the scalar parameters:
  // an element access at any index but the one asked for is not
  // elementwise, and falls back.
  kir::Function elementwise_operator(const Value& opv, const Sym& like, int64_t m) {
    kir::Function f;
    f.name = "op";
    Lowerer lw(f, ev);
    std::vector<Prim> types;
    leaf_prims(like, types);
    std::vector<Reg> acc, x;
    for (Prim t : types) acc.push_back(lw.b().param(t));
    for (Prim t : types) x.push_back(lw.b().param(t));
    size_t p1 = 0, p2 = 0;
    Sym a = lw.rebuild(like, acc, p1), b = lw.rebuild(like, x, p2);
    Reg i0 = f.new_reg(Prim::I64);  // never defined: any other use of it fails verification
    Lowerer* l = &lw;
    auto vec = [&](Sym elem) {
      auto arr = std::make_shared<SymArr>();
      arr->dims = {m};
      arr->gen = [elem, i0, l](Reg i) -> Sym {
        bool ok = i == i0;
        for (Reg p : l->probe_indices) ok |= i == p;
        if (!ok) throw Fallback("a vectorised operator that is not elementwise");
        return elem;
      };
      Sym s;
      s.kind = Sym::Kind::Array;
      s.arr = arr;
      return s;
    };
    Sym r = lw.apply(lw.from_value(opv), {vec(a), vec(b)}, call.loc);
    if (r.kind != Sym::Kind::Array || r.arr->dims != std::vector<int64_t>{m})
      throw Fallback("a vectorised operator whose result is not an array of the same length");
    Sym e = lw.index(r, i0, call.loc, false);
    if (lw.leaf_types(e) != types) throw Fallback("the operator's result type differs from its arguments'");
    lw.b().ret(lw.leaves(e));
    if (!lw.reads().empty()) throw Fallback("the operator reads arrays");
    if (std::string err = kir::verify(f); !err.empty()) throw Fallback("a vectorised operator that is not elementwise");
    return f;
  }

  // reduce (map2 f) (replicate m ne) xss: column-wise, one segment per
  // column; scan likewise, its [m][n] result handed back transposed (a
  // delayed transpose: a consumer reads it in place).
  Value reduce_vectorised(bool scan = false) {
    const Value& opv = call.args.at(0);
    const Value& ne = call.args.at(1);
    const Value& xsv = call.args.at(2);
    const ArrayValue& xs = xsv.arr();
    if (xs.rank() != 2 || ne.arr().rank() != 1) throw Fallback("vectorised operators on more than one dimension");
    int64_t n = xs.shape[0], m = xs.shape[1];
    if (ne.arr().outer() != m) throw Fallback("neutral element and rows of different lengths");
    if (m == 0) throw Fallback("empty rows");
    // The neutral element must be the same in every column.
    Sym like;
    std::vector<Scalar> neutral;
    {
      Value first = array_row(ne.arr(), 0);
      like = shape_of_value(first);
      neutral = value_scalars(first);
      for (int64_t c = 1; c < m; ++c)
        if (value_scalars(array_row(ne.arr(), c)) != neutral)
          throw Fallback("a vectorised neutral element that differs between columns");
    }
    Builder pb;
    plan::Step st = new_step(scan ? plan::StepKind::SegScan : plan::StepKind::SegRed, call.loc, m, n);
    Lowerer lw(st.element, ev);
    kir::Builder& b = lw.b();
    Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
    Sym x = lw.index(lw.index(lw.array_of(xsv), j, call.loc, false), s, call.loc, false);  // xss[j][s]
    std::vector<Prim> types;
    leaf_prims(like, types);
    if (lw.leaf_types(x) != types) throw Fallback("elements and neutral element differ in type");
    b.ret(lw.leaves(x));
    finish_function(st.element, "element");
    st.neutral = neutral;
    st.op = elementwise_operator(opv, like, m);
    st.commutative = call.kind == SoacKind::ReduceComm;
    st.reads = pb.reads(lw);
    st.fused = join(lw.fused);
    std::vector<BufferPtr> outs;
    for (size_t k = 0; k < types.size(); ++k)
      outs.push_back(pb.output(types[k], scan ? m * n : m, fmt::format("out{}", k), st.writes));
    pb.plan.source = fmt::format("{} (vectorised operator) at {}", exec::soac_name(call.kind), call.loc.str());
    pb.plan.loc = call.loc;
    pb.plan.notes.push_back(fmt::format("vectorised operator: one segment per column, [{}][{}] read transposed", m, n));
    pb.plan.steps.push_back(std::move(st));
    pb.plan.results = pb.plan.steps[0].writes;
    run(pb);
    if (!scan) return array_from_leaves(like, outs, {m});
    std::string listing = out.listing;
    Value t = transpose_of(array_from_leaves(like, outs, {m, n}));
    out.listing = listing + out.listing;
    return t;
  }

  // ---- reduce / reduce_comm / scan
  Value reduce_or_scan(bool scan) {
    const Value& opv = call.args.at(0);
    const Value& ne = call.args.at(1);
    const Value& xsv = call.args.at(2);
    if (xsv.kind != Value::Kind::Array) throw Fallback("not an array");
    int64_t n = xsv.arr().outer();
    if (n == 0) throw Fallback("empty input");
    if (ne.kind == Value::Kind::Array) return reduce_vectorised(scan);
    Sym like = shape_of_value(ne);
    std::vector<BufferPtr> in_leaves;
    std::optional<std::string> key = plan_cache_enabled() ? reduce_key(opv, ne, xsv, in_leaves) : std::nullopt;
    if (key)
      if (CachedPlanPtr c = plan_cache().find(*key)) return reduce_result(like, scan, n, run_cached(*c, in_leaves));
    Builder pb;
    plan::Step st = new_step(scan ? plan::StepKind::SegScan : plan::StepKind::SegRed, call.loc, 1, n);
    Lowerer lw(st.element, ev);
    kir::Builder& b = lw.b();
    b.param(Prim::I64);
    Reg j = b.param(Prim::I64);
    Sym x = lw.index(lw.array_of(xsv), j, call.loc, false);
    std::vector<Prim> types;
    leaf_prims(like, types);
    if (lw.leaf_types(x) != types) throw Fallback("elements and neutral element differ in type (vectorised operator?)");
    b.ret(lw.leaves(x));
    finish_function(st.element, "element");
    st.neutral = value_scalars(ne);
    st.op = lower_operator(ev, [&](Lowerer& ol) { return ol.from_value(opv); }, like, call.loc);
    st.commutative = call.kind == SoacKind::ReduceComm;
    st.reads = pb.reads(lw);
    st.fused = join(lw.fused);
    std::vector<BufferPtr> outs;
    for (size_t k = 0; k < types.size(); ++k)
      outs.push_back(pb.output(types[k], scan ? n : 1, fmt::format("out{}", k), st.writes));
    pb.plan.source = fmt::format("{} at {}", exec::soac_name(call.kind), call.loc.str());
    pb.plan.loc = call.loc;
    if (!st.fused.empty()) pb.plan.notes.push_back("fused into the " + std::string(scan ? "scan" : "reduction") + ": " + st.fused);
    pb.plan.steps.push_back(std::move(st));
    pb.plan.results = pb.plan.steps[0].writes;
    run(pb);
    if (key) {
      cache_plan(*key, pb, in_leaves);
      if (want_listing) out.listing += plan_cache_summary() + " (this call: planned)\n";
    }
    return reduce_result(like, scan, n, outs);
  }

  Value reduce_result(const Sym& like, bool scan, int64_t n, const std::vector<BufferPtr>& outs) {
    if (scan) return array_from_leaves(like, outs, {n});
    std::vector<Prim> types;
    leaf_prims(like, types);
    std::vector<Scalar> xs;
    for (size_t k = 0; k < types.size(); ++k) xs.push_back(load_scalar(types[k], outs[k]->host()));
    size_t pos = 0;
    return value_from_scalars(like, xs, pos);
  }

  // ---- the plan cache (planner_cache.hpp)

  // The key of a reduce/scan whose plan depends on nothing but what the key
  // holds; nullopt when the call is not cached. `leaves` gets the input
  // array's leaf buffers, which a cached plan's inputs are rebound to.
  // Cached: operators fixed by name and argument types (`(+)`, prelude
  // functions that merely forward to an intrinsic), over arrays that are
  // views (a delayed input's producer is inlined as code: not cached).
  std::optional<std::string> reduce_key(const Value& opv, const Value& ne, const Value& xsv,
                                        std::vector<BufferPtr>& leaves) {
    if (opv.kind != Value::Kind::Function || !opv.fn || xsv.kind != Value::Kind::Array) return std::nullopt;
    const Callable& f = *opv.fn;
    std::string k;
    k.reserve(160);
    auto num = [&](uint64_t v) {
      k.append(reinterpret_cast<const char*>(&v), sizeof v);
    };
    num(uint64_t(call.kind));
    num(uint64_t(reinterpret_cast<uintptr_t>(call.loc.file)));
    num(call.loc.line);
    num(uint64_t(call.loc.col) << 32 | call.loc.end_col);
    if (f.kind == Callable::Kind::Operator) {
      k += "op ";
    } else if (f.kind == Callable::Kind::Closure && f.params) {
      std::optional<std::string> alias = f.intrinsic_alias();
      if (!alias) return std::nullopt;
      k += "alias ";
      k += *alias;
      num(f.params->size());
    } else {
      return std::nullopt;
    }
    k += f.name;
    k += '|';
    // The neutral element: structure and exact values (plan constants).
    std::function<bool(const Value&)> neutral = [&](const Value& v) {
      if (v.kind == Value::Kind::Scalar) {
        num(uint64_t(v.scalar.type));
        num(v.scalar.u);
        return true;
      }
      if (v.kind != Value::Kind::Tuple && v.kind != Value::Kind::Record) return false;
      k += v.kind == Value::Kind::Tuple ? '(' : '{';
      if (v.names)
        for (const std::string& nm : *v.names) k += nm + ",";
      for (const Value& e : *v.elems)
        if (!neutral(e)) return false;
      k += ')';
      return true;
    };
    if (!neutral(ne)) return std::nullopt;
    k += '|';
    // The input: a view (not a pending delayed array), its exact shape,
    // and per leaf its type, offset, buffer size and sharing.
    const ArrayValue& a = xsv.arr();
    if (delayed_producer(a)) return std::nullopt;
    for (int64_t d : a.shape) num(uint64_t(d));
    std::vector<const ArrayValue*> parts;
    if (a.elem.kind == ElemShape::Kind::Prim) {
      parts.push_back(&a);
    } else if (a.elem.kind == ElemShape::Kind::Tuple || a.elem.kind == ElemShape::Kind::Record) {
      k += a.elem.kind == ElemShape::Kind::Tuple ? 't' : 'r';
      for (const std::string& nm : a.elem.names) k += nm + ",";
      for (const ArrayPtr& c : a.components) {
        if (c->elem.kind != ElemShape::Kind::Prim || c->shape != a.shape) return std::nullopt;
        parts.push_back(c.get());
      }
    } else {
      return std::nullopt;
    }
    for (const ArrayValue* p : parts) {
      if (!p->buffer) return std::nullopt;
      size_t first = leaves.size();
      for (size_t l = 0; l < leaves.size(); ++l)
        if (leaves[l] == p->buffer) first = std::min(first, l);
      leaves.push_back(p->buffer);
      num(uint64_t(p->elem.prim));
      num(uint64_t(p->offset));
      num(uint64_t(p->buffer->count()));
      num(first);
    }
    return k;
  }

  // Runs a cached plan on this call's input leaves, with fresh outputs;
  // returns the result buffers in order.
  std::vector<BufferPtr> run_cached(const CachedPlan& c, const std::vector<BufferPtr>& leaves) {
    std::vector<BufferPtr> bufs(c.plan.buffers.size());
    for (size_t b = 0; b < bufs.size(); ++b) {
      const plan::BufferDesc& d = c.plan.buffers[b];
      bufs[b] = c.input_leaf[b] >= 0 ? leaves.at(size_t(c.input_leaf[b]))
                                     : std::make_shared<Buffer>(d.elem, d.count, Buffer::NoInit{});
    }
    std::vector<BufferPtr> outs;
    for (int r : c.plan.results) outs.push_back(bufs.at(size_t(r)));
    if (want_listing) out.listing = plan::to_string(c.plan) + plan_cache_summary() + " (this call: cached plan)\n";
    if (execute) execute(c.plan, bufs);
    else host::execute(c.plan, bufs);
    return outs;
  }

  // Caches pb's plan under `key` if every buffer it reads is one of the
  // input's leaves (rebound on a hit) and every other is written.
  void cache_plan(const std::string& key, const Builder& pb, const std::vector<BufferPtr>& leaves) {
    auto c = std::make_shared<CachedPlan>();
    std::vector<bool> written(pb.bufs.size(), false);
    for (const plan::Step& st : pb.plan.steps)
      for (int w : st.writes) written.at(size_t(w)) = true;
    for (size_t b = 0; b < pb.bufs.size(); ++b) {
      int leaf = -1;
      for (size_t l = 0; l < leaves.size() && leaf < 0; ++l)
        if (leaves[l] == pb.bufs[b]) leaf = int(l);
      if (written[b] == (leaf >= 0)) return;  // an output that is an input, or an input we cannot rebind
      c->input_leaf.push_back(leaf);
    }
    c->plan = pb.plan;
    plan_cache().insert(key, std::move(c));
  }

  // The destination of reduce_by_index / scatter, owned: its leaf buffers
  // whole (offset 0, exact size) and referenced by nothing else.
  Value own_destination(std::vector<BufferPtr>& leaves, Sym& like, int max_rank = 1) {
    Value dest = call.args.at(0);
    if (dest.kind != Value::Kind::Array || dest.arr().rank() > max_rank)
      throw Fallback("a destination of more dimensions than the indices have");
    const ArrayValue& a = dest.arr();
    std::vector<const ArrayValue*> parts;
    if (a.elem.kind == ElemShape::Kind::Prim) {
      parts.push_back(&a);
      like = Sym::scalar(kir::kNoReg, a.elem.prim);
    } else if (a.elem.kind == ElemShape::Kind::Tuple || a.elem.kind == ElemShape::Kind::Record) {
      like.kind = a.elem.kind == ElemShape::Kind::Tuple ? Sym::Kind::Tuple : Sym::Kind::Record;
      if (a.elem.kind == ElemShape::Kind::Record) like.names = std::make_shared<std::vector<std::string>>(a.elem.names);
      for (const ArrayPtr& c : a.components) {
        if (c->elem.kind != ElemShape::Kind::Prim || c->rank() != a.rank()) throw Fallback("destination of nested tuples");
        parts.push_back(c.get());
        like.elems.push_back(Sym::scalar(kir::kNoReg, c->elem.prim));
      }
    } else {
      throw Fallback("destination of sum types");
    }
    bool whole = true;
    for (const ArrayValue* p : parts) whole &= p->offset == 0 && p->buffer->count() == a.count();
    // The call's argument and `dest` hold the array; the evaluator gave it up.
    call.args[0] = Value();
    if (!(whole && dest.array.use_count() == 1 && eval::storage_unique(dest.arr())))
      dest = Value::make_array(copy_array(dest.arr()));
    const ArrayValue& owned = dest.arr();
    if (owned.elem.kind == ElemShape::Kind::Prim) leaves.push_back(owned.buffer);
    else
      for (const ArrayPtr& c : owned.components) leaves.push_back(c->buffer);
    return dest;
  }

  // The scalar neutral element of a vectorised one (an array whose
  // elements must all be equal).
  static void uniform_neutral(const Value& ne, Sym& like, std::vector<Scalar>& neutral) {
    const ArrayValue& a = ne.arr();
    if (a.rank() != 1 || a.outer() == 0) throw Fallback("a vectorised neutral element of other than one dimension");
    Value first = array_row(a, 0);
    like = shape_of_value(first);
    neutral = value_scalars(first);
    for (int64_t c = 1; c < a.outer(); ++c)
      if (value_scalars(array_row(a, c)) != neutral)
        throw Fallback("a vectorised neutral element that differs between columns");
  }

  // hist (map2 f) (replicate d ne) k is vss (k-means): one histogram per
  // column, all updated from one pass over the input; the element yields
  // the bin and the d values of its row.
  Value hist_vectorised() {
    const Value& opv = call.args.at(1);
    const Value& ne = call.args.at(2);
    const Value& isv = call.args.at(3);
    const Value& vsv = call.args.at(4);
    const ArrayValue& da = call.args.at(0).arr();
    if (da.rank() != 2 || vsv.arr().rank() != 2) throw Fallback("vectorised histograms of other than rows");
    int64_t k = da.shape[0], d = da.shape[1], n = isv.arr().outer();
    if (ne.arr().outer() != d || vsv.arr().shape[1] != d) throw Fallback("rows of different lengths");
    if (d == 0 || k == 0) throw Fallback("empty histogram rows");
    Sym like;
    std::vector<Scalar> ne1;
    uniform_neutral(ne, like, ne1);
    std::vector<Prim> types;
    leaf_prims(like, types);
    size_t L = types.size();
    if (size_t(d) * L > 64) throw Fallback("vectorised histograms of more than 64 values per row");
    kir::Function scalar_op = elementwise_operator(opv, like, d);
    Builder pb;
    plan::Step st = new_step(plan::StepKind::SegHist, call.loc, 1, n);
    Lowerer lw(st.element, ev);
    kir::Builder& b = lw.b();
    b.param(Prim::I64);
    Reg j = b.param(Prim::I64);
    Sym idx = lw.index(lw.array_of(isv), j, call.loc, false);
    if (!idx.is_scalar() || !is_integral(idx.prim)) throw Fallback("indices that are not integers");
    std::vector<Reg> res{lw.convert(idx, Prim::I64).reg};
    Sym row = lw.index(lw.array_of(vsv), j, call.loc, false);
    for (int64_t c = 0; c < d; ++c) {
      Sym x = lw.index(row, b.i64(c), call.loc, false);
      if (lw.leaf_types(x) != types) throw Fallback("values and neutral element differ in type");
      for (Reg r : lw.leaves(x)) res.push_back(r);
    }
    b.ret(res);
    finish_function(st.element, "element");
    // The operator: the scalar operator once per column.
    {
      kir::Builder ob(st.op);
      st.op.name = "op";
      std::vector<Reg> acc, x;
      for (int64_t c = 0; c < d; ++c)
        for (Prim t : types) acc.push_back(ob.param(t));
      for (int64_t c = 0; c < d; ++c)
        for (Prim t : types) x.push_back(ob.param(t));
      std::vector<Reg> outs;
      for (int64_t c = 0; c < d; ++c) {
        std::vector<Reg> args(acc.begin() + long(size_t(c) * L), acc.begin() + long(size_t(c + 1) * L));
        args.insert(args.end(), x.begin() + long(size_t(c) * L), x.begin() + long(size_t(c + 1) * L));
        for (Reg r : ob.inline_call(scalar_op, args, {})) outs.push_back(r);
      }
      ob.ret(outs);
      finish_function(st.op, "vectorised operator");
    }
    for (int64_t c = 0; c < d; ++c) st.neutral.insert(st.neutral.end(), ne1.begin(), ne1.end());
    st.commutative = true;
    st.bins = k;
    st.reads = pb.reads(lw);
    st.fused = join(lw.fused);
    // Columns of the destination as separate histograms, and back.
    std::vector<BufferPtr> leaves;
    Sym dlike;
    Value dest = own_destination(leaves, dlike, 2);
    if (leaves.size() != L) throw Internal();
    std::vector<BufferPtr> cols;
    for (int64_t c = 0; c < d; ++c)
      for (size_t l = 0; l < L; ++l) {
        auto col = std::make_shared<Buffer>(types[l], k, Buffer::NoInit{});
        size_t w = size_t(prim_bytes(types[l]));
        const std::byte* src = leaves[l]->host();
        for (int64_t bin = 0; bin < k; ++bin) std::memcpy(col->host_mut() + size_t(bin) * w, src + size_t(bin * d + c) * w, w);
        st.writes.push_back(pb.add(col, fmt::format("col{}.{}", c, l)));
        cols.push_back(col);
      }
    pb.plan.source = fmt::format("reduce_by_index (vectorised operator) at {}", call.loc.str());
    pb.plan.loc = call.loc;
    pb.plan.notes.push_back(fmt::format("vectorised operator: {} histograms of {} bins, one per column", d, k));
    pb.plan.steps.push_back(std::move(st));
    pb.plan.results = pb.plan.steps[0].writes;
    run(pb);
    for (int64_t c = 0; c < d; ++c)
      for (size_t l = 0; l < L; ++l) {
        size_t w = size_t(prim_bytes(types[l]));
        std::byte* dst = leaves[l]->host_mut();
        const std::byte* src = cols[size_t(c) * L + l]->host();
        for (int64_t bin = 0; bin < k; ++bin) std::memcpy(dst + size_t(bin * d + c) * w, src + size_t(bin) * w, w);
      }
    return dest;
  }

  // The row-major position of index tuple `idx` in an array of `dims`, or
  // -1 when a component is out of its dimension's bounds.
  Sym linear_index(Lowerer& lw, const Sym& idx, const std::vector<int64_t>& dims) {
    if (idx.kind != Sym::Kind::Tuple || idx.elems.size() != dims.size()) throw Fallback("index tuples of another arity");
    auto i64 = [&](int64_t v) { return lw.constant(Scalar::i64(v)); };
    Sym lin = i64(0), ok = lw.constant(Scalar::boolean(true));
    for (size_t k = 0; k < dims.size(); ++k) {
      const Sym& c = idx.elems[k];
      if (!c.is_scalar() || !is_integral(c.prim)) throw Fallback("indices that are not integers");
      Sym ik = lw.convert(c, Prim::I64);
      Sym in = lw.binop("&&", lw.binop(">=", ik, i64(0), call.loc), lw.binop("<", ik, i64(dims[k]), call.loc), call.loc);
      ok = lw.binop("&&", ok, in, call.loc);
      lin = lw.binop("+", lw.binop("*", lin, i64(dims[k]), call.loc), ik, call.loc);
    }
    return lw.select_or_if(ok, [&] { return lin; }, [&] { return i64(-1); });
  }

  Value hist_or_scatter(bool hist) {
    const int d = call.index_dims;
    if (hist && d == 1 && call.args.at(2).kind == Value::Kind::Array) return hist_vectorised();
    // scatter_2d / reduce_by_index_3d: the destination's d dimensions as
    // one, each index tuple linearised (an index out of bounds in any
    // dimension becomes -1, which the step ignores as the reference does).
    std::vector<int64_t> dest_dims;
    if (call.args.at(0).kind == Value::Kind::Array) dest_dims = call.args.at(0).arr().shape;
    if (d > 1 && int(dest_dims.size()) != d) throw Fallback("a destination of more dimensions than the indices have");
    const Value& isv = call.args.at(hist ? 3 : 1);
    const Value& vsv = call.args.at(hist ? 4 : 2);
    if (isv.kind != Value::Kind::Array || vsv.kind != Value::Kind::Array) throw Fallback("not arrays");
    int64_t n = isv.arr().outer();
    if (vsv.arr().outer() != n) throw Fallback("index and value arrays of different lengths");
    if (n == 0) throw Fallback("empty input");
    Builder pb;
    plan::Step st = new_step(hist ? plan::StepKind::SegHist : plan::StepKind::Scatter, call.loc, 1, n);
    Lowerer lw(st.element, ev);
    kir::Builder& b = lw.b();
    b.param(Prim::I64);
    Reg j = b.param(Prim::I64);
    Sym idx = lw.index(lw.array_of(isv), j, call.loc, false);
    Sym v = lw.index(lw.array_of(vsv), j, call.loc, false);
    if (d > 1) idx = linear_index(lw, idx, dest_dims);
    if (!idx.is_scalar() || !is_integral(idx.prim)) throw Fallback("indices that are not integers");
    std::vector<Reg> res{lw.convert(idx, Prim::I64).reg};
    for (Reg r : lw.leaves(v)) res.push_back(r);
    b.ret(res);
    finish_function(st.element, "element");
    st.reads = pb.reads(lw);
    st.fused = join(lw.fused);
    // Everything that can fall back has been checked before the destination is taken.
    Sym like;
    std::vector<Prim> types;
    if (hist) {
      const Value& opv = call.args.at(1);
      const Value& ne = call.args.at(2);
      like = shape_of_value(ne);
      leaf_prims(like, types);
      if (lw.leaf_types(v) != types) throw Fallback("values and neutral element differ in type");
      st.op = lower_operator(ev, [&](Lowerer& ol) { return ol.from_value(opv); }, like, call.loc);
      st.neutral = value_scalars(ne);
      st.commutative = true;
    }
    std::vector<BufferPtr> leaves;
    Sym dlike;
    {
      // Type agreement of the destination, before it is taken from the call.
      const ArrayValue& a = call.args.at(0).arr();
      std::vector<Prim> dtypes;
      if (a.elem.kind == ElemShape::Kind::Prim) dtypes.push_back(a.elem.prim);
      else
        for (const ArrayPtr& c : a.components) dtypes.push_back(c->elem.prim);
      if (dtypes != lw.leaf_types(v)) throw Fallback("destination and values differ in type");
    }
    Value dest = own_destination(leaves, dlike, d);
    int64_t k = dest.arr().count();
    if (hist) st.bins = k;
    else st.dest_size = k;
    for (size_t r = 0; r < leaves.size(); ++r) st.writes.push_back(pb.add(leaves[r], fmt::format("dest{}", r)));
    pb.plan.source = fmt::format("{} at {}", exec::soac_name(call.kind), call.loc.str());
    pb.plan.loc = call.loc;
    if (!st.fused.empty()) pb.plan.notes.push_back("fused: " + st.fused);
    pb.plan.steps.push_back(std::move(st));
    pb.plan.results = pb.plan.steps[0].writes;
    run(pb);
    return dest;
  }

  // ---- array primitives as delayed producers
  Value iota() {
    int64_t n = call.args.at(0).scalar.as_i64();
    if (n < 0) throw Fallback("negative size");
    auto p = std::make_shared<Producer>();
    kir::Builder b(p->elem);
    p->elem.name = "iota";
    b.ret({b.param(Prim::I64)});
    p->shape = {n};
    p->elem_shape.prim = Prim::I64;
    p->leaves = {Prim::I64};
    p->what = "iota";
    p->loc = call.loc;
    if (want_listing) out.listing = fmt::format("delayed iota {} at {}\n", n, call.loc.str());
    return make_delayed_array(p);
  }

  Value replicate() {
    int64_t n = call.args.at(0).scalar.as_i64();
    const Value& x = call.args.at(1);
    if (n < 0) throw Fallback("negative size");
    if (n == 0) throw Fallback("empty replicate");
    if (x.kind == Value::Kind::Array) return replicate_array(n, x);
    Sym like = shape_of_value(x);  // scalars or tuples of scalars
    auto p = std::make_shared<Producer>();
    kir::Builder b(p->elem);
    p->elem.name = "replicate";
    b.param(Prim::I64);
    std::vector<Reg> regs;
    for (const Scalar& s : value_scalars(x)) regs.push_back(b.constant(s));
    b.ret(regs);
    p->shape = {n};
    p->elem_shape = elem_shape_of(like);
    leaf_prims(like, p->leaves);
    p->what = "replicate";
    p->loc = call.loc;
    if (want_listing) out.listing = fmt::format("delayed replicate {} at {}\n", n, call.loc.str());
    return make_delayed_array(p);
  }

  // replicate n xs: element f of the result is element f % |xs| of xs.
  Value replicate_array(int64_t n, const Value& x) {
    const ArrayValue& a = x.arr();
    int64_t inner = a.count();
    if (inner == 0) throw Fallback("replicate of an empty array");
    auto p = std::make_shared<Producer>();
    p->elem.name = "replicate";
    Lowerer lw(p->elem, ev);
    kir::Builder& b = lw.b();
    Reg flat = b.param(Prim::I64);
    Sym v = index_row_major(lw, lw.array_of(x), flat, inner, a.shape, call.loc);
    Sym like = shape_like(v);
    b.ret(lw.leaves(v));
    finish_function(p->elem, "replicate");
    p->reads = lw.reads();
    p->shape = {n};
    for (int64_t d : a.shape) p->shape.push_back(d);
    p->elem_shape = elem_shape_of(like);
    leaf_prims(like, p->leaves);
    p->what = "replicate";
    p->loc = call.loc;
    if (want_listing) out.listing = fmt::format("delayed replicate {} of {} elements at {}\n", n, inner, call.loc.str());
    return make_delayed_array(p);
  }

  Value transpose() { return transpose_of(call.args.at(0)); }

  // transpose swaps the two outer dimensions; rows of higher rank arrays
  // ([n][m][k] -> [m][n][k]) move whole.
  Value transpose_of(const Value& xs) {
    if (xs.kind != Value::Kind::Array || xs.arr().rank() < 2) throw Fallback("transpose of other than a matrix");
    const std::vector<int64_t>& shape = xs.arr().shape;
    int64_t n = shape[0], m = shape[1];
    std::vector<int64_t> rest(shape.begin() + 2, shape.end());
    int64_t inner = 1;
    for (int64_t d : rest) inner *= d;
    if (n == 0 || m == 0 || inner == 0) throw Fallback("empty matrix");
    auto p = std::make_shared<Producer>();
    p->elem.name = "transpose";
    Lowerer lw(p->elem, ev);
    kir::Builder& b = lw.b();
    Reg flat = b.param(Prim::I64);
    Reg outer = inner == 1 ? flat : b.binary(kir::BinOp::Quot, flat, b.i64(inner));
    Reg i = b.binary(kir::BinOp::Quot, outer, b.i64(n));  // result row: a column of xs
    Reg j = b.binary(kir::BinOp::Rem, outer, b.i64(n));
    Sym v = lw.index(lw.index(lw.array_of(xs), j, call.loc, false), i, call.loc, false);
    if (!rest.empty()) v = index_row_major(lw, v, flat, inner, rest, call.loc);
    Sym like = shape_like(v);
    b.ret(lw.leaves(v));
    finish_function(p->elem, "transpose");
    p->reads = lw.reads();
    p->shape = {m, n};
    p->shape.insert(p->shape.end(), rest.begin(), rest.end());
    p->elem_shape = elem_shape_of(like);
    leaf_prims(like, p->leaves);
    p->what = lw.fused.empty() ? "transpose" : "transpose, " + join(lw.fused);
    p->loc = call.loc;
    if (want_listing) out.listing = fmt::format("delayed transpose at {}\n", call.loc.str());
    return make_delayed_array(p);
  }
};

}  // namespace

HostRun run_on_host(exec::SoacCall& call, eval::Evaluator& ev, const PlanExecutor& execute, bool want_listing) {
  Planner pl{call, ev, execute, {}, {}, want_listing};
  try {
    Value v;
    switch (call.kind) {
      case SoacKind::Map:
        v = pl.map();
        if (want_listing) pl.out.listing = pl.note + pl.out.listing;
        break;
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
    if (!pl.note.empty()) pl.out.fallback += "; " + pl.note.substr(0, pl.note.size() - 1);
    pl.out.value.reset();
  } catch (const Planner::Internal&) {
    pl.out.fallback = "internal: the plan's structure changed between two lowerings";
    pl.out.value.reset();
  } catch (const Error&) {
    throw;  // a run-time error of the program (a failed Check): the program's error
  } catch (const std::exception& e) {
    // A gap in the lowering (not a Fallback it anticipated): the reference
    // backend still runs the call correctly; the log shows what happened.
    pl.out.fallback = std::string("internal: ") + e.what();
    pl.out.value.reset();
  }
  return pl.out;
}

}  // namespace thorn::flatten
