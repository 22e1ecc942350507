// The planner's reductions and scans: plain, over vectorised operators, and
// their plan-cache entries.
#include "interp/flatten/planner_impl.hpp"

namespace thorn::flatten::planning {

// The scalar operator f of a vectorised operator (`map2 f`, or any
// function that combines two [m] arrays element by element), found by
// applying it to arrays whose every element is the scalar parameters:
// an element access at any index but the one asked for is not
// elementwise, and falls back.
// Whether register r of f is computed from one of `from` (conservatively:
// anything a loop or branch reads taints all it yields).
static bool depends_on(const kir::Function& f, kir::Reg r, std::set<kir::Reg> tainted) {
  std::function<void(const kir::Block&)> walk = [&](const kir::Block& b) {
    for (const kir::Instr& in : b.instrs) {
      bool t = tainted.count(in.a) || tainted.count(in.b) || tainted.count(in.c);
      for (kir::Reg x : in.args) t = t || tainted.count(x);
      if (!in.blocks.empty()) {
        // Twice: what a loop carries round reaches its parameters.
        for (int pass = 0; pass < 2; ++pass)
          for (const kir::Block& nb : in.blocks) {
            if (t)
              for (kir::Reg p : nb.params) tainted.insert(p);
            const size_t before = tainted.size();
            walk(nb);
            for (kir::Reg x : nb.results) t = t || tainted.count(x);
            t = t || tainted.size() != before;
          }
      }
      if (t) {
        if (in.dst != kir::kNoReg) tainted.insert(in.dst);
        for (kir::Reg d : in.dsts) tainted.insert(d);
      }
    }
  };
  walk(f.body);
  return tainted.count(r) > 0;
}

kir::Function Planner::elementwise_operator(const Value& opv, const Sym& like, int64_t m, bool tuple_of_arrays,
                                            const std::vector<bool>* scalar_parts) {
  kir::Function f;
  f.name = "op";
  Lowerer lw(f);
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
      if (!ok) throw NotColumnwise("a vectorised operator that is not elementwise");
      return elem;
    };
    Sym s;
    s.kind = Sym::Kind::Array;
    s.arr = arr;
    return s;
  };
  // An [m] array of the result, at i0.
  auto element = [&](const Sym& r, const char* what) {
    if (r.kind != Sym::Kind::Array || r.arr->dims != std::vector<int64_t>{m})
      throw Fallback(fmt::format("a vectorised operator whose result is not {} of the same length", what));
    return lw.index(r, i0, call.loc, false);
  };
  Sym e;
  if (tuple_of_arrays) {
    // (a, b) as ([m]a, [m]b): each component an array of its scalar.
    auto scalar = [&](size_t k) { return scalar_parts && (*scalar_parts)[k]; };
    auto components = [&](const Sym& t) {
      Sym out = t;
      for (size_t k = 0; k < out.elems.size(); ++k)
        if (!scalar(k)) out.elems[k] = vec(out.elems[k]);
      return out;
    };
    e = lw.apply(lw.from_value(opv), {components(a), components(b)}, call.loc);
    if ((e.kind != Sym::Kind::Tuple && e.kind != Sym::Kind::Record) || e.elems.size() != like.elems.size())
      throw Fallback("a vectorised operator whose result is not a tuple of the same arity");
    for (size_t k = 0; k < e.elems.size(); ++k) {
      if (!scalar(k)) {
        e.elems[k] = element(e.elems[k], "arrays");
      } else if (!e.elems[k].is_scalar()) {
        throw Fallback("a vectorised operator whose scalar component's result is not a scalar");
      }
    }
  } else {
    e = element(lw.apply(lw.from_value(opv), {vec(a), vec(b)}, call.loc), "an array");
  }
  if (lw.leaf_types(e) != types) throw Fallback("the operator's result type differs from its arguments'");
  lw.b().ret(lw.leaves(e));
  if (!lw.reads().empty()) throw PerElementOperands("the operator reads arrays");
  if (std::string err = kir::verify(f); !err.empty())
    throw NotColumnwise("a vectorised operator that is not elementwise");
  // A scalar component computed from the arrays would differ between the
  // columns; it has one value.
  if (tuple_of_arrays && scalar_parts) {
    std::set<Reg> array_params;
    for (size_t k = 0; k < like.elems.size(); ++k)
      if (!(*scalar_parts)[k]) {
        array_params.insert(acc[k]);
        array_params.insert(x[k]);
      }
    for (size_t k = 0; k < like.elems.size(); ++k)
      if ((*scalar_parts)[k] && depends_on(f, f.body.results[k], array_params))
        throw Fallback("a vectorised operator whose scalar component depends on its arrays");
  }
  return f;
}

