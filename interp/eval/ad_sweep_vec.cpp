// Array-level AD of reduce_by_index with a vectorised operator (`map2 op`,
// or `map2 (map2 op)` ..., over rows of k values into rows of k bins;
// notes-ad.md §3: "apply the matching special case inside the maps"). Row
// i's value j goes to bin (is[i], j) and nowhere else, so the histogram is
// one histogram of scalars over the flattened arrays (rows flattened to k
// values), value (i, j) into bin is[i]*k + j, and every
// rule for scalar operators (+, *, min/max, generic) applies unchanged. The
// flattened operands are views of the originals in the walk: a tangent is
// flattened with its value, an adjoint unflattened into the original's.
#include <fmt/format.h>

#include "interp/eval/ad_sweep_impl.hpp"
#include "interp/eval/value_ops.hpp"

namespace thorn::eval::ad {

namespace {

bool float_rows(const Value& v, size_t rank) {
  return v.kind == Value::Kind::Array && v.array->shape.size() == rank && v.array->elem.kind == ElemShape::Kind::Prim &&
         is_float(v.array->elem.prim);
}

int64_t product(const std::vector<int64_t>& s, size_t from) {
  int64_t r = 1;
  for (size_t j = from; j < s.size(); ++j) r *= s[j];
  return r;
}

}  // namespace

std::optional<std::pair<Value, int>> vectorised_operator(const Value& op) {
  auto inner = map2_operand(op);
  if (!inner) return std::nullopt;
  int depth = 1;
  while (auto deeper = map2_operand(*inner)) inner = deeper, ++depth;
  return std::make_pair(*inner, depth);
}

std::optional<Value> map2_operand(const Value& op) {
  if (op.kind != Value::Kind::Function) return std::nullopt;
  const Callable& c = *op.fn;
  if (c.kind != Callable::Kind::Partial || !c.fn || c.args.size() != 1 || c.args[0].kind != Value::Kind::Function)
    return std::nullopt;
  const Callable& m = *c.fn;
  bool is_map2 = (m.kind == Callable::Kind::Closure && m.name == "map2") ||
                 (m.kind == Callable::Kind::Intrinsic && m.name == "map" && m.arity == 3);
  if (!is_map2) return std::nullopt;
  return c.args[0];
}

// An array of any rank as a one-dimensional one, and back.
Value Sweep::flat_all(const Value& v, Prim p) {
  Value r = v;
  for (size_t j = 1; j < v.array->shape.size(); ++j) r = apply(rule(p, "flat"), {r});
  return r;
}

Value Sweep::unflat_all(const Value& v, const std::vector<int64_t>& shape, Prim p) {
  Value r = v;
  for (size_t j = shape.size() - 1; j >= 1; --j)
    r = apply(rule(p, "unflat"), {Value(Scalar::i64(product(shape, 0) / product(shape, j))), Value(Scalar::i64(shape[j])), r});
  return r;
}

AV Sweep::flat_view(const AV& a, Prim p) {
  std::vector<int64_t> shape = a.v.array->shape;
  AV r = constant(flat_all(a.v, p));
  if (a.dot) r.dot = flat_all(*a.dot, p);
  if (reverse && a.id >= 0) {
    int id = a.id;
    r.id = new_node([this, id, shape, p](const Value& bar) { accumulate(id, unflat_all(bar, shape, p)); });
  }
  return r;
}

AV Sweep::hist_vectorised_rule(const Value& fn, std::vector<AV>& args, const Value& op, int depth, const Loc& at) {
  const AV& dest = args[0];
  const AV& vs = args[4];
  const Value& ne = args[2].v;
  const Value& is = args[3].v;
  size_t rank = size_t(depth) + 1;
  if (!float_rows(dest.v, rank) || !float_rows(vs.v, rank) || !float_rows(ne, rank - 1))
    throw Unsupported("a reduce_by_index with a vectorised operator on other than rows of floats");
  Prim p = vs.v.array->elem.prim;
  std::vector<int64_t> shape = dest.v.array->shape;
  int64_t m = shape[0], k = product(shape, 1);
  for (size_t j = 1; j < rank; ++j)
    if (vs.v.array->shape[j] != shape[j] || ne.array->shape[j - 1] != shape[j])
      throw Unsupported("a vectorised reduce_by_index of mismatched rows");
  // One neutral element for every column (what `replicate k ne` gives).
  Value fne = flat_all(ne, p);
  Value ne0 = k > 0 ? array_row(*fne.array, 0) : Value(Scalar::floating(p, 0));
  for (int64_t j = 1; j < k; ++j)
    if (array_row(*fne.array, j).scalar.as_f64() != ne0.scalar.as_f64())
      throw Unsupported("a vectorised reduce_by_index whose neutral element differs between columns");
  Value fis = apply(rule(p, "vec_indices"), {Value(Scalar::i64(m)), Value(Scalar::i64(k)), is});
  std::vector<AV> flat{flat_view(dest, p), constant(op), constant(ne0), constant(fis), flat_view(vs, p)};
  AV fr = hist_rule(fn, flat, at);
  AV r = constant(unflat_all(fr.v, shape, p));
  if (fr.dot) r.dot = unflat_all(*fr.dot, shape, p);
  if (reverse && fr.id >= 0) {
    int id = fr.id;
    r.id = new_node([this, id, p](const Value& bar) { accumulate(id, flat_all(bar, p)); });
  }
  return r;
}

// reduce (map2 op) ne xss: the histogram of every row into one bin,
// reduce_by_index (replicate 1 ne) (map2 op) ne (replicate n 0) xss, whose
// only row is the result (ne is neutral, so `ne op h` is h).
AV Sweep::reduce_vectorised_rule(std::vector<AV>& args, const Value& op, int depth, const Loc& at) {
  const AV& xs = args[2];
  const Value& ne = args[1].v;
  size_t rank = size_t(depth) + 1;
  if (!float_rows(xs.v, rank) || !float_rows(ne, rank - 1))
    throw Unsupported("a reduction with a vectorised operator on other than rows of floats");
  Prim p = xs.v.array->elem.prim;
  int64_t n = xs.v.array->shape[0];
  std::vector<int64_t> shape = xs.v.array->shape;
  shape[0] = 1;
  Value one = Value(Scalar::i64(1));
  std::vector<AV> hargs{constant(apply(prelude("replicate"), {one, ne})), constant(args[0].v), constant(ne),
                        constant(apply(prelude("replicate"), {Value(Scalar::i64(n)), Value(Scalar::i64(0))})), xs};
  AV h = hist_vectorised_rule(prelude("reduce_by_index"), hargs, op, depth, at);
  Value head = prelude("head");
  AV r = constant(apply(head, {h.v}));
  if (h.dot) r.dot = apply(head, {*h.dot});
  if (reverse && h.id >= 0) {
    int id = h.id;
    r.id = new_node([this, id, shape, p](const Value& bar) { accumulate(id, unflat_all(flat_all(bar, p), shape, p)); });
  }
  return r;
}

}  // namespace thorn::eval::ad
