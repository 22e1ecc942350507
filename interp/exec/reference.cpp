#include "interp/exec/reference.hpp"

#include <cstring>
#include <unordered_map>

#include <fmt/format.h>

#include "interp/core/ad_value.hpp"
#include "interp/eval/ad_tape.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/eval/value_ops.hpp"

namespace thorn::exec::reference {

namespace {

using eval::Evaluator;
using eval::IndexValue;

[[noreturn]] void fail(const std::string& msg) { throw Error(ErrorKind::Runtime, msg); }

const ArrayValue& arr(const Value& v, std::string_view what) {
  if (v.kind != Value::Kind::Array) throw Error(ErrorKind::Internal, fmt::format("{}: expected an array", what));
  return *v.array;
}

void check_same_length(std::string_view op, int64_t n, int64_t m) {
  if (n != m) fail(fmt::format("{}: size mismatch: {} vs {}", op, n, m));
}

// An empty array whose rows look like `row` (so inner sizes and tuple
// structure survive): one row stacked, then sliced away.
Value empty_like_row(const Value& row) {
  Value one = array_from_rows({row});
  IndexValue none;
  none.is_slice = true;
  none.start = 0;
  none.end = 0;
  return eval::index_array(*one.array, {none});
}

Value empty_like(const ArrayValue& a) {
  IndexValue none;
  none.is_slice = true;
  none.start = 0;
  none.end = 0;
  return eval::index_array(a, {none});
}

Value rows_to_array(std::vector<Value>& rows, const std::function<Value()>& empty) {
  if (rows.empty()) return empty();
  return array_from_rows(rows);
}

IndexValue fixed(int64_t i) {
  IndexValue x;
  x.index = i;
  return x;
}

// ------------------------------------------------------------------ SOACs

// Collects per-element results into an array. Scalar results go straight
// into a buffer (no Value per element); anything else is stacked at the end.
class RowCollector {
 public:
  explicit RowCollector(int64_t n) : n_(n) {}
  void add(Value v) {
    if (count_ == 0 && v.kind == Value::Kind::Scalar) {
      prim_ = make_prim_array(v.scalar.type, {n_});
      width_ = size_t(prim_bytes(v.scalar.type));
    }
    // A derivative-carrying scalar (inside jvp/vjp) cannot live in a buffer:
    // go on with one Value per element.
    if (prim_ && v.kind == Value::Kind::AD) spill_to_rows();
    if (prim_) {
      if (v.kind != Value::Kind::Scalar || v.scalar.type != prim_->buffer->elem())
        throw Error(ErrorKind::Internal, "function results of different types");
      store_scalar(prim_->buffer->host_mut() + size_t(count_) * width_, v.scalar);
    } else {
      rows_.push_back(std::move(v));
    }
    ++count_;
  }
  // `empty` builds the result when there were no elements.
  Value finish(const std::function<Value()>& empty) {
    if (prim_) return Value::make_array(prim_);
    return rows_to_array(rows_, empty);
  }

 private:
  void spill_to_rows() {
    for (int64_t k = 0; k < count_; ++k) rows_.emplace_back(prim_element(*prim_, k));
    prim_.reset();
  }