// reduce (map2 f) (replicate m ne) xss: column-wise, one segment per
// column; scan likewise, its [m][n] result handed back transposed (a
// delayed transpose: a consumer reads it in place).
Value Planner::reduce_vectorised(bool scan) {
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
  uniform_neutral(ne, like, neutral);
  Builder pb;
  plan::Step st = new_step(scan ? plan::StepKind::SegScan : plan::StepKind::SegRed, call.loc, m, n);
  Lowerer lw(st.element);
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

Value Planner::reduce_vectorised_tuple(bool scan) {
  const Value& opv = call.args.at(0);
  const Value& ne = call.args.at(1);
  const ArrayValue& xs = call.args.at(2).arr();
  const size_t parts = ne.elems ? ne.elems->size() : 0;
  int64_t m = -1;
  std::vector<bool> scalar_parts;
  for (size_t k = 0; k < parts; ++k) {
    const Value& c = (*ne.elems)[k];
    if (c.kind == Value::Kind::Scalar) {
      scalar_parts.push_back(true);
      continue;
    }
    if (c.kind != Value::Kind::Array || c.arr().rank() != 1 || c.arr().elem.kind != ElemShape::Kind::Prim)
      throw Fallback("a neutral element that is a tuple of other than arrays of scalars and scalars");
    if (m >= 0 && c.arr().outer() != m)
      throw Fallback("a vectorised neutral element whose components differ in length");
    m = c.arr().outer();
    scalar_parts.push_back(false);
  }
  const int64_t n = xs.outer();
  if (parts == 0 || m <= 0) throw Fallback("an empty vectorised neutral element");
  const bool record = ne.kind == Value::Kind::Record;
  if (xs.elem.kind != (record ? ElemShape::Kind::Record : ElemShape::Kind::Tuple) || xs.components.size() != parts)
    throw Fallback("elements and neutral element differ in structure");
  for (size_t k = 0; k < parts; ++k) {
    const ArrayPtr& c = xs.components[k];
    const std::vector<int64_t> shape = scalar_parts[k] ? std::vector<int64_t>{n} : std::vector<int64_t>{n, m};
    if (c->shape != shape || c->elem.kind != ElemShape::Kind::Prim)
      throw Fallback("elements whose arrays differ in length from the neutral element's");
  }
  // Each array component's neutral element must be the same in every column.
  Sym like;
  like.kind = record ? Sym::Kind::Record : Sym::Kind::Tuple;
  like.names = ne.names;
  std::vector<Scalar> neutral;
  for (size_t k = 0; k < parts; ++k) {
    const Value& c = (*ne.elems)[k];
    if (scalar_parts[k]) {
      like.elems.push_back(shape_of_value(c));
      neutral.push_back(c.scalar);
      continue;
    }
    Sym component;
    std::vector<Scalar> column;
    uniform_neutral(c, component, column);
    like.elems.push_back(component);
    neutral.insert(neutral.end(), column.begin(), column.end());
  }
  // The operator first: what it cannot take falls back before any work.
  kir::Function op = elementwise_operator(opv, like, m, true, &scalar_parts);
  Builder pb;
  plan::Step st = new_step(scan ? plan::StepKind::SegScan : plan::StepKind::SegRed, call.loc, m, n);
  Lowerer lw(st.element);
  kir::Builder& b = lw.b();
  Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
  std::vector<Reg> leaves;
  for (size_t k = 0; k < parts; ++k) {
    Sym row = lw.index(lw.array_of(Value::make_array(xs.components[k])), j, call.loc, false);
    Sym x = scalar_parts[k] ? row : lw.index(row, s, call.loc, false);
    if (!x.is_scalar() || x.prim != like.elems[k].prim) throw Fallback("elements and neutral element differ in type");
    leaves.push_back(x.reg);
  }
  b.ret(leaves);
  finish_function(st.element, "element");
  st.neutral = neutral;
  st.op = std::move(op);
  st.commutative = call.kind == SoacKind::ReduceComm;
  st.reads = pb.reads(lw);
  st.fused = join(lw.fused);
  std::vector<BufferPtr> outs;
  for (size_t k = 0; k < parts; ++k)
    outs.push_back(pb.output(like.elems[k].prim, scan ? m * n : m, fmt::format("out{}", k), st.writes));
  pb.plan.source = fmt::format("{} (vectorised operator over a tuple of arrays) at {}", exec::soac_name(call.kind),
                               call.loc.str());
  pb.plan.loc = call.loc;
  pb.plan.notes.push_back(
      fmt::format("vectorised operator: one segment per column, {} components of [{}][{}] read transposed{}", parts, m,
                  n, std::count(scalar_parts.begin(), scalar_parts.end(), true) ? ", scalars repeated in every column" : ""));
  pb.plan.steps.push_back(std::move(st));
  pb.plan.results = pb.plan.steps[0].writes;
  run(pb);
  // A scalar component: column 0's (every column computed the same).
  std::vector<Value> result;
  for (size_t k = 0; k < parts; ++k) {
    if (!scan) {
      ArrayPtr a = make_prim_array(outs[k], {m});
      result.push_back(scalar_parts[k] ? array_row(*a, 0) : Value::make_array(a));
    } else if (scalar_parts[k]) {
      result.push_back(array_row(*make_prim_array(outs[k], {m, n}), 0));
    } else {
      std::string listing = out.listing;
      result.push_back(transpose_of(Value::make_array(make_prim_array(outs[k], {m, n}))));
      out.listing = listing + out.listing;
    }
  }
  if (scan) {
    // An array of tuples: the components side by side, [n] and [n][m].
    auto a = std::make_shared<ArrayValue>();
    a->shape = {n};
    a->elem.kind = record ? ElemShape::Kind::Record : ElemShape::Kind::Tuple;
    if (record) a->elem.names = *ne.names;
    for (Value& v : result) {
      if (v.kind != Value::Kind::Array) throw Internal();
      a->elem.children.push_back(v.arr().elem);
      a->components.push_back(v.array);
    }
    return Value::make_array(std::move(a));
  }
  if (!record) return Value::tuple(std::move(result));
  std::vector<std::pair<std::string, Value>> fields;
  for (size_t k = 0; k < parts; ++k) fields.emplace_back((*ne.names)[k], std::move(result[k]));
  return Value::record(std::move(fields));
}

// Rows in chunks: a few chunks per thread, at least 8 rows in each.
struct Chunking {
  int64_t chunk, segments;
};
static Chunking chunking(int64_t n) {
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(64, n / 8));
  const int64_t chunk = (n + chunks - 1) / chunks;
  return {chunk, (n + chunk - 1) / chunk};
}

