// The planner's reduce_by_index and scatter: destinations taken over in
// place, vectorised operators, multi-dimensional indices linearised.
#include "interp/flatten/planner_impl.hpp"

namespace thorn::flatten::planning {

// The leaves of an array of scalars or (nested) tuples and records of
// them, in order, and the element's shape; a Fallback for arrays in the
// elements or sums.
static void destination_leaves(const ArrayValue& a, int rank, Sym& like, std::vector<const ArrayValue*>& parts) {
  if (a.elem.kind == ElemShape::Kind::Prim) {
    if (a.rank() != rank) throw Fallback("a destination whose elements hold arrays");
    parts.push_back(&a);
    like = Sym::scalar(kir::kNoReg, a.elem.prim);
    return;
  }
  if (a.elem.kind != ElemShape::Kind::Tuple && a.elem.kind != ElemShape::Kind::Record)
    throw Fallback("destination of sum types");
  like.kind = a.elem.kind == ElemShape::Kind::Tuple ? Sym::Kind::Tuple : Sym::Kind::Record;
  if (a.elem.kind == ElemShape::Kind::Record) like.names = std::make_shared<std::vector<std::string>>(a.elem.names);
  for (const ArrayPtr& c : a.components) {
    Sym part;
    destination_leaves(*c, rank, part, parts);
    like.elems.push_back(std::move(part));
  }
}

// The destination of reduce_by_index / scatter, owned: its leaf buffers
// whole (offset 0, exact size) and referenced by nothing else.
Value Planner::own_destination(std::vector<BufferPtr>& leaves, Sym& like, int max_rank) {
  Value dest = call.args.at(0);
  if (dest.kind != Value::Kind::Array || dest.arr().rank() > max_rank)
    throw Fallback("a destination of more dimensions than the indices have");
  const ArrayValue& a = dest.arr();
  std::vector<const ArrayValue*> parts;
  destination_leaves(a, a.rank(), like, parts);
  bool whole = true;
  for (const ArrayValue* p : parts) whole &= p->offset == 0 && p->buffer->count() == a.count();
  // The call's argument and `dest` hold the array; the evaluator gave it up.
  call.args[0] = Value();
  if (!(whole && dest.array.use_count() == 1 && eval::storage_unique(dest.arr())))
    dest = Value::make_array(copy_array(dest.arr()));
  Sym owned_like;
  std::vector<const ArrayValue*> owned;
  destination_leaves(dest.arr(), dest.arr().rank(), owned_like, owned);
  for (const ArrayValue* p : owned) leaves.push_back(p->buffer);
  return dest;
}

// The scalar neutral element of a vectorised one (an array whose
// elements must all be equal).
void Planner::uniform_neutral(const Value& ne, Sym& like, std::vector<Scalar>& neutral) {
  const ArrayValue& a = ne.arr();
  if (a.rank() != 1 || a.outer() == 0) throw Fallback("a vectorised neutral element of other than one dimension");
  Value first = array_row(a, 0);
  like = shape_of_value(first);
  neutral = value_scalars(first);
  for (int64_t c = 1; c < a.outer(); ++c)
    if (value_scalars(array_row(a, c)) != neutral)
      throw NotColumnwise("a vectorised neutral element that differs between columns");
}

// The operator of d columns' histograms at once: the scalar operator
// once per column, on each column's L values.
kir::Function Planner::column_operator(const kir::Function& scalar_op, int64_t d, size_t L,
                                       const std::vector<Prim>& types) {
  kir::Function f;
  kir::Builder ob(f);
  f.name = "op";
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
  finish_function(f, "vectorised operator", false);
  return f;
}

// An operator on [d] rows of `like` as a function of the two rows' d * L
// scalars: each row rebuilt in private arrays, the operator applied, the
// result row read back.
kir::Function Planner::row_operator(const Value& opv, const Sym& like, int64_t d) {
  kir::Function f;
  f.name = "op";
  Lowerer lw(f);
  kir::Builder& b = lw.b();
  std::vector<Prim> types;
  leaf_prims(like, types);
  const size_t L = types.size();
  std::vector<Reg> params;
  for (int side = 0; side < 2; ++side)
    for (int64_t c = 0; c < d; ++c)
      for (Prim t : types) params.push_back(b.param(t));
  auto row = [&](int side) {
    auto a = std::make_shared<SymArr>();
    a->dims = {d};
    a->elem = elem_shape_of_sym(like);
    for (size_t l = 0; l < L; ++l) {
      int id = b.local_array(types[l], d, fmt::format("l{}", f.locals.size()));
      for (int64_t c = 0; c < d; ++c) b.local_write(id, b.i64(c), params[(size_t(side) * size_t(d) + size_t(c)) * L + l]);
      a->leaves.push_back({id, 0, types[l], true, 0});
      lw.bump_version(id);
    }
    return lw.with_current_versions(array_sym(a));
  };
  Sym r = lw.apply(lw.from_value(opv), {row(0), row(1)}, call.loc);
  if (r.kind != Sym::Kind::Array || Lowerer::dynamic(r) || r.arr->dims != std::vector<int64_t>{d})
    throw Fallback("an operator on rows whose result is not a row of the same length");
  std::vector<Reg> outs;
  for (int64_t c = 0; c < d; ++c) {
    Sym v = lw.index(r, b.i64(c), call.loc, false);
    if (lw.leaf_types(v) != types) throw Fallback("the operator's result type differs from its arguments'");
    for (Reg x : lw.leaves(v)) outs.push_back(x);
  }
  b.ret(outs);
  if (!lw.reads().empty()) throw PerElementOperands("the operator reads arrays");
  finish_function(f, "operator on rows", false);
  return f;
}

// hist (map2 f) (replicate d ne) k is vss (k-means): one histogram per
// column, all updated from one pass over the input; the element yields
// the bin and the d values of its row.
Value Planner::hist_vectorised() {
  const Value& opv = call.args.at(1);
  const Value& ne = call.args.at(2);
  const Value& isv = call.args.at(3);
  const Value& vsv = call.args.at(4);
  const ArrayValue& da = call.args.at(0).arr();
  // reduce_by_index_2d and _3d: the bins' indices linearised (-1 out of
  // bounds in any dimension, which the step ignores).
  const int index_dims = call.index_dims;
  if (da.rank() != index_dims + 1 || vsv.arr().rank() != 2) throw Fallback("vectorised histograms of other than rows");
  const std::vector<int64_t> bin_dims(da.shape.begin(), da.shape.begin() + index_dims);
  int64_t k = 1;
  for (int64_t b : bin_dims) k *= b;
  int64_t d = da.shape.back(), n = isv.arr().outer();
  if (ne.arr().outer() != d || vsv.arr().shape[1] != d) throw Fallback("rows of different lengths");
  if (d == 0 || k == 0) throw Fallback("empty histogram rows");
  // Column by column where the operator is elementwise (one scalar
  // histogram per column); otherwise the whole row is one bin's value, the
  // operator applied to rows rebuilt from its parameters.
  Sym like;
  std::vector<Scalar> ne1;
  std::optional<kir::Function> scalar_op;
  bool columnwise = true;
  try {
    uniform_neutral(ne, like, ne1);
    scalar_op = elementwise_operator(opv, like, d);
  } catch (const NotColumnwise&) {
    columnwise = false;
    like = shape_of_value(array_row(ne.arr(), 0));
  }
  std::vector<Prim> types;
  leaf_prims(like, types);
  size_t L = types.size();
  if (size_t(d) * L > 64) throw Fallback("vectorised histograms of more than 64 values per row");
  kir::Function op = columnwise ? column_operator(*scalar_op, d, L, types) : row_operator(opv, like, d);
  Builder pb;
  plan::Step st = new_step(plan::StepKind::SegHist, call.loc, 1, n);
  Lowerer lw(st.element);
  kir::Builder& b = lw.b();
  b.param(Prim::I64);
  Reg j = b.param(Prim::I64);
  Sym idx = lw.index(lw.array_of(isv), j, call.loc, false);
  if (index_dims > 1) idx = linear_index(lw, idx, bin_dims);
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
  st.op = std::move(op);
  if (columnwise) {
    for (int64_t c = 0; c < d; ++c) st.neutral.insert(st.neutral.end(), ne1.begin(), ne1.end());
  } else {
    for (int64_t c = 0; c < d; ++c)
      for (const Scalar& x : value_scalars(array_row(ne.arr(), c))) st.neutral.push_back(x);
  }
  st.commutative = true;
  st.bins = k;
  st.reads = pb.reads(lw);
  st.fused = join(lw.fused);
  // Columns of the destination as separate histograms, and back.
  std::vector<BufferPtr> leaves;
  Sym dlike;
  Value dest = own_destination(leaves, dlike, index_dims + 1);
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
  pb.plan.notes.push_back(columnwise ? fmt::format("vectorised operator: {} histograms of {} bins, one per column", d, k)
                                     : fmt::format("an operator on [{}] rows that is not elementwise: one histogram of "
                                                   "{} bins, each bin's row {} values",
                                                   d, k, size_t(d) * L));
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
Sym Planner::linear_index(Lowerer& lw, const Sym& idx, const std::vector<int64_t>& dims) {
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

// Position t of [m] elements of `inner` scalars each: element j = t /
// inner, scalar c = t % inner of it.
static void split_position(Lowerer& lw, Reg t, int64_t inner, Reg& j, Reg& c, const Loc& loc) {
  j = c = t;
  if (inner == 1) return;
  Sym ts = Sym::scalar(t, Prim::I64), w = lw.constant(Scalar::i64(inner));
  j = lw.binop("/", ts, w, loc).reg;
  c = lw.binop("%", ts, w, loc).reg;
}

// The position scatter writes for index idx and part c of an element of
// `inner` scalars, in a destination of k elements; -1 when idx is out of
// bounds (the step skips it, as scatter does).
static Reg scatter_position(Lowerer& lw, const Sym& idx, Reg c, int64_t k, int64_t inner, const Loc& loc) {
  Sym i = lw.convert(idx, Prim::I64);
  if (inner == 1) return i.reg;
  auto i64 = [&](int64_t v) { return lw.constant(Scalar::i64(v)); };
  Sym ok = lw.binop("&&", lw.binop(">=", i, i64(0), loc), lw.binop("<", i, i64(k), loc), loc);
  Sym at = lw.binop("+", lw.binop("*", i, i64(inner), loc), Sym::scalar(c, Prim::I64), loc);
  return lw.select_or_if(ok, [&] { return at; }, [&] { return i64(-1); }).reg;
}

// scatter into an array of tuples with array components (`scatter d is
// (zip ks rows)`): one scatter per component, with the same indices. The
// destination's components are taken over in place when it was unique.
Value Planner::scatter_components() {
  Value destv = std::move(call.args.at(0));
  call.args[0] = Value();
  const Value vsv = call.args.at(2);
  const ArrayValue& da = destv.arr();
  const ArrayValue& va = vsv.arr();
  if (va.elem.kind != da.elem.kind || va.components.size() != da.components.size())
    throw Fallback("destination and values differ in structure");
  ArrayValue shell = da;  // shape and element structure; components replaced
  std::vector<ArrayPtr> comps = da.components;
  shell.components.clear();
  destv = Value();  // comps now hold the only references, if the destination was unique
  std::string listing;
  for (size_t k = 0; k < comps.size(); ++k) {
    call.args[0] = Value::make_array(std::move(comps[k]));
    call.args[2] = Value::make_array(va.components[k]);
    try {
      Value r = hist_or_scatter(false);
      listing += out.listing;
      shell.components.push_back(r.array);
    } catch (const Fallback&) {
      // A component's scatter falls back before it takes its destination:
      // the reference gets the whole destination back, the components
      // scattered so far included (scattering them again changes nothing).
      shell.components.push_back(call.args[0].array);
      for (size_t j = k + 1; j < comps.size(); ++j) shell.components.push_back(comps[j]);
      call.args[0] = Value::make_array(std::make_shared<ArrayValue>(std::move(shell)));
      call.args[2] = vsv;
      throw;
    }
  }
  call.args[2] = vsv;
  out.listing = listing;
  return Value::make_array(std::make_shared<ArrayValue>(std::move(shell)));
}

// An array of sums as columns in the layout `like` (every constructor of
// the type): tag and payload leaves, an array of tuples of scalars.
Value Planner::sum_columns_of(const Value& arr, const Sym& like) {
  auto p = std::make_shared<Producer>();
  p->elem.name = "columns";
  Lowerer lw(p->elem);
  kir::Builder& b = lw.b();
  Reg flat = b.param(Prim::I64);
  Sym x = lw.conform_sums(lw.index(lw.array_of(arr), flat, call.loc, false), like);
  b.ret(lw.leaves(x));
  finish_function(p->elem, "sum columns");
  p->reads = lw.reads();
  p->shape = {arr.arr().outer()};
  leaf_prims(like, p->leaves);
  p->elem_shape = elem_shape_of(leaves_like(p->leaves));
  p->what = "sum columns";
  p->loc = call.loc;
  Value v = make_delayed_array(p);
  materialise_leaves(v.arr());
  return v;
}

// scatter into an array of sums (`scatter (replicate k #not_found) is
// (map (\i -> #result i) is)`): destination and values as columns in the
// layout of every constructor of the type, scattered as tuples of
// scalars, then boxed again.
Value Planner::scatter_sums() {
  const Sym like = result_layout(true, "a destination of sum types");
  const Value dest = call.args.at(0), vals = call.args.at(2);
  const int64_t k = dest.arr().outer();
  std::string listing;
  call.args[0] = sum_columns_of(dest, like);
  listing += out.listing;
  try {
    call.args[2] = sum_columns_of(vals, like);
    listing += out.listing;
    Value r = hist_or_scatter(false);
    listing += out.listing;
    call.args[2] = vals;
    out.listing = listing;
    return array_from_columns(like, r.arr(), {k});
  } catch (const Fallback&) {
    call.args[0] = dest;  // the reference scatters the original
    call.args[2] = vals;
    throw;
  }
}

Value Planner::nothing_written() {
  if (call.args.at(0).kind != Value::Kind::Array) throw Fallback("a destination that is not an array");
  if (want_listing) out.listing = fmt::format("{} at {}: nothing to write\n", exec::soac_name(call.kind), call.loc.str());
  return call.args[0];
}

Value Planner::hist_or_scatter(bool hist) {
  const int d = call.index_dims;
  if (!hist && d == 1 && call.args.at(0).kind == Value::Kind::Array &&
      call.args.at(0).arr().elem.kind == ElemShape::Kind::Boxed)
    return scatter_sums();
  if (hist && call.args.at(2).kind == Value::Kind::Array) return hist_vectorised();
  if (!hist && d == 1 && call.args.at(0).kind == Value::Kind::Array && call.args.at(2).kind == Value::Kind::Array) {
    const ArrayValue& a = call.args.at(0).arr();
    if ((a.elem.kind == ElemShape::Kind::Tuple || a.elem.kind == ElemShape::Kind::Record) &&
        std::any_of(a.components.begin(), a.components.end(), [&](const ArrayPtr& c) { return c->rank() > a.rank(); }))
      return scatter_components();
  }
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
  // Nothing to write (no indices, or rows of no elements): the destination
  // as it is.
  if (n == 0) return nothing_written();
  // A scatter of arrays (rows into a [k][w] destination): one write per
  // scalar of each element, the iteration space [n*w].
  std::vector<int64_t> inner_dims;
  if (!hist && d == 1 && dest_dims.size() > 1) inner_dims.assign(dest_dims.begin() + 1, dest_dims.end());
  int64_t inner = 1;
  for (int64_t x : inner_dims) inner *= x;
  if (inner == 0) return nothing_written();
  Builder pb;
  plan::Step st = new_step(hist ? plan::StepKind::SegHist : plan::StepKind::Scatter, call.loc, 1, n * inner);
  Lowerer lw(st.element);
  kir::Builder& b = lw.b();
  b.param(Prim::I64);
  Reg t = b.param(Prim::I64), j, c;
  split_position(lw, t, inner, j, c, call.loc);
  Sym idx = lw.index(lw.array_of(isv), j, call.loc, false);
  Sym v = index_row_major(lw, lw.index(lw.array_of(vsv), j, call.loc, false), c, inner, inner_dims, call.loc);
  if (d > 1) idx = linear_index(lw, idx, dest_dims);
  if (!idx.is_scalar() || !is_integral(idx.prim)) throw Fallback("indices that are not integers");
  std::vector<Reg> res{inner == 1 ? lw.convert(idx, Prim::I64).reg
                                  : scatter_position(lw, idx, c, dest_dims[0], inner, call.loc)};
  for (Reg r : lw.leaves(v)) res.push_back(r);
  b.ret(res);
  // Everything that can fall back has been checked before the destination is taken.
  Sym like;
  std::vector<Prim> types;
  if (hist) {
    const Value& opv = call.args.at(1);
    const Value& ne = call.args.at(2);
    like = shape_of_value(ne);
    leaf_prims(like, types);
    if (lw.leaf_types(v) != types) throw Fallback("values and neutral element differ in type");
    st.op = lower_operator([&](Lowerer& ol) { return ol.from_value(opv); }, like, call.loc, &lw);
    st.neutral = value_scalars(ne);
    st.commutative = true;
  }
  finish_function(st.element, "element");
  st.reads = pb.reads(lw);
  st.fused = join(lw.fused);
  std::vector<BufferPtr> leaves;
  Sym dlike;
  {
    // Type agreement of the destination, before it is taken from the call.
    const ArrayValue& a = call.args.at(0).arr();
    Sym dl;
    std::vector<const ArrayValue*> parts;
    destination_leaves(a, a.rank(), dl, parts);
    std::vector<Prim> dtypes;
    for (const ArrayValue* p : parts) dtypes.push_back(p->elem.prim);
    if (dtypes != lw.leaf_types(v)) throw Fallback("destination and values differ in type");
  }
  Value dest = own_destination(leaves, dlike, inner_dims.empty() ? d : int(dest_dims.size()));
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

// The plan-time constants of a Sym (scalars or tuples of them); false
// when any part is known only at run time.
static bool known_scalars(const Sym& v, std::vector<Scalar>& out) {
  if (v.kind == Sym::Kind::Scalar) {
    if (!v.known) return false;
    out.push_back(*v.known);
    return true;
  }
  if (v.kind != Sym::Kind::Tuple && v.kind != Sym::Kind::Record) return false;
  for (const Sym& e : v.elems)
    if (!known_scalars(e, out)) return false;
  return true;
}

// map (\x -> hist op ne k (is x) (vs x)) xs (k-means' per-cluster counts,
// one histogram per image row): one batched SegHist step of n segments of
// m inputs into n histograms of k bins each, when every element's
// destination is the same constant (`replicate k c`, as `hist` makes it)
// and the inputs have one length at plan time. Otherwise each row's
// histogram is built sequentially in private memory (map_rows).
Value Planner::map_of_hist(const SymSoac& probe, int64_t n) {
  auto regular = [](const Sym& a) {
    return a.kind == Sym::Kind::Array && !Lowerer::dynamic(a) && a.arr->dims.size() == 1;
  };
  if (!regular(probe.arr) || !regular(probe.is) || !regular(probe.vs)) return map_rows(n);
  int64_t bins = probe.arr.arr->dims[0], m = probe.is.arr->dims[0];
  if (probe.vs.arr->dims[0] != m || bins == 0 || m == 0) return map_rows(n);

  Builder pb;
  plan::Step st = new_step(plan::StepKind::SegHist, call.loc, n, m);
  Lowerer lw(st.element);
  kir::Builder& b = lw.b();
  Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
  const SymSoac soac = tail_soac(lw, s);
  if (soac.kind != SoacKind::ReduceByIndex) throw Internal();
  // What every histogram starts from, and the neutral element: constants.
  std::vector<Scalar> fill, neutral;
  if (!known_scalars(lw.index(soac.arr, b.i64(0), soac.loc, false), fill) || !known_scalars(soac.ne, neutral))
    return map_rows(n);
  Sym idx = lw.index(soac.is, j, soac.loc, false);
  Sym v = lw.index(soac.vs, j, soac.loc, false);
  if (!idx.is_scalar() || !is_integral(idx.prim)) return map_rows(n);
  Sym like = shape_like(soac.ne);
  std::vector<Prim> types;
  leaf_prims(like, types);
  if (lw.leaf_types(v) != types || fill.size() != types.size()) return map_rows(n);
  std::vector<Reg> res{lw.convert(idx, Prim::I64).reg};
  for (Reg x : lw.leaves(v)) res.push_back(x);
  b.ret(res);
  finish_function(st.element, "batched histogram element");
  Sym op_sym = soac.op;
  st.op = lower_operator([&](Lowerer& ol) { return ol.import(op_sym); }, like, soac.loc);
  st.neutral = neutral;
  st.commutative = true;  // reduce_by_index's operator is associative and commutative
  st.bins = bins;
  st.reads = pb.reads(lw);
  st.fused = join(lw.fused);
  std::vector<BufferPtr> outs;
  for (size_t k = 0; k < types.size(); ++k) {
    auto buf = std::make_shared<Buffer>(types[k], n * bins, Buffer::NoInit{});
    std::byte* at = buf->host_mut();
    const int64_t width = prim_bytes(types[k]);
    for (int64_t e = 0; e < n * bins; ++e) store_scalar(at + e * width, fill[k]);
    outs.push_back(buf);
    st.writes.push_back(pb.add(buf, fmt::format("hist{}", k)));
  }
  pb.plan.source = fmt::format("map (hist) at {}", call.loc.str());
  pb.plan.loc = call.loc;
  pb.plan.notes.push_back(fmt::format("map-hist flattened to one batched SegHist: [{}] histograms of {} bins from [{}][{}] inputs",
                                      n, bins, n, m));
  pb.plan.steps.push_back(std::move(st));
  pb.plan.results = pb.plan.steps[0].writes;
  run(pb);
  return array_from_leaves(like, outs, {n, bins});
}

// map (\x -> scatter (dest x) (is x) (vs x)) xs: two steps over the nest,
// as Futhark's segmented scatter. A SegMap writes every row's
// destination into [n][k], then one Scatter step of n segments of m
// writes each row's values into its row (an index outside 0..k-1 is
// ignored row by row, as scatter ignores it). Rows of any length then need
// no private storage: diku-dk/sorts' radix_sort_step (`scatter (copy xs)
// is xs`) over a few rows of millions of elements ran on the reference.
// Neither step reads the destination buffers except to write them, so
// values computed from the destination's old contents see them unchanged.
// Elements that are arrays ([k][d] destinations) are written part by part:
// the iteration spaces are [n][k*d] and [n][m*d].
Value Planner::map_of_scatter(const SymSoac& probe, int64_t n) {
  auto regular = [](const Sym& a) { return a.kind == Sym::Kind::Array && !Lowerer::dynamic(a); };
  if (!regular(probe.arr) || !regular(probe.is) || !regular(probe.vs) || probe.is.arr->dims.size() != 1)
    return map_rows(n);
  const std::vector<int64_t>& dd = probe.arr.arr->dims;
  const std::vector<int64_t> inner_dims(dd.begin() + 1, dd.end());
  std::vector<int64_t> vdims{probe.is.arr->dims[0]};
  vdims.insert(vdims.end(), inner_dims.begin(), inner_dims.end());
  if (probe.vs.arr->dims != vdims) return map_rows(n);
  int64_t inner = 1;
  for (int64_t d : inner_dims) inner *= d;
  const int64_t k = dd[0], m = vdims[0];
  if (k == 0 || m == 0 || inner == 0) return map_rows(n);

  Builder pb;
  // Step 0: each row's destination.
  plan::Step dests = new_step(plan::StepKind::SegMap, call.loc, n, k * inner);
  Sym like;
  std::vector<Prim> types;
  std::vector<BufferPtr> outs;
  {
    Lowerer lw(dests.element);
    lw.speculative_bound = speculative_bound;
    kir::Builder& b = lw.b();
    Reg s = b.param(Prim::I64), t = b.param(Prim::I64);
    const SymSoac soac = tail_soac(lw, s);
    if (soac.kind != SoacKind::Scatter) throw Internal();
    Sym x = index_row_major(lw, soac.arr, t, k * inner, dd, soac.loc);
    if (has_array(x)) return map_rows(n);
    like = shape_like(x);
    types = lw.leaf_types(x);
    b.ret(lw.leaves(x));
    finish_function(dests.element, "destination element");
    dests.reads = pb.reads(lw);
    dests.fused = join(lw.fused);
    for (size_t r = 0; r < types.size(); ++r)
      outs.push_back(pb.output(types[r], n * k * inner, fmt::format("dest{}", r), dests.writes));
  }
  // Step 1: the writes, into the same buffers.
  plan::Step writes = new_step(plan::StepKind::Scatter, call.loc, n, m * inner);
  {
    Lowerer lw(writes.element);
    lw.speculative_bound = speculative_bound;
    kir::Builder& b = lw.b();
    Reg s = b.param(Prim::I64), t = b.param(Prim::I64);
    const SymSoac soac = tail_soac(lw, s);
    Reg j, c;
    split_position(lw, t, inner, j, c, soac.loc);
    Sym idx = lw.index(soac.is, j, soac.loc, false);
    Sym v = index_row_major(lw, lw.index(soac.vs, j, soac.loc, false), c, inner, inner_dims, soac.loc);
    if (!idx.is_scalar() || !is_integral(idx.prim)) return map_rows(n);
    if (lw.leaf_types(v) != types) return map_rows(n);
    std::vector<Reg> res{scatter_position(lw, idx, c, k, inner, soac.loc)};
    for (Reg r : lw.leaves(v)) res.push_back(r);
    b.ret(res);
    finish_function(writes.element, "scatter element");
    writes.reads = pb.reads(lw);
    writes.fused = join(lw.fused);
    writes.dest_size = k * inner;
    writes.writes = dests.writes;
  }
  pb.plan.source = fmt::format("map (scatter) at {}", call.loc.str());
  pb.plan.loc = call.loc;
  pb.plan.notes.push_back(fmt::format(
      "map-scatter flattened to a SegMap of the [{}] destinations of {} elements, then one Scatter of [{}][{}] values{}",
      n, k, n, m, inner == 1 ? "" : fmt::format(" ({} scalars each)", inner)));
  speculation_note(dests.element, pb.plan);
  speculation_note(writes.element, pb.plan);
  pb.plan.steps.push_back(std::move(dests));
  pb.plan.steps.push_back(std::move(writes));
  pb.plan.results = pb.plan.steps[0].writes;
  run(pb);
  std::vector<int64_t> shape{n};
  shape.insert(shape.end(), dd.begin(), dd.end());
  return array_from_leaves(like, outs, shape);
}

}  // namespace thorn::flatten::planning