  int64_t n_;
  int64_t count_ = 0;
  ArrayPtr prim_;
  size_t width_ = 0;
  std::vector<Value> rows_;
};

Value run_map(SoacCall& call, Evaluator& ev) {
  const Value& f = call.args.at(0);
  size_t k = call.args.size() - 1;
  int64_t n = arr(call.args.at(1), "map").outer();
  for (size_t j = 2; j <= k; ++j) check_same_length("map", n, arr(call.args[j], "map").outer());
  RowCollector out(n);
  for (int64_t i = 0; i < n; ++i) {
    std::vector<Value> xs;
    xs.reserve(k);
    for (size_t j = 1; j <= k; ++j) xs.push_back(array_row(*call.args[j].array, i));
    out.add(ev.apply(f, std::move(xs), call.loc));
  }
  return out.finish([&] {
    TypePtr t = call.result_type ? call.result_type() : nullptr;
    if (t && t->kind == Type::Kind::Array) return eval::empty_array_of_type(*t);
    return array_from_rows({});
  });
}

Value run_reduce(SoacCall& call, Evaluator& ev) {
  const Value& op = call.args.at(0);
  Value acc = call.args.at(1);
  const ArrayValue& xs = arr(call.args.at(2), "reduce");
  for (int64_t i = 0; i < xs.outer(); ++i) acc = ev.apply2(op, std::move(acc), array_row(xs, i), call.loc);
  return acc;
}

Value run_scan(SoacCall& call, Evaluator& ev) {
  const Value& op = call.args.at(0);
  Value acc = call.args.at(1);
  const ArrayValue& xs = arr(call.args.at(2), "scan");
  if (xs.outer() == 0) return Value::make_array(copy_array(xs));
  RowCollector out(xs.outer());
  for (int64_t i = 0; i < xs.outer(); ++i) {
    acc = ev.apply2(op, std::move(acc), array_row(xs, i), call.loc);
    out.add(acc);
  }
  return out.finish([] { return array_from_rows({}); });
}

// Reads an index of the given dimensionality from is[j].
std::vector<IndexValue> index_at(const ArrayValue& is, int64_t j, int dims) {
  Value x = array_row(is, j);
  std::vector<IndexValue> idx;
  if (dims == 1) {
    idx.push_back(fixed(ad_scalar(x).as_i64()));
  } else {
    for (const auto& c : *x.elems) idx.push_back(fixed(ad_scalar(c).as_i64()));
  }
  return idx;
}

bool in_bounds(const std::vector<IndexValue>& idx, const std::vector<int64_t>& shape) {
  if (idx.size() > shape.size()) return false;
  for (size_t d = 0; d < idx.size(); ++d)
    if (idx[d].index < 0 || idx[d].index >= shape[d]) return false;
  return true;
}

Value run_reduce_by_index(SoacCall& call, Evaluator& ev) {
  Value dest = std::move(call.args.at(0));
  const Value& op = call.args.at(1);
  const ArrayValue& is = arr(call.args.at(3), "reduce_by_index");
  const ArrayValue& vs = arr(call.args.at(4), "reduce_by_index");
  check_same_length("reduce_by_index", is.outer(), vs.outer());
  std::vector<int64_t> shape = arr(dest, "reduce_by_index").shape;
  if (ev.ad_active > 0) {
    // Under differentiation, Futhark's form (seed 002's generic rule, and
    // what Futhark's AD differentiates): each bin's values are reduced from
    // the neutral element, then combined with the destination,
    // `map2 op dest (reduce_by_index (replicate w ne) op ne is vs)`, every
    // bin included. The same result for a true neutral element and an
    // associative operator; for others (a saturating add,
    // tests/ad/reducebyindex5.fut) the derivative is the one Futhark gives.
    const Value& ne = call.args.at(2);
    size_t dims = size_t(call.index_dims);
    if (dims > shape.size()) return dest;
    std::unordered_map<int64_t, Value> bins;
    auto flat = [&](const std::vector<IndexValue>& idx) {
      int64_t k = 0;
      for (size_t d = 0; d < dims; ++d) k = k * shape[d] + idx[d].index;
      return k;
    };
    for (int64_t j = 0; j < is.outer(); ++j) {
      auto idx = index_at(is, j, call.index_dims);
      if (!in_bounds(idx, shape)) continue;
      auto [it, fresh] = bins.try_emplace(flat(idx), ne);
      it->second = ev.apply2(op, std::move(it->second), array_row(vs, j), call.loc);
    }
    int64_t nbins = 1;
    for (size_t d = 0; d < dims; ++d) nbins *= shape[d];
    for (int64_t k = 0; k < nbins; ++k) {
      std::vector<IndexValue> idx(dims);
      for (int64_t d = int64_t(dims) - 1, r = k; d >= 0; --d) {
        idx[size_t(d)] = fixed(r % shape[size_t(d)]);
        r /= shape[size_t(d)];
      }
      auto it = bins.find(k);
      Value old = eval::index_array(*dest.array, idx);
      Value updated = ev.apply2(op, std::move(old), it == bins.end() ? ne : it->second, call.loc);
      dest = eval::update_array(std::move(dest), idx, updated);
    }
    return dest;
  }
  for (int64_t j = 0; j < is.outer(); ++j) {
    auto idx = index_at(is, j, call.index_dims);
    if (!in_bounds(idx, shape)) continue;
    Value old = eval::index_array(*dest.array, idx);
    Value updated = ev.apply2(op, std::move(old), array_row(vs, j), call.loc);
    dest = eval::update_array(std::move(dest), idx, updated);
  }
  return dest;
}

Value run_scatter(SoacCall& call, Evaluator&) {
  Value dest = std::move(call.args.at(0));
  const ArrayValue& is = arr(call.args.at(1), "scatter");
  const ArrayValue& vs = arr(call.args.at(2), "scatter");
  check_same_length("scatter", is.outer(), vs.outer());
  std::vector<int64_t> shape = arr(dest, "scatter").shape;
  for (int64_t j = 0; j < is.outer(); ++j) {
    auto idx = index_at(is, j, call.index_dims);
    if (!in_bounds(idx, shape)) continue;
    dest = eval::update_array(std::move(dest), idx, array_row(vs, j));
  }
  return dest;
}

// Partitions by predicates: classes 0..k-1 in order, then the rest.
std::vector<Value> run_partition(SoacCall& call, Evaluator& ev, size_t npreds) {
  const ArrayValue& xs = arr(call.args.at(npreds), "partition");
  std::vector<std::vector<Value>> classes(npreds + 1);
  for (int64_t i = 0; i < xs.outer(); ++i) {
    Value x = array_row(xs, i);
    size_t c = 0;
    while (c < npreds && !ev.apply1(call.args[c], x, call.loc).scalar.b) ++c;
    classes[c].push_back(std::move(x));
  }
  std::vector<Value> out;
  for (auto& rows : classes) out.push_back(rows_to_array(rows, [&] { return empty_like(xs); }));
  return out;
}

// ------------------------------------------------------------------ array primitives

Value run_iota(SoacCall& call) {
  int64_t n = ad_scalar(call.args.at(0)).as_i64();
  if (n < 0) fail(fmt::format("Range 0..1..<{} is invalid.", n));
  const Value& len = call.args.at(0);
  if (len.kind == Value::Kind::AD && len.ad->tape) {
    // Under reverse mode with a length that carries a derivative, every
    // element depends on it with partial 1, as Futhark's rule has it
    // (Rev.hs: the adjoint of `iota n` is summed into n's), so the integers
    // of the tape agree with Futhark's (tests/ad/iota0.fut).
    auto tape = len.ad->tape;
    tape->reverse_only = true;  // forward mode gives iota a zero tangent
    std::vector<Value> leaves;
    leaves.reserve(size_t(n));
    for (int64_t i = 0; i < n; ++i) {
      auto d = std::make_shared<ADValue>();
      d->level = len.ad->level;
      d->prim = Prim::I64;
      d->primal = Value(Scalar::i64(i));
      d->tape = tape;
      d->node = tape->add(Prim::I64, {{len.ad->node, Value(Scalar::i64(1))}});
      leaves.push_back(Value::differentiable(std::move(d)));
    }
    auto out = std::make_shared<ArrayValue>();
    out->shape = {n};
    out->elem.kind = ElemShape::Kind::Boxed;
    out->elem.ad = true;
    out->elem.prim = Prim::I64;
    out->boxed = std::make_shared<const std::vector<Value>>(std::move(leaves));
    return Value::make_array(out);
  }
  auto out = make_prim_array(Prim::I64, {n});
  auto* data = out->buffer->data_mut<int64_t>();
  for (int64_t i = 0; i < n; ++i) data[i] = i;
  return Value::make_array(out);
}

Value run_replicate(SoacCall& call) {
  int64_t n = ad_scalar(call.args.at(0)).as_i64();
  const Value& x = call.args.at(1);
  if (n < 0) fail(fmt::format("Range 0..1..<{} is invalid.", n));
  if (n == 0) return empty_like_row(x);
  if (x.kind == Value::Kind::Scalar) {
    auto out = make_prim_array(x.scalar.type, {n});
    size_t width = size_t(prim_bytes(x.scalar.type));
    std::byte* dst = out->buffer->host_mut();
    for (int64_t i = 0; i < n; ++i) store_scalar(dst + size_t(i) * width, x.scalar);
    return Value::make_array(out);
  }
  std::vector<Value> rows(size_t(n), x);
  return array_from_rows(rows);
}

// Swaps the two outer dimensions of a storage array with shape [n][m]...
ArrayPtr transpose_storage(const ArrayValue& a) {
  int64_t n = a.shape.at(0), m = a.shape.at(1);
  int64_t inner = 1;
  for (size_t k = 2; k < a.shape.size(); ++k) inner *= a.shape[k];
  std::vector<int64_t> shape = a.shape;
  std::swap(shape[0], shape[1]);
  auto out = std::make_shared<ArrayValue>();
  out->shape = shape;
  out->elem = a.elem;
  switch (a.elem.kind) {
    case ElemShape::Kind::Prim: {
      auto buf = make_prim_array(a.buffer->elem(), shape);
      size_t block = size_t(inner) * size_t(prim_bytes(a.buffer->elem()));
      const std::byte* src = a.buffer->host() + size_t(a.offset) * size_t(prim_bytes(a.buffer->elem()));
      std::byte* dst = buf->buffer->host_mut();
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < m; ++j) std::memcpy(dst + size_t(j * n + i) * block, src + size_t(i * m + j) * block, block);
      return buf;
    }
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record:
      for (const auto& c : a.components) out->components.push_back(transpose_storage(*c));
      return out;
    case ElemShape::Kind::Boxed: {
      auto values = std::make_shared<std::vector<Value>>(size_t(n * m * inner));
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < m; ++j)
          for (int64_t k = 0; k < inner; ++k)
            (*values)[size_t((j * n + i) * inner + k)] = (*a.boxed)[size_t(a.offset + (i * m + j) * inner + k)];
      out->boxed = std::move(values);
      return out;
    }
  }
  return out;
}