// The element of a SegMap over chunks of `chunk` of n rows, each with its
// accumulator in private storage: its chunk s, first row and row count
// (min(chunk, n - s*chunk)).
struct ChunkElement {
  Reg s, first, count;
};
static ChunkElement chunk_element(Lowerer& lw, int64_t speculative_bound, int64_t n, int64_t chunk) {
  lw.speculative_bound = speculative_bound;
  lw.max_private_bytes = kir::kMaxSegMapPrivateBytes;
  lw.choice_private_bytes = kir::kMaxSegMapPrivateBytes;
  kir::Builder& b = lw.b();
  ChunkElement c;
  c.s = b.param(Prim::I64);
  b.param(Prim::I64);
  c.first = b.binary(kir::BinOp::Mul, c.s, b.i64(chunk));
  c.count = b.binary(kir::BinOp::Min, b.i64(chunk), b.binary(kir::BinOp::Sub, b.i64(n), c.first));
  return c;
}

Value Planner::fold_row_chunks(const Value& xsv, int64_t segments, int64_t chunk) {
  const Value& opv = call.args.at(0);
  const Value& ne = call.args.at(1);
  const int64_t n = xsv.arr().outer();
  plan::Step st = new_step(plan::StepKind::SegMap, call.loc, segments, 1);
  Lowerer lw(st.element);
  const auto [s, first, count] = chunk_element(lw, speculative_bound, n, chunk);
  kir::Builder& b = lw.b();
  // This segment's rows: a view of length count.
  Sym xs = lw.array_of(xsv);
  auto rows = std::make_shared<SymArr>();
  rows->dims = {chunk};
  for (size_t d = 1; d < xsv.arr().shape.size(); ++d) rows->dims.push_back(xsv.arr().shape[d]);
  rows->len = count;
  Lowerer* l = &lw;
  const Loc loc = call.loc;
  rows->gen = [l, xs, first, loc](Reg i) {
    return l->index(xs, l->b().binary(kir::BinOp::Add, first, i), loc, false);
  };
  Sym chunk_rows;
  chunk_rows.kind = Sym::Kind::Array;
  chunk_rows.arr = rows;
  Sym acc = lw.sequential_reduce(lw.from_value(opv), lw.from_value(ne), chunk_rows, call.loc);
  std::string what = "a tuple of arrays";
  if (ne.kind == Value::Kind::Array) {
    const std::vector<int64_t>& dims = ne.arr().shape;
    what = "";
    for (int64_t d : dims) what += fmt::format("[{}]", d);
    what += " rows";
    if (acc.kind != Sym::Kind::Array || Lowerer::dynamic(acc) || acc.arr->dims != dims)
      throw Fallback("an operator on rows whose result is not a row of the same shape");
    if (ne.arr().elem.kind != ElemShape::Kind::Prim ||
        lw.leaf_types(lw.element_like(acc, call.loc)) != std::vector<Prim>{ne.arr().elem.prim})
      throw Fallback("an operator on rows of another element type");
  }
  Sym skeleton;
  std::vector<RowPart> parts = write_row(lw, row_layout(lw, acc, skeleton, call.loc), s, segments);
  b.ret({});
  finish_function(st.element, "fold of row chunks");
  st.fused = join(lw.fused);
  return run_rows(std::move(st), lw.reads(), std::move(parts), skeleton, segments, "",
                  fmt::format("{} (operator on rows) at {}", exec::soac_name(call.kind), call.loc.str()),
                  fmt::format("an operator on {}, not column by column: {} chunk{} of up to {} rows folded, "
                              "one element each",
                              what, segments, segments == 1 ? "" : "s", chunk));
}

