#include "interp/core/value.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <numeric>

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <fmt/format.h>

#include "interp/core/ad_value.hpp"
#include "interp/core/value_ad.hpp"
#include "interp/util/error.hpp"
#include "interp/util/resources.hpp"

namespace thorn {

// ------------------------------------------------------------------ Buffer

namespace {
// Buffers are 64-byte aligned (cache lines, and what vectorised host kernels
// and pinned-transfer paths like), and never null, even when empty, so that
// data<T>() is always a valid pointer.
constexpr size_t kAlign = 64;
size_t padded_bytes(size_t bytes) { return std::max<size_t>(kAlign, (bytes + kAlign - 1) / kAlign * kAlign); }

// Large buffers ask for transparent huge pages, as NumPy does for its arrays:
// first touching an 800 MB buffer otherwise takes 200,000 page faults, more
// time than a pass over it. (Only advice: without THP nothing changes.)
void advise_huge_pages(std::byte* p, size_t bytes) {
#ifdef __linux__
  constexpr uintptr_t kPage = 4096;
  if (bytes < (size_t(4) << 20)) return;
  uintptr_t a = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  uintptr_t e = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPage - 1);
  if (e > a) madvise(reinterpret_cast<void*>(a), e - a, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}
}  // namespace

// Checks the request first (OutOfMemory names the size and what is
// available), then turns a failure of the allocation itself into the same
// error; live buffer bytes are booked for THORN_MEMORY_LIMIT.
static std::byte* allocate_host(Prim elem, int64_t count, size_t n) {
  check_allocation(count, prim_bytes(elem), prim_name(elem));
  void* p = nullptr;
  try {
    p = ::operator new(n, std::align_val_t(kAlign));
  } catch (const std::bad_alloc&) {
    throw out_of_memory_error(Loc{}, n);
  }
  note_allocated(n);
  return static_cast<std::byte*>(p);
}

Buffer::Buffer(Prim elem, int64_t count) : elem_(elem), count_(count) {
  if (count < 0) throw Error(ErrorKind::Internal, fmt::format("negative buffer size {}", count));
  size_t n = padded_bytes(bytes());
  host_ = allocate_host(elem, count, n);
  advise_huge_pages(host_, n);
  std::memset(host_, 0, n);
}

Buffer::Buffer(Prim elem, int64_t count, NoInit) : elem_(elem), count_(count) {
  if (count < 0) throw Error(ErrorKind::Internal, fmt::format("negative buffer size {}", count));
  host_ = allocate_host(elem, count, padded_bytes(bytes()));
  advise_huge_pages(host_, bytes());
}

Buffer::~Buffer() {
  note_released(padded_bytes(bytes()));
  ::operator delete(host_, std::align_val_t(kAlign));
}

std::byte* Buffer::current_host() {
  if (!host_valid && device) {
    // Not thread-safe by design: residency changes happen on the thread that
    // drives evaluation; worker threads only touch buffers already on the host.
    // `side` keeps the device side alive through the download (a delayed
    // producer's leaves may let go of it meanwhile).
    std::shared_ptr<DeviceSide> side = device;
    side->download(host_, bytes());
    host_valid = true;
  }
  return host_;
}

// ------------------------------------------------------------------ scalars in memory

Scalar load_scalar(Prim p, const std::byte* at) {
  switch (p) {
    case Prim::Bool: return Scalar::boolean(*reinterpret_cast<const uint8_t*>(at) != 0);
    case Prim::I8: { int8_t v; std::memcpy(&v, at, 1); return Scalar::signed_int(p, v); }
    case Prim::I16: { int16_t v; std::memcpy(&v, at, 2); return Scalar::signed_int(p, v); }
    case Prim::I32: { int32_t v; std::memcpy(&v, at, 4); return Scalar::signed_int(p, v); }
    case Prim::I64: { int64_t v; std::memcpy(&v, at, 8); return Scalar::signed_int(p, v); }
    case Prim::U8: { uint8_t v; std::memcpy(&v, at, 1); return Scalar::unsigned_int(p, v); }
    case Prim::U16: { uint16_t v; std::memcpy(&v, at, 2); return Scalar::unsigned_int(p, v); }
    case Prim::U32: { uint32_t v; std::memcpy(&v, at, 4); return Scalar::unsigned_int(p, v); }
    case Prim::U64: { uint64_t v; std::memcpy(&v, at, 8); return Scalar::unsigned_int(p, v); }
    case Prim::F16: {
      uint16_t bits;
      std::memcpy(&bits, at, 2);
      Scalar s;
      s.type = Prim::F16;
      s.f = f16_from_bits(bits);
      return s;
    }
    case Prim::F32: {
      float v;
      std::memcpy(&v, at, 4);
      Scalar s;
      s.type = Prim::F32;
      s.f = v;
      return s;
    }
    case Prim::F64: {
      double v;
      std::memcpy(&v, at, 8);
      Scalar s;
      s.type = Prim::F64;
      s.f = v;
      return s;
    }
  }
  return Scalar();
}

void store_scalar(std::byte* at, const Scalar& s) {
  switch (s.type) {
    case Prim::Bool: { uint8_t v = s.b ? 1 : 0; std::memcpy(at, &v, 1); break; }
    case Prim::I8: case Prim::U8: { uint8_t v = uint8_t(s.u); std::memcpy(at, &v, 1); break; }
    case Prim::I16: case Prim::U16: { uint16_t v = uint16_t(s.u); std::memcpy(at, &v, 2); break; }
    case Prim::I32: case Prim::U32: { uint32_t v = uint32_t(s.u); std::memcpy(at, &v, 4); break; }
    case Prim::I64: case Prim::U64: std::memcpy(at, &s.u, 8); break;
    case Prim::F16: { uint16_t v = f16_bits(s.f); std::memcpy(at, &v, 2); break; }
    case Prim::F32: { float v = float(s.f); std::memcpy(at, &v, 4); break; }
    case Prim::F64: std::memcpy(at, &s.f, 8); break;
  }
}

// ------------------------------------------------------------------ Value

bool record_field_less(const std::string& a, const std::string& b) {
  // The order of Type's record fields (type.hpp's field_less, which lives in
  // a library this one cannot depend on): numeric names first, numerically.
  auto numeric = [](const std::string& s) {
    if (s.empty() || s.size() > 9) return false;
    for (char c : s)
      if (c < '0' || c > '9') return false;
    return true;
  };
  bool na = numeric(a), nb = numeric(b);
  if (na && nb) return std::stol(a) < std::stol(b);
  if (na || nb) return na;
  return a < b;
}

Value Value::make_array(ArrayPtr a) {
  Value v;
  v.kind = Kind::Array;
  v.array = std::move(a);
  return v;
}

Value Value::tuple(std::vector<Value> elems) {
  if (elems.size() == 1) return std::move(elems[0]);
  Value v;
  v.kind = Kind::Tuple;
  v.elems = std::make_shared<const std::vector<Value>>(std::move(elems));
  return v;
}

Value Value::record(std::vector<std::pair<std::string, Value>> fields) {
  std::sort(fields.begin(), fields.end(),
            [](const auto& a, const auto& b) { return record_field_less(a.first, b.first); });
  std::vector<Value> values;
  std::vector<std::string> names;
  values.reserve(fields.size());
  names.reserve(fields.size());
  for (auto& [name, value] : fields) {
    names.push_back(std::move(name));
    values.push_back(std::move(value));
  }
  Value v;
  v.kind = Kind::Record;
  v.elems = std::make_shared<const std::vector<Value>>(std::move(values));
  v.names = std::make_shared<const std::vector<std::string>>(std::move(names));
  return v;
}

Value Value::sum(std::string constructor, std::vector<Value> payload) {
  Value v;
  v.kind = Kind::Sum;
  v.elems = std::make_shared<const std::vector<Value>>(std::move(payload));
  v.names = std::make_shared<const std::vector<std::string>>(std::vector<std::string>{std::move(constructor)});
  return v;
}

Value Value::differentiable(ADPtr a) {
  Value v;
  v.kind = Kind::AD;
  if (a->prim == Prim::Bool) {
    // A boolean with a tangent (forward mode: Futhark gives booleans
    // tangents too) still decides branches: `scalar` holds its innermost
    // primal, so code that reads a condition's `scalar.b` needs no change.
    const Value* p = &a->primal;
    while (p->kind == Kind::AD) p = &p->ad->primal;
    v.scalar = p->scalar;
  }
  v.ad = std::move(a);
  return v;
}

Value Value::function(CallablePtr f) {
  Value v;
  v.kind = Kind::Function;
  v.fn = std::move(f);
  return v;
}

const Value* Value::field(const std::string& name) const {
  if (kind == Kind::Tuple) {
    if (name.empty() || name.size() > 9 || name.find_first_not_of("0123456789") != std::string::npos) return nullptr;
    size_t k = size_t(std::stoul(name));
    return elems && k < elems->size() ? &(*elems)[k] : nullptr;
  }
  if (kind != Kind::Record || !names) return nullptr;
  auto it = std::lower_bound(names->begin(), names->end(), name, record_field_less);
  if (it == names->end() || *it != name) return nullptr;
  return &(*elems)[size_t(it - names->begin())];
}

// ------------------------------------------------------------------ ArrayValue

int64_t ArrayValue::count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t ArrayValue::row_elems() const {
  int64_t n = 1;
  for (size_t k = 1; k < shape.size(); ++k) n *= shape[k];
  return n;
}

namespace {
int64_t product(const std::vector<int64_t>& shape, size_t from = 0) {
  int64_t n = 1;
  for (size_t k = from; k < shape.size(); ++k) n *= shape[k];
  return n;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out;
  for (int64_t d : shape) out += fmt::format("[{}]", d);
  return out;
}
}  // namespace

ArrayPtr make_prim_array(Prim p, std::vector<int64_t> shape) {
  auto buffer = std::make_shared<Buffer>(p, product(shape));
  return make_prim_array(std::move(buffer), std::move(shape), 0);
}

ArrayPtr make_prim_array(BufferPtr buffer, std::vector<int64_t> shape, int64_t offset) {
  auto a = std::make_shared<ArrayValue>();
  a->elem.kind = ElemShape::Kind::Prim;
  a->elem.prim = buffer->elem();
  a->shape = std::move(shape);
  a->buffer = std::move(buffer);
  a->offset = offset;
  return a;
}

ArrayPtr make_empty_array(const ElemShape& elem, std::vector<int64_t> shape) {
  switch (elem.kind) {
    case ElemShape::Kind::Prim: return make_prim_array(elem.prim, std::move(shape));
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record: {
      auto a = std::make_shared<ArrayValue>();
      a->elem = elem;
      a->shape = shape;
      for (const auto& child : elem.children) a->components.push_back(make_empty_array(child, shape));
      return a;
    }
    case ElemShape::Kind::Boxed: {
      auto a = std::make_shared<ArrayValue>();
      a->elem = elem;
      a->shape = shape;
      if (elem.ad) {  // scalars: zeros, as a primitive array would hold
        Scalar zero = is_float(elem.prim) ? Scalar::floating(elem.prim, 0.0) : Scalar::signed_int(elem.prim, 0);
        a->boxed = std::make_shared<const std::vector<Value>>(size_t(product(shape)), Value(zero));
        return a;
      }
      a->boxed = std::make_shared<const std::vector<Value>>(size_t(product(shape)));
      return a;
    }
  }
  return nullptr;
}

ElemShape elem_shape_of(const Value& v) {
  ElemShape e;
  switch (v.kind) {
    case Value::Kind::Scalar:
      e.kind = ElemShape::Kind::Prim;
      e.prim = v.scalar.type;
      break;
    case Value::Kind::Array: return v.array->elem;
    case Value::Kind::Tuple:
      e.kind = ElemShape::Kind::Tuple;
      for (const auto& x : *v.elems) e.children.push_back(elem_shape_of(x));
      break;
    case Value::Kind::Record:
      e.kind = ElemShape::Kind::Record;
      for (const auto& x : *v.elems) e.children.push_back(elem_shape_of(x));
      e.names = *v.names;
      break;
    case Value::Kind::Sum:
    case Value::Kind::Function: e.kind = ElemShape::Kind::Boxed; break;
    case Value::Kind::AD:
      e.kind = ElemShape::Kind::Boxed;
      e.ad = true;
      e.prim = ad_scalar(v).type;
      break;
  }
  return e;
}

int64_t array_length(const Value& v) { return v.kind == Value::Kind::Array ? v.array->outer() : 0; }

Scalar prim_element(const ArrayValue& a, int64_t flat) {
  Prim p = a.buffer->elem();
  return load_scalar(p, a.buffer->host() + size_t(a.offset + flat) * size_t(prim_bytes(p)));
}

Value array_row(const ArrayValue& a, int64_t i) {
  std::vector<int64_t> row_shape(a.shape.begin() + 1, a.shape.end());
  switch (a.elem.kind) {
    case ElemShape::Kind::Prim:
      if (a.shape.size() == 1) return Value(prim_element(a, i));
      return Value::make_array(make_prim_array(a.buffer, std::move(row_shape), a.offset + i * a.row_elems()));
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record: {
      if (a.shape.size() == 1) {
        std::vector<Value> fields;
        fields.reserve(a.components.size());
        for (const auto& c : a.components) fields.push_back(array_row(*c, i));
        if (a.elem.kind == ElemShape::Kind::Tuple) {
          // Value::tuple collapses one-element tuples, which never occur here.
          Value t;
          t.kind = Value::Kind::Tuple;
          t.elems = std::make_shared<const std::vector<Value>>(std::move(fields));
          return t;
        }
        Value r;
        r.kind = Value::Kind::Record;
        r.elems = std::make_shared<const std::vector<Value>>(std::move(fields));
        r.names = std::make_shared<const std::vector<std::string>>(a.elem.names);
        return r;
      }
      auto row = std::make_shared<ArrayValue>();
      row->shape = row_shape;
      row->elem = a.elem;
      for (const auto& c : a.components) row->components.push_back(array_row(*c, i).array);
      return Value::make_array(std::move(row));
    }
    case ElemShape::Kind::Boxed: {
      if (a.shape.size() == 1) return (*a.boxed)[size_t(a.offset + i)];
      auto row = std::make_shared<ArrayValue>();
      row->shape = std::move(row_shape);
      row->elem = a.elem;
      row->boxed = a.boxed;
      row->offset = a.offset + i * a.row_elems();
      return Value::make_array(std::move(row));
    }
  }
  return Value();
}

ArrayPtr copy_array(const ArrayValue& a) {
  auto out = std::make_shared<ArrayValue>();
  out->shape = a.shape;
  out->elem = a.elem;
  switch (a.elem.kind) {
    case ElemShape::Kind::Prim: {
      int64_t n = a.count();
      auto buffer = std::make_shared<Buffer>(a.buffer->elem(), n);
      size_t width = size_t(prim_bytes(a.buffer->elem()));
      if (n > 0) std::memcpy(buffer->host_mut(), a.buffer->host() + size_t(a.offset) * width, size_t(n) * width);
      out->buffer = std::move(buffer);
      break;
    }
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record:
      for (const auto& c : a.components) out->components.push_back(copy_array(*c));
      break;
    case ElemShape::Kind::Boxed: {
      auto first = a.boxed->begin() + a.offset;
      out->boxed = std::make_shared<const std::vector<Value>>(first, first + a.count());
      break;
    }
  }
  return out;
}

// ------------------------------------------------------------------ building from rows

namespace {
[[noreturn]] void irregular(const std::string& what) {
  throw Error(ErrorKind::Runtime, fmt::format("Array literal is irregular: {}.", what));
}

// Rows that are arrays themselves: the result has one more outer dimension.
Value stack_arrays(const std::vector<Value>& rows) {
  for (const auto& r : rows)
    if (r.kind != Value::Kind::Array) irregular("rows of different kinds");
  if (rows_mix_ad_scalars(rows)) return stack_arrays(box_rows(rows));
  const ArrayValue& first = *rows[0].array;
  for (const auto& r : rows) {
    if (r.array->shape != first.shape)
      irregular(fmt::format("rows of shapes {} and {}", shape_text(first.shape), shape_text(r.array->shape)));
    if (r.array->elem.kind != first.elem.kind) irregular("rows of different element kinds");
  }
  std::vector<int64_t> shape;
  shape.push_back(int64_t(rows.size()));
  shape.insert(shape.end(), first.shape.begin(), first.shape.end());
  switch (first.elem.kind) {
    case ElemShape::Kind::Prim: {
      Prim p = first.buffer->elem();
      int64_t per = first.count();
      auto out = make_prim_array(p, shape);
      size_t width = size_t(prim_bytes(p));
      std::byte* dst = out->buffer->host_mut();
      for (size_t k = 0; k < rows.size(); ++k) {
        const ArrayValue& r = *rows[k].array;
        if (r.buffer->elem() != p) irregular("rows of different element types");
        if (per > 0)
          std::memcpy(dst + size_t(k) * size_t(per) * width, r.buffer->host() + size_t(r.offset) * width,
                      size_t(per) * width);
      }
      return Value::make_array(out);
    }
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record: {
      auto out = std::make_shared<ArrayValue>();
      out->shape = shape;
      out->elem = first.elem;
      for (size_t c = 0; c < first.components.size(); ++c) {
        std::vector<Value> parts;
        parts.reserve(rows.size());
        for (const auto& r : rows) parts.push_back(Value::make_array(r.array->components.at(c)));
        out->components.push_back(stack_arrays(parts).array);
      }
      return Value::make_array(std::move(out));
    }
    case ElemShape::Kind::Boxed: {
      auto values = std::make_shared<std::vector<Value>>();
      int64_t per = first.count();
      values->reserve(size_t(per) * rows.size());
      for (const auto& r : rows) {
        auto from = r.array->boxed->begin() + r.array->offset;
        values->insert(values->end(), from, from + per);
      }
      auto out = std::make_shared<ArrayValue>();
      out->shape = shape;
      out->elem = first.elem;
      out->boxed = std::move(values);
      return Value::make_array(std::move(out));
    }
  }
  return Value();
}
}  // namespace

Value array_from_rows(const std::vector<Value>& rows, const ElemShape* elem_hint) {
  if (rows.empty()) {
    ElemShape fallback;  // i32 when nothing is known; callers with types pass a hint
    return Value::make_array(make_empty_array(elem_hint ? *elem_hint : fallback, {0}));
  }
  const Value& first = rows[0];
  int64_t n = int64_t(rows.size());
  switch (first.kind) {
    case Value::Kind::AD:
    case Value::Kind::Scalar: {
      if (scalar_rows_carry_ad(rows)) {
        auto out = std::make_shared<ArrayValue>();
        out->shape = {n};
        out->elem.kind = ElemShape::Kind::Boxed;
        out->elem.ad = true;
        out->elem.prim = ad_scalar(first).type;
        out->boxed = std::make_shared<const std::vector<Value>>(rows);
        return Value::make_array(std::move(out));
      }
      Prim p = first.scalar.type;
      auto out = make_prim_array(p, {n});
      std::byte* dst = out->buffer->host_mut();
      size_t width = size_t(prim_bytes(p));
      for (int64_t k = 0; k < n; ++k) {
        const Value& r = rows[size_t(k)];
        if (r.kind != Value::Kind::Scalar || r.scalar.type != p) irregular("elements of different types");
        store_scalar(dst + size_t(k) * width, r.scalar);
      }
      return Value::make_array(out);
    }
    case Value::Kind::Array: return stack_arrays(rows);
    case Value::Kind::Tuple:
    case Value::Kind::Record: {
      auto out = std::make_shared<ArrayValue>();
      out->shape = {n};
      out->elem.kind = first.kind == Value::Kind::Tuple ? ElemShape::Kind::Tuple : ElemShape::Kind::Record;
      if (first.names) out->elem.names = *first.names;
      size_t width = first.elems->size();
      for (size_t c = 0; c < width; ++c) {
        std::vector<Value> parts;
        parts.reserve(rows.size());
        for (const auto& r : rows) {
          if (r.kind != first.kind || r.elems->size() != width) irregular("elements of different structure");
          parts.push_back((*r.elems)[c]);
        }
        Value column = array_from_rows(parts);
        out->elem.children.push_back(column.array->elem);
        out->components.push_back(column.array);
      }
      return Value::make_array(std::move(out));
    }
    case Value::Kind::Sum:
    case Value::Kind::Function: {
      auto out = std::make_shared<ArrayValue>();
      out->shape = {n};
      out->elem.kind = ElemShape::Kind::Boxed;
      out->boxed = std::make_shared<const std::vector<Value>>(rows);
      return Value::make_array(std::move(out));
    }
  }
  return Value();
}

}  // namespace thorn