// The same storage seen with another (outer) shape; `to` replaces the
// first `from_dims` dimensions.
ArrayPtr reshape_outer(const ArrayValue& a, size_t from_dims, const std::vector<int64_t>& to) {
  auto out = std::make_shared<ArrayValue>(a);
  std::vector<int64_t> shape = to;
  shape.insert(shape.end(), a.shape.begin() + long(from_dims), a.shape.end());
  out->shape = shape;
  out->components.clear();
  for (const auto& c : a.components) out->components.push_back(reshape_outer(*c, from_dims, to));
  return out;
}

Value run_concat(SoacCall& call) {
  const ArrayValue& xs = arr(call.args.at(0), "concat");
  const ArrayValue& ys = arr(call.args.at(1), "concat");
  if (ys.outer() == 0) return Value::make_array(copy_array(xs));
  if (xs.outer() == 0) return Value::make_array(copy_array(ys));
  std::vector<Value> rows;
  rows.reserve(size_t(xs.outer() + ys.outer()));
  for (int64_t i = 0; i < xs.outer(); ++i) rows.push_back(array_row(xs, i));
  for (int64_t i = 0; i < ys.outer(); ++i) rows.push_back(array_row(ys, i));
  return array_from_rows(rows);
}

Value run_rotate(SoacCall& call) {
  int64_t r = ad_scalar(call.args.at(0)).as_i64();
  const ArrayValue& xs = arr(call.args.at(1), "rotate");
  int64_t n = xs.outer();
  if (n == 0) return Value::make_array(copy_array(xs));
  int64_t shift = ((r % n) + n) % n;
  std::vector<Value> rows;
  rows.reserve(size_t(n));
  for (int64_t i = 0; i < n; ++i) rows.push_back(array_row(xs, (i + shift) % n));
  return array_from_rows(rows);
}