Value Planner::reduce_rows_chunked() {
  const Value& xsv = call.args.at(2);
  const auto [chunk, segments] = chunking(xsv.arr().outer());
  Value partial = fold_row_chunks(xsv, segments, chunk);
  if (segments == 1) return array_row(partial.arr(), 0);
  std::string listing = out.listing;
  Value whole = fold_row_chunks(partial, 1, segments);
  out.listing = listing + out.listing;
  return array_row(whole.arr(), 0);
}

Value Planner::scan_row_chunks(const Value& xsv, int64_t segments, int64_t chunk, const Value* carries,
                               bool exclusive) {
  const Value& opv = call.args.at(0);
  const Value& ne = call.args.at(1);
  const int64_t n = xsv.arr().outer();
  const std::vector<int64_t>& dims = ne.arr().shape;
  const Prim prim = ne.arr().elem.prim;
  plan::Step st = new_step(plan::StepKind::SegMap, call.loc, segments, 1);
  Lowerer lw(st.element);
  const auto [s, first, count] = chunk_element(lw, speculative_bound, n, chunk);
  kir::Builder& b = lw.b();
  Sym xs = lw.array_of(xsv);
  Sym init = carries ? lw.index(lw.array_of(*carries), s, call.loc, false) : lw.from_value(ne);
  Lowerer::LoopState state = lw.loop_state(init, call.loc);
  // Row first+i of the [n] result from the accumulator acc (the loop's
  // body is lowered once: one write).
  std::vector<RowPart> parts;
  auto write = [&](const Sym& acc, Reg i) {
    if (acc.kind != Sym::Kind::Array || Lowerer::dynamic(acc) || acc.arr->dims != dims)
      throw Fallback("an operator on rows whose result is not a row of the same shape");
    if (lw.leaf_types(lw.element_like(acc, call.loc)) != std::vector<Prim>{prim})
      throw Fallback("an operator on rows of another element type");
    parts = write_row(lw, acc, b.binary(kir::BinOp::Add, first, i), n);
  };
  b.for_(count, state.init_regs, [&](Reg i, const std::vector<Reg>& carried) {
    Sym acc = lw.state_value(state, carried);
    if (exclusive) write(acc, i);
    Sym x = lw.index(xs, b.binary(kir::BinOp::Add, first, i), call.loc, false);
    std::vector<Reg> regs = lw.next_state(state, lw.apply(lw.from_value(opv), {acc, x}, call.loc), call.loc);
    if (!exclusive) write(lw.state_value(state, regs), i);
    return regs;
  });
  b.ret({});
  finish_function(st.element, "scan of row chunks");
  st.fused = join(lw.fused);
  const BufferPtr out = parts.at(0).outs.at(0);  // [n] rows, each row's scalars row-major
  std::string shape;
  for (int64_t d : dims) shape += fmt::format("[{}]", d);
  run_rows(std::move(st), lw.reads(), std::move(parts), Sym(), segments, "",
           fmt::format("scan (operator on rows) at {}", call.loc.str()),
           fmt::format("an operator on {} rows, not column by column: {} chunk{} of up to {} rows scanned{}, one "
                       "element each",
                       shape, segments, segments == 1 ? "" : "s", chunk,
                       exclusive ? " exclusively" : carries ? " from their chunks' prefixes" : ""));
  std::vector<int64_t> result_shape{n};
  result_shape.insert(result_shape.end(), dims.begin(), dims.end());
  return Value::make_array(make_prim_array(out, result_shape, 0));
}

