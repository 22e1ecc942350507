#include "interp/eval/value_ops.hpp"

#include <cstring>

#include <fmt/format.h>

#include "interp/core/ad_value.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/eval/scalar_ops.hpp"
#include "interp/util/error.hpp"

namespace thorn::eval {

// ------------------------------------------------------------------ equality

namespace {
// Arrays of the same shape whose leaves are stored differently: primitive
// buffers on one side, scalars boxed for automatic differentiation on the other.
bool arrays_equal_elementwise(const ArrayValue& x, const ArrayValue& y) {
  if (x.shape != y.shape) return false;
  for (int64_t i = 0; i < x.outer(); ++i)
    if (!values_equal(array_row(x, i), array_row(y, i))) return false;
  return true;
}
}  // namespace

bool values_equal(const Value& a, const Value& b) {
  if (a.kind == Value::Kind::AD || b.kind == Value::Kind::AD) {
    if (a.kind != Value::Kind::AD && a.kind != Value::Kind::Scalar) return false;
    if (b.kind != Value::Kind::AD && b.kind != Value::Kind::Scalar) return false;
    return scalar_equal(ad_scalar(a), ad_scalar(b));
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::Scalar: return scalar_equal(a.scalar, b.scalar);
    case Value::Kind::Tuple:
    case Value::Kind::Record:
    case Value::Kind::Sum: {
      if (a.names && b.names && *a.names != *b.names) return false;
      if (a.elems->size() != b.elems->size()) return false;
      for (size_t k = 0; k < a.elems->size(); ++k)
        if (!values_equal((*a.elems)[k], (*b.elems)[k])) return false;
      return true;
    }
    case Value::Kind::Array: {
      const ArrayValue& x = *a.array;
      const ArrayValue& y = *b.array;
      if (x.shape != y.shape) return false;
      if (x.elem.kind != y.elem.kind || x.elem.ad != y.elem.ad) return arrays_equal_elementwise(x, y);
      switch (x.elem.kind) {
        case ElemShape::Kind::Prim: {
          if (x.buffer->elem() != y.buffer->elem()) return false;
          int64_t n = x.count();
          for (int64_t k = 0; k < n; ++k)
            if (!scalar_equal(prim_element(x, k), prim_element(y, k))) return false;
          return true;
        }
        case ElemShape::Kind::Tuple:
        case ElemShape::Kind::Record:
          if (x.components.size() != y.components.size()) return false;
          for (size_t c = 0; c < x.components.size(); ++c)
            if (!values_equal(Value::make_array(x.components[c]), Value::make_array(y.components[c]))) return false;
          return true;
        case ElemShape::Kind::Boxed: {
          int64_t n = x.count();
          for (int64_t k = 0; k < n; ++k)
            if (!values_equal((*x.boxed)[size_t(x.offset + k)], (*y.boxed)[size_t(y.offset + k)])) return false;
          return true;
        }
      }
      return false;
    }
    case Value::Kind::Function: throw Error(ErrorKind::Internal, "comparison of functions");
    case Value::Kind::AD: break;  // handled above
  }
  return false;
}

// ------------------------------------------------------------------ values from types

ElemShape elem_shape_of_type(const Type& t) {
  ElemShape e;
  switch (t.kind) {
    case Type::Kind::Prim:
      e.kind = ElemShape::Kind::Prim;
      e.prim = t.prim;
      break;
    case Type::Kind::Array: return elem_shape_of_type(*t.elem);
    case Type::Kind::Tuple:
      e.kind = ElemShape::Kind::Tuple;
      for (const auto& x : t.elems) e.children.push_back(elem_shape_of_type(*x));
      break;
    case Type::Kind::Record:
      // The unit type is an empty record on the type side but an empty tuple
      // among values; keep the value side's view.
      e.kind = t.fields.empty() ? ElemShape::Kind::Tuple : ElemShape::Kind::Record;
      for (const auto& [name, x] : t.fields) {
        e.children.push_back(elem_shape_of_type(*x));
        e.names.push_back(name);
      }
      break;
    default: e.kind = ElemShape::Kind::Boxed; break;
  }
  return e;
}

namespace {

ArrayPtr build_empty(const Type& elem, const std::vector<int64_t>& outer) {
  switch (elem.kind) {
    case Type::Kind::Prim: return make_prim_array(elem.prim, outer);
    case Type::Kind::Array: {
      std::vector<int64_t> shape = outer;
      for (const Dim& d : elem.dims) shape.push_back(d.kind == Dim::Kind::Constant ? d.value : 0);
      return build_empty(*elem.elem, shape);
    }
    case Type::Kind::Tuple:
    case Type::Kind::Record: {
      auto a = std::make_shared<ArrayValue>();
      a->shape = outer;
      a->elem = elem_shape_of_type(elem);
      if (elem.kind == Type::Kind::Tuple) {
        for (const auto& x : elem.elems) a->components.push_back(build_empty(*x, outer));
      } else {
        for (const auto& [name, x] : elem.fields) a->components.push_back(build_empty(*x, outer));
      }
      return a;
    }
    default: {
      ElemShape boxed;
      boxed.kind = ElemShape::Kind::Boxed;
      return make_empty_array(boxed, outer);
    }
  }
}

}  // namespace

Value empty_array_of_type(const Type& t) {
  if (t.kind != Type::Kind::Array) throw Error(ErrorKind::Internal, "empty_array_of_type on a non-array type");
  std::vector<int64_t> shape;
  for (const Dim& d : t.dims) shape.push_back(d.kind == Dim::Kind::Constant ? d.value : 0);
  if (!shape.empty() && t.dims[0].kind != Dim::Kind::Constant) shape[0] = 0;
  return Value::make_array(build_empty(*t.elem, shape));
}

// ------------------------------------------------------------------ printing

namespace {
std::string elem_type_text(const ElemShape& e) {
  switch (e.kind) {
    case ElemShape::Kind::Prim: return std::string(prim_name(e.prim));
    case ElemShape::Kind::Tuple: {
      std::string out = "(";
      for (size_t k = 0; k < e.children.size(); ++k) out += (k ? ", " : "") + elem_type_text(e.children[k]);
      return out + ")";
    }
    case ElemShape::Kind::Record: {
      std::string out = "{";
      for (size_t k = 0; k < e.children.size(); ++k)
        out += (k ? ", " : "") + e.names[k] + ": " + elem_type_text(e.children[k]);
      return out + "}";
    }
    case ElemShape::Kind::Boxed: return e.ad ? std::string(prim_name(e.prim)) : "?";
  }
  return "?";
}
}  // namespace

std::string format_value_plain(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Scalar: return format_scalar(v.scalar);
    case Value::Kind::Array: {
      const ArrayValue& a = *v.array;
      if (a.count() == 0) return "empty(" + shape_string(a.shape) + elem_type_text(a.elem) + ")";
      std::string out = "[";
      for (int64_t k = 0; k < a.outer(); ++k) out += (k ? ", " : "") + format_value_plain(array_row(a, k));
      return out + "]";
    }
    case Value::Kind::Tuple: {
      std::string out = "(";
      for (size_t k = 0; k < v.elems->size(); ++k) out += (k ? ", " : "") + format_value_plain((*v.elems)[k]);
      return out + ")";
    }
    case Value::Kind::Record: {
      std::string out = "{";
      for (size_t k = 0; k < v.elems->size(); ++k)
        out += (k ? ", " : "") + (*v.names)[k] + " = " + format_value_plain((*v.elems)[k]);
      return out + "}";
    }
    case Value::Kind::Sum: {
      std::string out = "#" + v.constructor();
      for (const auto& x : *v.elems) {
        std::string s = format_value_plain(x);
        bool atomic = x.kind != Value::Kind::Sum || x.elems->empty();
        out += " " + (atomic ? s : "(" + s + ")");
      }
      return out;
    }
    case Value::Kind::Function: return "#<fun>";
    case Value::Kind::AD: return format_scalar(ad_scalar(v));
  }
  return "?";
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string out;
  for (int64_t d : shape) out += fmt::format("[{}]", d);
  return out;
}

