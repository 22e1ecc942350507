// The planner's maps: flat and nested element functions (delayed
// producers), rows built once each (map_rows), map of reduce/scan as one
// segmented step.
#include "interp/flatten/planner_impl.hpp"
#include "interp/flatten/plan_tiled.hpp"

namespace thorn::flatten::planning {

// map whose element is a scalar (dims empty) or an array of constant dims:
// a delayed array over the flattened domain. With a key, the producer is
// cached with its captured scalars lifted into parameters; if the
// lowering needed one of them as a constant (a size, a range bound), it
// is lowered again the old way, with constants, and not cached.
Value Planner::map_flat(int64_t n, const std::vector<int64_t>& dims, const std::string* key) {
  if (key) {
    CaptureLog log;
    log.copy_delayed_up_to = copy_delayed_up_to;
    try {
      return map_flat_once(n, dims, &log, key);
    } catch (const Fallback&) {
      if (!log.lifted) throw;
    }
  }
  return map_flat_once(n, dims, nullptr, nullptr);
}

Value Planner::map_flat_once(int64_t n, const std::vector<int64_t>& dims, CaptureLog* log, const std::string* key) {
  const Value& fv = call.args.at(0);
  size_t nin = call.args.size() - 1;
  auto p = std::make_shared<Producer>();
  p->elem.name = "map";
  Lowerer lw(p->elem);
  lw.set_capture_log(log);
  lw.speculative_bound = speculative_bound;
  kir::Builder& b = lw.b();
  Reg flat = b.param(Prim::I64);
  int64_t inner = 1;
  for (int64_t d : dims) inner *= d;
  // Rows with no elements ([n][0]): no element runs; the divisor stays 1.
  Reg i = dims.empty() ? flat : b.binary(kir::BinOp::Quot, flat, b.i64(std::max<int64_t>(inner, 1)));
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
  leaf_prims(like, p->leaves);
  // Sums in the element: a delayed array cannot hold them. The producer
  // computes their columns (tag and payloads) now; they are boxed after.
  const bool sums = has_sum(like);
  p->elem_shape = elem_shape_of(sums ? leaves_like(p->leaves) : like);
  p->what = lw.fused.empty() ? "map" : "map, " + join(lw.fused);
  p->loc = call.loc;
  if (want_listing) out.listing = fmt::format("delayed {} at {}: {} elements, computed where it is consumed\n{}", p->what,
                            call.loc.str(), p->count(), kir::to_string(p->elem));
  if (want_listing)
    if (auto t = plan::recognise_tiled(materialise_step(*p)))
      out.listing += fmt::format("materialised with schedule: {}\n", plan::describe(*t));
  if (sums) return boxed_now(p, like);
  if (log && key) {
    std::string remark = cache_map(*key, *log, p->elem, [&](CachedPlan& c) {
      auto proto = std::make_shared<Producer>(*p);
      proto->reads.clear();
      c.producer = proto;
    });
    if (want_listing) out.listing += remark;
  }
  return delayed_or_now(p);
}

// (planner_impl.hpp)
Value Planner::boxed_now(const std::shared_ptr<Producer>& p, const Sym& like) {
  Value v = make_delayed_array(p);
  materialise_leaves(v.arr());
  return array_from_columns(like, v.arr(), p->shape);
}

// (planner_impl.hpp)
std::string Planner::cache_map(const std::string& key, const CaptureLog& log, const kir::Function& f,
                               const std::function<void(CachedPlan&)>& fill) {
  if (!log.cacheable || log.reads.size() != f.free_arrays.size()) return "not cached: " + log.why_not + "\n";
  auto c = std::make_shared<CachedPlan>();
  fill(*c);
  c->speculative_bound = speculative_bound;
  c->copy_delayed_up_to = log.copy_delayed_up_to;
  c->sources = log.sources;
  c->reads = log.reads;
  c->aliases = log.aliases;
  plan_cache().insert(key, std::move(c));
  size_t params = 0;
  for (const ReadBinding& r : log.reads) params += r.kind == ReadBinding::Kind::Param;
  return plan_cache_summary() +
         fmt::format(" (this call: planned; {} captured scalar{} as parameters)\n", params, params == 1 ? "" : "s");
}

// A producer whose element stores arrays under a guessed bound runs now,
// where run_on_host can plan again if a run outgrows it, not when (and
// wherever) its array is consumed.
Value Planner::delayed_or_now(const ProducerPtr& p) {
  Value v = make_delayed_array(p);
  if (!speculates(p->elem)) return v;
  materialise_leaves(v.arr());
  if (want_listing) out.listing += fmt::format("computed now: {}\n", speculation_text());
  return v;
}

bool Planner::has_array(const Sym& s) {
  if (s.kind == Sym::Kind::Array) return true;
  if (s.kind != Sym::Kind::Tuple && s.kind != Sym::Kind::Record) return false;
  for (const Sym& e : s.elems)
    if (has_array(e)) return true;
  return false;
}

// Component k of an array of tuples: an array of the same outer sizes
// whose elements are the tuples' components (of [b]([c]f32, [c]f32), as
// `map unzip` makes it, the [b][c] array of the first components).
static Sym component_of(Lowerer& lw, const Sym& v, size_t k, const Loc& loc) {
  if (v.kind == Sym::Kind::Tuple || v.kind == Sym::Kind::Record) return v.elems.at(k);
  Sym inner = component_of(lw, lw.element_like(v, loc), k, loc);
  auto arr = std::make_shared<SymArr>();
  arr->dims = v.arr->dims;
  if (inner.kind == Sym::Kind::Array)
    for (int64_t d : inner.arr->dims) arr->dims.push_back(d);
  Lowerer* l = &lw;
  arr->gen = [l, v, k, loc](Reg i) { return component_of(*l, l->index(v, i, loc, false), k, loc); };
  Sym out;
  out.kind = Sym::Kind::Array;
  out.arr = arr;
  return out;
}

// Whether v is an array whose elements are tuples with arrays in them.
static bool zipped_arrays(Lowerer& lw, const Sym& v, const Loc& loc) {
  if (v.kind != Sym::Kind::Array) return false;
  Sym like = lw.element_like(v, loc);
  return (like.kind == Sym::Kind::Tuple || like.kind == Sym::Kind::Record) && Planner::has_array(like);
}

void Planner::row_parts(Lowerer& lw, const Sym& r, std::vector<RowPart>& parts) {
  switch (r.kind) {
    case Sym::Kind::Scalar:
    case Sym::Kind::Sum: parts.push_back({{}, shape_like(r), {}, {}}); return;  // a sum: boxed afterwards
    case Sym::Kind::Tuple:
    case Sym::Kind::Record:
      for (const Sym& e : r.elems) row_parts(lw, e, parts);
      return;
    case Sym::Kind::Array:
      if (Lowerer::dynamic(r)) throw Fallback(kIrregularRows);
      // An inner size from a captured scalar the plan cache lifted into a
      // parameter (`replicate k x` inside a tuple's array) is not known to
      // this plan: map_rows lowers again with the constants.
      for (int64_t d : r.arr->dims)
        if (d < 0) throw Fallback("map producing arrays of a size not known when the nest starts");
      parts.push_back({r.arr->dims, shape_like(lw.element_like(r, call.loc)), {}, {}});
      return;
    default: throw Fallback("map producing functions or nested SOACs");
  }
}

// The result value: parts as arrays with n rows, tuples of them zipped
// into arrays of tuples (components with more dimensions than [n]).
Value Planner::row_value(const Sym& r, std::vector<RowPart>& parts, size_t& k, int64_t n) {
  // An array of tuples with array components (skeleton): its tuple's
  // components with the array's outer sizes.
  if (r.kind == Sym::Kind::Array) {
    Value inner = row_value(r.elems.at(0), parts, k, n);
    auto a = std::make_shared<ArrayValue>(inner.arr());
    a->shape = {n};
    a->shape.insert(a->shape.end(), r.arr->dims.begin(), r.arr->dims.end());
    return Value::make_array(std::move(a));
  }
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

// A row as its parts are written: every array of tuples with array
// components replaced by the tuple of its components, each an array of
// its own with the array's outer sizes in front (`component_of`; the
// evaluator holds such arrays so). `skeleton` gets the row's tuples and
// records with a placeholder scalar for each part: what row_value needs
// of it, and all a cached plan keeps; such an array is an Array whose arr
// has only its outer sizes and whose elems[0] is its tuple's skeleton.
Sym row_layout(Lowerer& lw, const Sym& r, Sym& skeleton, const Loc& loc) {
  skeleton = Sym();
  if (r.kind == Sym::Kind::Array && !Lowerer::dynamic(r) && zipped_arrays(lw, r, loc)) {
    Sym like = lw.element_like(r, loc);
    Sym parts = like, tuple = like;
    for (size_t c = 0; c < like.elems.size(); ++c)
      parts.elems[c] = row_layout(lw, component_of(lw, r, c, loc), tuple.elems[c], loc);
    skeleton.kind = Sym::Kind::Array;
    auto outer = std::make_shared<SymArr>();
    outer->dims = r.arr->dims;
    skeleton.arr = std::move(outer);
    skeleton.elems.push_back(std::move(tuple));
    return parts;
  }
  if (r.kind != Sym::Kind::Tuple && r.kind != Sym::Kind::Record) return r;
  Sym parts = r;
  skeleton.kind = r.kind;
  skeleton.names = r.names;
  skeleton.elems.resize(r.elems.size());
  for (size_t c = 0; c < r.elems.size(); ++c) parts.elems[c] = row_layout(lw, r.elems[c], skeleton.elems[c], loc);
  return parts;
}

std::vector<RowPart> Planner::write_row(Lowerer& lw, const Sym& r, Reg s, int64_t n) {
  kir::Builder& b = lw.b();
  std::vector<RowPart> parts;
  row_parts(lw, r, parts);
  int outs = 0;
  for (RowPart& p : parts) {
    std::vector<Prim> types;
    leaf_prims(p.like, types);
    for (Prim t : types) {
      p.outs.push_back(std::make_shared<Buffer>(t, n * p.elems(), Buffer::NoInit{}));
      p.ids.push_back(lw.output_array(p.outs.back(), fmt::format("out{}", outs++)));
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
    const int64_t inner = p.elems();
    Reg base = b.binary(kir::BinOp::Mul, s, b.i64(inner));
    b.for_(b.i64(inner), {}, [&](Reg j, const std::vector<Reg>&) {
      std::vector<Reg> regs = lw.leaves(index_row_major(lw, v, j, inner, p.dims, call.loc));
      Reg at = b.binary(kir::BinOp::Add, base, j);
      for (size_t l = 0; l < regs.size(); ++l) b.write(p.ids[l], at, regs[l]);
      return std::vector<Reg>{};
    });
  };
  write(r);
  return parts;
}

// map whose function builds its result in private arrays (a scan inside
// it, in-place updates, a loop over an array) or returns a tuple with
// array components: a SegMap with one element per row, which computes
// its row once and writes each part to its outputs (written free
// arrays), instead of once per element of the row. With a key, the step
// is cached with captured scalars lifted into parameters; if the lowering
// needed one of them as a constant, it is lowered again with constants
// and not cached (as map_flat does).
Value Planner::map_rows(int64_t n, const std::string* key) {
  if (key) {
    CaptureLog log;
    log.copy_delayed_up_to = copy_delayed_up_to;
    try {
      return map_rows_once(n, &log, key);
    } catch (const Fallback&) {
      if (!log.lifted) throw;
    }
  }
  return map_rows_once(n, nullptr, nullptr);
}

Value Planner::map_rows_once(int64_t n, CaptureLog* log, const std::string* key) {
  const Value& fv = call.args.at(0);
  size_t nin = call.args.size() - 1;
  plan::Step st = new_step(plan::StepKind::SegMap, call.loc, n, 1);
  Lowerer lw(st.element);
  lw.set_capture_log(log);
  lw.speculative_bound = speculative_bound;
  lw.max_private_bytes = kir::kMaxSegMapPrivateBytes;  // each row computed once, at once
  lw.choice_private_bytes = kir::kMaxSegMapPrivateBytes;
  kir::Builder& b = lw.b();
  Reg s = b.param(Prim::I64);
  b.param(Prim::I64);
  Sym fs = log ? lw.from_source(fv, log->source(-1, CaptureSource::Step::Fn, "", 0).first) : lw.from_value(fv);
  std::vector<Sym> xs;
  for (size_t k = 1; k <= nin; ++k) {
    Sym in = log ? lw.from_source(call.args[k], log->source(-1, CaptureSource::Step::Input, "", int(k)).first)
                 : input(lw, k);
    xs.push_back(lw.index(in, s, call.loc, false));
  }
  Sym skel;
  Sym r = row_layout(lw, lw.apply(fs, xs, call.loc), skel, call.loc);
  std::vector<RowPart> parts = write_row(lw, r, s, n);
  b.ret({});
  finish_function(st.element, "map rows");
  st.fused = join(lw.fused);
  std::string remark;
  if (log && key)
    remark = cache_map(*key, *log, st.element, [&](CachedPlan& c) {
      auto rows = std::make_shared<CachedRows>();
      rows->step = st;
      rows->parts = parts;
      for (RowPart& p : rows->parts) p.outs.clear();
      rows->skeleton = skel;
      c.rows = std::move(rows);
    });
  return run_rows(std::move(st), lw.reads(), std::move(parts), skel, n, remark);
}

Value Planner::run_rows(plan::Step st, std::vector<BufferPtr> bound, std::vector<RowPart> parts, const Sym& skeleton,
                        int64_t n, const std::string& remark, const std::string& source, const std::string& note) {
  Builder pb;
  int64_t row_elems = 0;
  for (RowPart& p : parts) {
    row_elems += p.elems();
    if (!p.outs.empty()) continue;
    for (int id : p.ids) {
      p.outs.push_back(std::make_shared<Buffer>(st.element.free_arrays.at(size_t(id)).elem, n * p.elems(), Buffer::NoInit{}));
      bound.at(size_t(id)) = p.outs.back();
    }
  }
  st.segments = n;
  st.reads.clear();
  for (size_t k = 0; k < bound.size(); ++k) st.reads.push_back(pb.add(bound[k], fmt::format("in{}", k)));
  int out_no = 0;
  for (const RowPart& p : parts)
    for (const BufferPtr& o : p.outs) {
      plan::BufferDesc& d = pb.plan.buffers[size_t(pb.add(o, ""))];
      d.name = fmt::format("out{}", out_no++);
      d.is_input = false;
      pb.plan.results.push_back(pb.add(o, ""));
    }
  pb.plan.source = source.empty() ? fmt::format("map at {}", call.loc.str()) : source;
  pb.plan.loc = call.loc;
  pb.plan.notes.push_back(note.empty() ? fmt::format("rows built once each ({} bytes of private arrays per row): one "
                                                     "element per row, [{}] rows of {} elements",
                                                     st.element.local_bytes(), n, row_elems)
                                       : note);
  speculation_note(st.element, pb.plan);
  pb.plan.steps.push_back(std::move(st));
  run(pb);
  if (want_listing) out.listing += remark;
  size_t k = 0;
  return row_value(skeleton, parts, k, n);
}

Value Planner::map_nested(int64_t n, const std::vector<int64_t>& dims, const std::string* key) {
  return map_flat(n, dims, key);
}

SymSoac Planner::tail_soac(Lowerer& lw, Reg s) {
  std::vector<Sym> xs;
  for (size_t k = 1; k < call.args.size(); ++k) xs.push_back(lw.index(input(lw, k), s, call.loc, false));
  Sym r = lw.apply(lw.from_value(call.args.at(0)), xs, call.loc, true);
  if (r.kind != Sym::Kind::Soac) throw Internal();
  return *r.soac;
}

// map (\x -> reduce/scan op ne (... x ...)) xs: one segmented step.
Value Planner::segmented(const SymSoac& probe_soac, int64_t n) {
  if (probe_soac.arr.kind != Sym::Kind::Array) throw Fallback("a nested SOAC over a non-array");

  int64_t m = probe_soac.arr.arr->dims.at(0);
  if (probe_soac.arr.arr->dims.size() != 1) throw Fallback("a nested SOAC over arrays of arrays");
  bool scan = probe_soac.kind == SoacKind::Scan;
  Builder pb;
  plan::Step st = new_step(scan ? plan::StepKind::SegScan : plan::StepKind::SegRed, call.loc, n, m);
  Lowerer lw(st.element);
  lw.speculative_bound = speculative_bound;
  kir::Builder& b = lw.b();
  Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
  const SymSoac soac = tail_soac(lw, s);
  Sym x = lw.index(soac.arr, j, soac.loc, false);
  Sym like = shape_like(soac.ne);
  if (lw.leaf_types(x) != lw.leaf_types(soac.ne)) throw Fallback("the nested SOAC's neutral element and array differ in type");
  b.ret(lw.leaves(x));
  finish_function(st.element, "segmented element");
  // Neutral elements must be the same for every segment: plan-time constants.
  std::function<void(const Sym&)> neutrals = [&](const Sym& v) {
    if (v.kind == Sym::Kind::Scalar) {
      if (!v.known) throw PerElementOperands("a neutral element that depends on the mapped element");
      st.neutral.push_back(*v.known);
    } else {
      for (const Sym& e : v.elems) neutrals(e);
    }
  };
  neutrals(soac.ne);
  Sym op_sym = soac.op;
  st.op = lower_operator([&](Lowerer& ol) { return ol.import(op_sym); }, like, soac.loc);
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
  speculation_note(st.element, pb.plan);
  pb.plan.steps.push_back(std::move(st));
  for (size_t k = 0; k < outs.size(); ++k) pb.plan.results.push_back(pb.plan.steps[0].writes[k]);
  run(pb);
  return array_from_leaves(like, outs, scan ? std::vector<int64_t>{n, m} : std::vector<int64_t>{n});
}

}  // namespace thorn::flatten::planning