Value Planner::scan_rows_chunked() {
  const Value& ne = call.args.at(1);
  const Value& xsv = call.args.at(2);
  const ArrayValue& xs = xsv.arr();
  if (ne.arr().elem.kind != ElemShape::Kind::Prim || xs.elem.kind != ElemShape::Kind::Prim ||
      std::vector<int64_t>(xs.shape.begin() + 1, xs.shape.end()) != ne.arr().shape)
    throw Fallback("a scan of rows of other than scalars whose operator is not column by column");
  const int64_t n = xs.outer();
  const auto [chunk, segments] = chunking(n);
  if (segments == 1) return scan_row_chunks(xsv, 1, n, nullptr, false);
  std::string listing = out.listing;
  Value totals = fold_row_chunks(xsv, segments, chunk);
  listing += out.listing;
  Value carries = scan_row_chunks(totals, 1, segments, nullptr, true);
  listing += out.listing;
  Value result = scan_row_chunks(xsv, segments, chunk, &carries, false);
  out.listing = listing + out.listing;
  return result;
}

// ---- reduce / reduce_comm / scan
Value Planner::reduce_or_scan(bool scan) {
  const Value& opv = call.args.at(0);
  const Value& ne = call.args.at(1);
  const Value& xsv = call.args.at(2);
  if (xsv.kind != Value::Kind::Array) throw Fallback("not an array");
  int64_t n = xsv.arr().outer();
  if (n == 0) throw Fallback("empty input");
  if (ne.kind == Value::Kind::Array) {
    // Not column by column (an operator that reads other columns, a
    // neutral element that differs between them: an identity matrix), or
    // rows of more dimensions: whole rows folded or scanned instead.
    try {
      return reduce_vectorised(scan);
    } catch (const Fallback&) {
    }
    return scan ? scan_rows_chunked() : reduce_rows_chunked();
  }
  if ((ne.kind == Value::Kind::Tuple || ne.kind == Value::Kind::Record) && ne.elems &&
      std::any_of(ne.elems->begin(), ne.elems->end(), [](const Value& c) { return c.kind == Value::Kind::Array; }))
  {
    // Tuples of arrays whose operator is not column by column, or whose
    // arrays differ in rank: a reduction folds whole tuples instead.
    try {
      return reduce_vectorised_tuple(scan);
    } catch (const Fallback&) {
      if (scan) throw;
    }
    return reduce_rows_chunked();
  }
  // Sums in the elements: laid out as every constructor of their type.
  const bool sums = value_holds(ne, Value::Kind::Sum);
  Sym like;
  std::vector<Scalar> neutral;
  if (sums) {
    sum_layout(ne, scan, like, neutral);
  } else {
    like = shape_of_value(ne);
    neutral = value_scalars(ne);
  }
  std::vector<BufferPtr> in_leaves;
  std::optional<std::string> key = plan_cache_enabled() ? reduce_key(opv, ne, xsv, in_leaves) : std::nullopt;
  if (key)
    if (CachedPlanPtr c = plan_cache().find(*key)) return reduce_result(like, scan, n, run_cached(*c, in_leaves));
  Builder pb;
  plan::Step st = new_step(scan ? plan::StepKind::SegScan : plan::StepKind::SegRed, call.loc, 1, n);
  Lowerer lw(st.element);
  kir::Builder& b = lw.b();
  b.param(Prim::I64);
  Reg j = b.param(Prim::I64);
  Sym x = lw.index(lw.array_of(xsv), j, call.loc, false);
  if (sums) x = lw.conform_sums(x, like);
  std::vector<Prim> types;
  leaf_prims(like, types);
  if (lw.leaf_types(x) != types) throw Fallback("elements and neutral element differ in type (vectorised operator?)");
  b.ret(lw.leaves(x));
  st.op = lower_operator([&](Lowerer& ol) { return ol.from_value(opv); }, like, call.loc, &lw);
  finish_function(st.element, "element");
  st.neutral = neutral;
  st.commutative = call.kind == SoacKind::ReduceComm;
  st.reads = pb.reads(lw);
  st.fused = join(lw.fused);
  std::vector<BufferPtr> outs;
  for (size_t k = 0; k < types.size(); ++k)
    outs.push_back(pb.output(types[k], scan ? n : 1, fmt::format("out{}", k), st.writes));
  pb.plan.source = fmt::format("{} at {}", exec::soac_name(call.kind), call.loc.str());
  pb.plan.loc = call.loc;
  if (!st.fused.empty()) pb.plan.notes.push_back("fused into the " + std::string(scan ? "scan" : "reduction") + ": " + st.fused);
  if (sums) pb.plan.notes.push_back(fmt::format("sums as a tag and every constructor's payload: {} values", types.size()));
  pb.plan.steps.push_back(std::move(st));
  pb.plan.results = pb.plan.steps[0].writes;
  run(pb);
  if (key) {
    cache_plan(*key, pb, in_leaves);
    if (want_listing) out.listing += plan_cache_summary() + " (this call: planned)\n";
  }
  return reduce_result(like, scan, n, outs);
}