Value run_zip(SoacCall& call) {
  int64_t n = arr(call.args.at(0), "zip").outer();
  auto out = std::make_shared<ArrayValue>();
  out->shape = {n};
  out->elem.kind = ElemShape::Kind::Tuple;
  for (const Value& x : call.args) {
    const ArrayValue& a = arr(x, "zip");
    check_same_length("zip", n, a.outer());
    // A component must have the outer shape as its prefix; a rank>1 array
    // is a component whose elements are arrays.
    out->components.push_back(x.array);
    out->elem.children.push_back(a.elem);
  }
  return Value::make_array(std::move(out));
}

Value run_unzip(SoacCall& call) {
  const ArrayValue& xs = arr(call.args.at(0), "unzip");
  if (xs.elem.kind != ElemShape::Kind::Tuple && xs.elem.kind != ElemShape::Kind::Record)
    throw Error(ErrorKind::Internal, "unzip of an array that is not of tuples");
  std::vector<Value> parts;
  for (const auto& c : xs.components) parts.push_back(Value::make_array(c));
  Value t;
  t.kind = Value::Kind::Tuple;
  t.elems = std::make_shared<const std::vector<Value>>(std::move(parts));
  return t;
}

}  // namespace

Value run(SoacCall& call, Evaluator& ev) {
  switch (call.kind) {
    case SoacKind::Map: return run_map(call, ev);
    case SoacKind::Reduce:
    case SoacKind::ReduceComm: return run_reduce(call, ev);
    case SoacKind::Scan: return run_scan(call, ev);
    case SoacKind::ReduceByIndex: return run_reduce_by_index(call, ev);
    case SoacKind::Scatter: return run_scatter(call, ev);
    case SoacKind::Filter: return run_partition(call, ev, 1)[0];
    case SoacKind::Partition: return Value::tuple(run_partition(call, ev, 1));
    case SoacKind::Partition2: return Value::tuple(run_partition(call, ev, 2));
    case SoacKind::Iota: return run_iota(call);
    case SoacKind::Replicate: return run_replicate(call);
    case SoacKind::Transpose: {
      const ArrayValue& a = arr(call.args.at(0), "transpose");
      if (a.shape.size() < 2) throw Error(ErrorKind::Internal, "transpose of an array of rank < 2");
      return Value::make_array(transpose_storage(a));
    }
    case SoacKind::Concat: return run_concat(call);
    case SoacKind::Flatten: {
      const ArrayValue& a = arr(call.args.at(0), "flatten");
      if (a.shape.size() < 2) throw Error(ErrorKind::Internal, "flatten of an array of rank < 2");
      return Value::make_array(reshape_outer(a, 2, {a.shape[0] * a.shape[1]}));
    }
    case SoacKind::Unflatten: {
      int64_t n = ad_scalar(call.args.at(0)).as_i64(), m = ad_scalar(call.args.at(1)).as_i64();
      const ArrayValue& a = arr(call.args.at(2), "unflatten");
      if (n < 0 || m < 0 || n * m != a.outer())
        fail(fmt::format("Cannot unflatten array of shape [{}] to array of shape [{}][{}]", a.outer(), n, m));
      return Value::make_array(reshape_outer(a, 1, {n, m}));
    }
    case SoacKind::Rotate: return run_rotate(call);
    case SoacKind::Zip: return run_zip(call);
    case SoacKind::Unzip: return run_unzip(call);
  }
  throw Error(ErrorKind::Internal, "unknown SOAC");
}

}  // namespace thorn::exec::reference