std::string shape_of(const Value& v) { return v.kind == Value::Kind::Array ? shape_string(v.array->shape) : ""; }

std::string index_text(const std::vector<IndexValue>& idx) {
  std::string out;
  for (size_t k = 0; k < idx.size(); ++k) {
    const IndexValue& x = idx[k];
    if (k) out += ", ";
    if (!x.is_slice) {
      out += fmt::format("{}", x.index);
      continue;
    }
    // Futhark's rendering: "i:j:s", "i:j", "i:", ":j", "::s".
    if (x.start) out += fmt::format("{}", *x.start);
    out += ":";
    if (x.end) out += fmt::format("{}", *x.end);
    if (x.stride) out += fmt::format(":{}", *x.stride);
  }
  return out;
}

// ------------------------------------------------------------------ regions

namespace {

// The elements a[idx] selects, over the array's storage with full shape
// `shape` (for an array of tuples, a component's shape): `units` blocks of
// `unit` consecutive elements, block k starting at unit offset
// base + sum(c_j * steps_j) for the odometer c over `counts`.
struct Region {
  std::vector<int64_t> counts;  // the sliced dimensions' lengths
  std::vector<int64_t> steps;   // their steps, in units
  int64_t base = 0;             // in units
  int64_t unit = 1;             // elements per unit
  bool contiguous = true;
  int64_t units() const {
    int64_t n = 1;
    for (int64_t c : counts) n *= c;
    return n;
  }
  template <class F>
  void for_each_block(F&& f) const {  // f(unit offset of the block, ordinal)
    int64_t total = units();
    if (total == 0) return;
    std::vector<int64_t> c(counts.size(), 0);
    int64_t pos = base;
    for (int64_t k = 0; k < total; ++k) {
      f(pos, k);
      for (size_t d = counts.size(); d-- > 0;) {
        if (++c[d] < counts[d]) {
          pos += steps[d];
          break;
        }
        pos -= steps[d] * (counts[d] - 1);
        c[d] = 0;
      }
    }
  }
};

[[noreturn]] void out_of_bounds(const std::vector<IndexValue>& idx, const std::vector<int64_t>& shape) {
  throw Error(ErrorKind::Runtime,
              fmt::format("Index [{}] out of bounds for array of shape {}.", index_text(idx), shape_string(shape)));
}

Region plan_region(const std::vector<int64_t>& shape, const std::vector<IndexValue>& idx,
                   const std::vector<int64_t>& shape_for_message) {
  size_t m = idx.size();
  if (m > shape.size()) throw Error(ErrorKind::Internal, "too many indices");
  Region r;
  for (size_t k = m; k < shape.size(); ++k) r.unit *= shape[k];
  std::vector<int64_t> dimstep(m, 1);
  for (size_t k = m; k-- > 1;) dimstep[k - 1] = dimstep[k] * shape[k];
  int first_nontrivial = -1;
  for (size_t k = 0; k < m; ++k) {
    const IndexValue& x = idx[k];
    int64_t n = shape[k];
    if (!x.is_slice) {
      if (x.index < 0 || x.index >= n) out_of_bounds(idx, shape_for_message);
      r.base += x.index * dimstep[k];
      if (first_nontrivial >= 0 && n > 1) r.contiguous = false;
      continue;
    }
    int64_t start, end, stride;
    if (x.start) {
      start = *x.start;
      end = x.end.value_or(n);
      stride = x.stride.value_or(1);
    } else if (x.end) {
      start = 0;
      end = *x.end;
      stride = x.stride.value_or(1);
    } else if (x.stride) {
      stride = *x.stride;
      start = stride > 0 ? 0 : n - 1;
      end = stride > 0 ? n : -1;
    } else {
      start = 0, end = n, stride = 1;
    }
    __int128 diff = __int128(end) - start;
    auto signum1 = [](__int128 v) { return v < 0 ? -1 : 1; };  // 0 counts as positive
    if (stride == 0 || (diff != 0 && signum1(diff) != signum1(stride))) out_of_bounds(idx, shape_for_message);
    __int128 s = stride;
    __int128 count = stride > 0 ? (diff + s - 1) / s : (-diff + (-s) - 1) / (-s);
    if (count > 0) {
      __int128 last = start + (count - 1) * s;
      if (start < 0 || start >= n || last < 0 || last >= n) out_of_bounds(idx, shape_for_message);
      r.base += start * dimstep[k];
    }
    int64_t c = int64_t(count);
    r.counts.push_back(c);
    r.steps.push_back(stride * dimstep[k]);
    if (first_nontrivial >= 0) {
      if (n > 1 && !(c == n && stride == 1)) r.contiguous = false;
    } else if (c > 1) {
      first_nontrivial = int(k);
      if (stride != 1) r.contiguous = false;
    }
  }
  return r;
}

std::vector<int64_t> result_shape(const Region& r, const std::vector<int64_t>& shape, size_t m) {
  std::vector<int64_t> out = r.counts;
  out.insert(out.end(), shape.begin() + long(m), shape.end());
  return out;
}

bool is_element_index(const ArrayValue& a, const std::vector<IndexValue>& idx) {
  if (idx.size() != a.shape.size()) return false;
  for (const auto& x : idx)
    if (x.is_slice) return false;
  return true;
}

Value element_of_components(const ArrayValue& a, std::vector<Value> parts) {
  if (a.elem.kind == ElemShape::Kind::Record) {
    Value r;
    r.kind = Value::Kind::Record;
    r.elems = std::make_shared<const std::vector<Value>>(std::move(parts));
    r.names = std::make_shared<const std::vector<std::string>>(a.elem.names);
    return r;
  }
  Value t;
  t.kind = Value::Kind::Tuple;
  t.elems = std::make_shared<const std::vector<Value>>(std::move(parts));
  return t;
}

}  // namespace