// The plan-time constants of s's leaves, in order; nullopt if one is not
// known.
static std::optional<std::vector<Scalar>> known_leaves(const Sym& s) {
  std::vector<Scalar> out;
  std::function<bool(const Sym&)> go = [&](const Sym& x) {
    if (x.kind == Sym::Kind::Scalar) {
      if (!x.known) return false;
      out.push_back(*x.known);
      return true;
    }
    if (x.kind != Sym::Kind::Tuple && x.kind != Sym::Kind::Record && x.kind != Sym::Kind::Sum) return false;
    for (const Sym& e : x.elems)
      if (!go(e)) return false;
    return true;
  };
  if (!go(s)) return std::nullopt;
  return out;
}

// The layout of a reduce/scan whose elements hold sums (`reduce either
// #none xs` over `opt i32`): every value as the call's result type's sum,
// a tag and every constructor's payload, so that the neutral element, the
// elements and the operator's results, each holding its own constructors,
// combine leaf by leaf. `neutral` gets ne's leaves in that layout.
void Planner::sum_layout(const Value& ne, bool scan, Sym& like, std::vector<Scalar>& neutral) {
  like = result_layout(scan, "a neutral element holding sums");
  kir::Function scratch;
  Lowerer sl(scratch);
  std::optional<std::vector<Scalar>> k = known_leaves(sl.conform_sums(sl.from_value(ne), like));
  if (!k) throw Fallback("a neutral element holding sums whose leaves are not constants");
  neutral = std::move(*k);
}

