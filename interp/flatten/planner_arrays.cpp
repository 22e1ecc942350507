// The planner's array primitives as delayed producers: iota, replicate,
// transpose.
#include "interp/flatten/planner_impl.hpp"
#include "interp/flatten/sum_columns.hpp"

namespace thorn::flatten::planning {

// ---- array primitives as delayed producers
Value Planner::iota() {
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

Value Planner::replicate() {
  int64_t n = call.args.at(0).scalar.as_i64();
  const Value& x = call.args.at(1);
  if (n < 0) throw Fallback("negative size");
  if (n == 0) throw Fallback("empty replicate");
  return replicate_value(n, x);
}

Value Planner::replicate_value(int64_t n, const Value& x) {
  if (x.kind == Value::Kind::Array) return replicate_array(n, x);
  if (value_holds(x, Value::Kind::Array)) {
    // A tuple with array components (`replicate n (k, row)`): an array of
    // tuples is its components side by side, each replicated alone.
    auto a = std::make_shared<ArrayValue>();
    a->shape = {n};
    const bool record = x.kind == Value::Kind::Record;
    a->elem.kind = record ? ElemShape::Kind::Record : ElemShape::Kind::Tuple;
    if (record) a->elem.names = *x.names;
    std::string listing;
    for (const Value& c : *x.elems) {
      Value r = replicate_value(n, c);
      listing += out.listing;
      a->elem.children.push_back(r.arr().elem);
      a->components.push_back(r.array);
    }
    out.listing = listing;
    return Value::make_array(std::move(a));
  }
  // Scalars, tuples and records of them, sums (each leaf a constant).
  auto p = std::make_shared<Producer>();
  p->elem.name = "replicate";
  Lowerer lw(p->elem);
  kir::Builder& b = lw.b();
  b.param(Prim::I64);
  Sym v = lw.from_value(x);
  Sym like = shape_like(v);
  b.ret(lw.leaves(v));
  finish_function(p->elem, "replicate");
  if (!lw.reads().empty()) throw Fallback("replicate of a value holding arrays");
  p->shape = {n};
  leaf_prims(like, p->leaves);
  const bool sums = has_sum(like);
  p->elem_shape = elem_shape_of(sums ? leaves_like(p->leaves) : like);
  p->what = "replicate";
  p->loc = call.loc;
  if (want_listing)
    out.listing = fmt::format("{} replicate {} at {}\n", sums ? "boxed" : "delayed", n, call.loc.str());
  return sums ? boxed_now(p, like) : make_delayed_array(p);
}

// replicate n xs: element f of the result is element f % |xs| of xs.
Value Planner::replicate_array(int64_t n, const Value& x) {
  const ArrayValue& a = x.arr();
  int64_t inner = a.count();
  if (inner == 0) {
    // [n][0]...: no elements to compute.
    std::vector<int64_t> shape{n};
    shape.insert(shape.end(), a.shape.begin(), a.shape.end());
    if (want_listing) out.listing = fmt::format("replicate {} of an empty array at {}: no elements\n", n, call.loc.str());
    return Value::make_array(make_empty_array(a.elem, std::move(shape)));
  }
  auto p = std::make_shared<Producer>();
  p->elem.name = "replicate";
  Lowerer lw(p->elem);
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

// The producer p whose element function lw is writing returns v: the
// function finished, the array of `shape` delayed on it.
Value Planner::finish_producer(std::shared_ptr<Producer> p, Lowerer& lw, const Sym& v, const std::string& what,
                               std::vector<int64_t> shape) {
  Sym like = shape_like(v);
  lw.b().ret(lw.leaves(v));
  finish_function(p->elem, what.c_str());
  p->reads = lw.reads();
  p->shape = std::move(shape);
  p->elem_shape = elem_shape_of(like);
  leaf_prims(like, p->leaves);
  p->what = lw.fused.empty() ? what : what + ", " + join(lw.fused);
  p->loc = call.loc;
  return make_delayed_array(p);
}

// xs repeated `times` times into a delayed array of times * len(xs) rows:
// row f is xs[f / times] (each row repeated in place, `each`) or
// xs[f % len(xs)] (the whole array repeated).
Value Planner::repeat(const Value& xs, int64_t times, bool each) {
  if (xs.kind != Value::Kind::Array || xs.arr().shape.empty()) throw Fallback("repeat of a non-array");
  const std::vector<int64_t>& shape = xs.arr().shape;
  int64_t len = shape[0];
  std::vector<int64_t> rest(shape.begin() + 1, shape.end());
  int64_t inner = 1;
  for (int64_t d : rest) inner *= d;
  if (len == 0 || times <= 0 || inner == 0) throw Fallback("empty repeat");
  const char* what = each ? "repeat" : "repeat_whole";
  auto p = std::make_shared<Producer>();
  p->elem.name = what;
  Lowerer lw(p->elem);
  kir::Builder& b = lw.b();
  Reg flat = b.param(Prim::I64);
  Reg outer = inner == 1 ? flat : b.binary(kir::BinOp::Quot, flat, b.i64(inner));
  Reg row = each ? b.binary(kir::BinOp::Quot, outer, b.i64(times)) : b.binary(kir::BinOp::Rem, outer, b.i64(len));
  Sym v = lw.index(lw.array_of(xs), row, call.loc, false);
  if (!rest.empty()) v = index_row_major(lw, v, flat, inner, rest, call.loc);
  std::vector<int64_t> out_shape{len * times};
  out_shape.insert(out_shape.end(), rest.begin(), rest.end());
  return finish_producer(std::move(p), lw, v, what, std::move(out_shape));
}

Value Planner::repeat_each(const Value& xs, int64_t m) { return repeat(xs, m, true); }

// An array the inner map of a map of maps takes that does not depend on
// the outer element (B in map (\a -> map (\b -> dot a b) B) A) is read in
// place by every outer element instead of copied n times.
Value Planner::repeat_whole(const Value& xs, int64_t n) { return repeat(xs, n, false); }

// transpose swaps the two outer dimensions; rows of higher rank arrays
// ([n][m][k] -> [m][n][k]) move whole.
Value Planner::transpose_of(const Value& xs) {
  if (xs.kind != Value::Kind::Array || xs.arr().rank() < 2) throw Fallback("transpose of other than a matrix");
  const std::vector<int64_t>& shape = xs.arr().shape;
  int64_t n = shape[0], m = shape[1];
  std::vector<int64_t> rest(shape.begin() + 2, shape.end());
  int64_t inner = 1;
  for (int64_t d : rest) inner *= d;
  if (n == 0 || m == 0 || inner == 0) throw Fallback("empty matrix");
  auto p = std::make_shared<Producer>();
  p->elem.name = "transpose";
  Lowerer lw(p->elem);
  kir::Builder& b = lw.b();
  Reg flat = b.param(Prim::I64);
  Reg outer = inner == 1 ? flat : b.binary(kir::BinOp::Quot, flat, b.i64(inner));
  Reg i = b.binary(kir::BinOp::Quot, outer, b.i64(n));  // result row: a column of xs
  Reg j = b.binary(kir::BinOp::Rem, outer, b.i64(n));
  Sym v = lw.index(lw.index(lw.array_of(xs), j, call.loc, false), i, call.loc, false);
  if (!rest.empty()) v = index_row_major(lw, v, flat, inner, rest, call.loc);
  std::vector<int64_t> out_shape{m, n};
  out_shape.insert(out_shape.end(), rest.begin(), rest.end());
  if (want_listing) out.listing = fmt::format("delayed transpose at {}\n", call.loc.str());
  return finish_producer(std::move(p), lw, v, "transpose", std::move(out_shape));
}

}  // namespace thorn::flatten::planning