Value index_array(const ArrayValue& a, const std::vector<IndexValue>& idx) {
  size_t m = idx.size();
  bool element = is_element_index(a, idx);
  switch (a.elem.kind) {
    case ElemShape::Kind::Prim: {
      Region r = plan_region(a.shape, idx, a.shape);
      if (element) return Value(prim_element(a, r.base));
      std::vector<int64_t> shape = result_shape(r, a.shape, m);
      if (r.contiguous) return Value::make_array(make_prim_array(a.buffer, std::move(shape), a.offset + r.base * r.unit));
      auto out = make_prim_array(a.buffer->elem(), std::move(shape));
      size_t width = size_t(prim_bytes(a.buffer->elem()));
      const std::byte* src = a.buffer->host() + size_t(a.offset) * width;
      std::byte* dst = out->buffer->host_mut();
      size_t block = size_t(r.unit) * width;
      r.for_each_block([&](int64_t pos, int64_t k) { std::memcpy(dst + size_t(k) * block, src + size_t(pos) * block, block); });
      return Value::make_array(out);
    }
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record: {
      Region r = plan_region(a.shape, idx, a.shape);  // bounds against the outer shape
      std::vector<Value> parts;
      parts.reserve(a.components.size());
      for (const auto& c : a.components) parts.push_back(index_array(*c, idx));
      if (element) return element_of_components(a, std::move(parts));
      auto out = std::make_shared<ArrayValue>();
      out->shape = result_shape(r, a.shape, m);
      out->elem = a.elem;
      for (auto& p : parts) out->components.push_back(p.array);
      return Value::make_array(std::move(out));
    }
    case ElemShape::Kind::Boxed: {
      Region r = plan_region(a.shape, idx, a.shape);
      if (element) return (*a.boxed)[size_t(a.offset + r.base)];
      auto out = std::make_shared<ArrayValue>();
      out->shape = result_shape(r, a.shape, m);
      out->elem = a.elem;
      if (r.contiguous) {
        out->boxed = a.boxed;
        out->offset = a.offset + r.base * r.unit;
      } else {
        auto values = std::make_shared<std::vector<Value>>();
        values->reserve(size_t(r.units() * r.unit));
        r.for_each_block([&](int64_t pos, int64_t) {
          auto from = a.boxed->begin() + a.offset + pos * r.unit;
          values->insert(values->end(), from, from + r.unit);
        });
        out->boxed = std::move(values);
      }
      return Value::make_array(std::move(out));
    }
  }
  return Value();
}