Sym Planner::result_layout(bool element, const char* what) {
  TypePtr rt = call.result_type ? call.result_type() : nullptr;
  if (element) rt = rt && rt->kind == Type::Kind::Array && rt->dims.size() == 1 ? rt->elem : nullptr;
  if (!rt) throw Fallback(fmt::format("{} of a type not known when the nest starts", what));
  kir::Function scratch;
  Lowerer sl(scratch);
  return shape_like(sl.zero_of(*rt, call.loc));
}

Value Planner::reduce_result(const Sym& like, bool scan, int64_t n, const std::vector<BufferPtr>& outs) {
  if (scan) return array_from_leaves(like, outs, {n});
  if (has_sum(like)) return array_row(array_from_leaves(like, outs, {1}).arr(), 0);  // boxed
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
std::optional<std::string> Planner::reduce_key(const Value& opv, const Value& ne, const Value& xsv,
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
std::vector<BufferPtr> Planner::run_cached(const CachedPlan& c, const std::vector<BufferPtr>& leaves) {
  std::vector<BufferPtr> bufs(c.plan.buffers.size());
  for (size_t b = 0; b < bufs.size(); ++b) {
    const plan::BufferDesc& d = c.plan.buffers[b];
    bufs[b] = c.input_leaf[b] >= 0 ? leaves.at(size_t(c.input_leaf[b]))
                                   : std::make_shared<Buffer>(d.elem, d.count, Buffer::NoInit{});
  }
  std::vector<BufferPtr> outs;
  for (int r : c.plan.results) outs.push_back(bufs.at(size_t(r)));
  if (want_listing) out.listing = plan::to_string(c.plan) + plan_cache_summary() + " (this call: cached plan)\n";
  execute(c.plan, bufs);
  return outs;
}

// Caches pb's plan under `key` if every buffer it reads is one of the
// input's leaves (rebound on a hit) and every other is written.
void Planner::cache_plan(const std::string& key, const Builder& pb, const std::vector<BufferPtr>& leaves) {
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

}  // namespace thorn::flatten::planning