bool storage_unique(const ArrayValue& a) {
  switch (a.elem.kind) {
    case ElemShape::Kind::Prim: return a.buffer.use_count() == 1;
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record:
      for (const auto& c : a.components)
        if (c.use_count() != 1 || !storage_unique(*c)) return false;
      return true;
    case ElemShape::Kind::Boxed: return a.boxed.use_count() == 1;
  }
  return false;
}

namespace {

[[noreturn]] void update_shape_mismatch(const Value& v, const std::vector<int64_t>& want) {
  throw Error(ErrorKind::Runtime, fmt::format("Value of shape {} cannot be written to a slice of shape {}.",
                                              shape_of(v), shape_string(want)));
}

// Whether v is, or is an array of, scalars carrying derivatives.
bool carries_ad(const Value& v) {
  if (v.kind == Value::Kind::AD) return true;
  return v.kind == Value::Kind::Array && v.array->elem.kind == ElemShape::Kind::Boxed && v.array->elem.ad;
}

// Writes v into the (uniquely owned) array's region; `outer` is the shape
// bounds are reported against.
void write_region(ArrayValue& a, const std::vector<IndexValue>& idx, const Value& v,
                  const std::vector<int64_t>& outer) {
  size_t m = idx.size();
  bool element = is_element_index(a, idx);
  Region r = plan_region(a.shape, idx, outer);
  switch (a.elem.kind) {
    case ElemShape::Kind::Prim: {
      if (carries_ad(v)) {
        // A derivative-carrying scalar written into a plain float array
        // (inside jvp/vjp): the array becomes boxed, then takes the write.
        a = *box_scalars(a);
        write_region(a, idx, v, outer);
        return;
      }
      Prim p = a.buffer->elem();
      size_t width = size_t(prim_bytes(p));
      std::byte* base = a.buffer->host_mut() + size_t(a.offset) * width;
      if (element) {
        if (v.kind != Value::Kind::Scalar) update_shape_mismatch(v, {});
        store_scalar(base + size_t(r.base) * width, v.scalar.type == p ? v.scalar : v.scalar.convert_to(p));
        return;
      }
      std::vector<int64_t> want = result_shape(r, a.shape, m);
      if (v.kind != Value::Kind::Array || v.array->shape != want) update_shape_mismatch(v, want);
      const ArrayValue& src = *v.array;
      if (src.elem.kind != ElemShape::Kind::Prim || src.buffer->elem() != p)
        throw Error(ErrorKind::Internal, "update with a value of another element type");
      const std::byte* from = src.buffer->host() + size_t(src.offset) * width;
      size_t block = size_t(r.unit) * width;
      r.for_each_block([&](int64_t pos, int64_t k) { std::memmove(base + size_t(pos) * block, from + size_t(k) * block, block); });
      return;
    }
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record: {
      if (!element) {
        std::vector<int64_t> want = result_shape(r, a.shape, m);
        if (v.kind != Value::Kind::Array || v.array->shape != want) update_shape_mismatch(v, want);
      } else if (!v.elems || v.elems->size() != a.components.size()) {
        throw Error(ErrorKind::Internal, "update of a tuple element with a value of another structure");
      }
      for (size_t c = 0; c < a.components.size(); ++c) {
        Value part = element ? (*v.elems)[c] : Value::make_array(v.array->components.at(c));
        write_region(const_cast<ArrayValue&>(*a.components[c]), idx, part, outer);
        a.elem.children[c] = a.components[c]->elem;  // a component may have become boxed
      }
      return;
    }
    case ElemShape::Kind::Boxed: {
      auto& values = const_cast<std::vector<Value>&>(*a.boxed);
      if (element) {
        values[size_t(a.offset + r.base)] = v;
        return;
      }
      std::vector<int64_t> want = result_shape(r, a.shape, m);
      if (v.kind != Value::Kind::Array || v.array->shape != want) update_shape_mismatch(v, want);
      ArrayPtr boxed_src = v.array;
      if (a.elem.ad && v.array->elem.kind == ElemShape::Kind::Prim) boxed_src = box_scalars(*v.array);
      const ArrayValue& src = *boxed_src;
      r.for_each_block([&](int64_t pos, int64_t k) {
        for (int64_t j = 0; j < r.unit; ++j)
          values[size_t(a.offset + pos * r.unit + j)] = (*src.boxed)[size_t(src.offset + k * r.unit + j)];
      });
      return;
    }
  }
}

}  // namespace

Value update_array(Value a, const std::vector<IndexValue>& idx, const Value& v) {
  if (a.kind != Value::Kind::Array) throw Error(ErrorKind::Internal, "in-place update of a non-array");
  // Check bounds before copying anything.
  plan_region(a.array->shape, idx, a.array->shape);
  if (!(a.array.use_count() == 1 && storage_unique(*a.array))) a = Value::make_array(copy_array(*a.array));
  auto& arr = const_cast<ArrayValue&>(*a.array);
  write_region(arr, idx, v, arr.shape);
  return a;
}

}  // namespace thorn::eval
