// Arrays of sum types as columns (see sum_columns.hpp).
#include "interp/flatten/sum_columns.hpp"

#include <algorithm>
#include <set>

#include "interp/util/error.hpp"
#include "interp/flatten/elem_tree.hpp"

namespace thorn::flatten {

namespace {

size_t prim_width(Prim p) { return size_t(prim_bytes(p)); }

// Component j of each row (null where the row is null or has no such component).
std::vector<const Value*> field_rows(const std::vector<const Value*>& rows, size_t j) {
  std::vector<const Value*> out(rows.size(), nullptr);
  for (size_t k = 0; k < rows.size(); ++k)
    if (rows[k] && rows[k]->elems && j < rows[k]->elems->size()) out[k] = &(*rows[k]->elems)[j];
  return out;
}

}  // namespace

std::optional<Columns> columns_of(const std::vector<const Value*>& rows, std::string& why) {
  const Value* first = nullptr;
  for (const Value* r : rows)
    if (r) {
      first = r;
      break;
    }
  if (!first) {
    why = "a sum payload no element holds";
    return std::nullopt;
  }
  for (const Value* r : rows)
    if (r && r->kind != first->kind) {
      why = "arrays of sum types whose elements differ in structure";
      return std::nullopt;
    }
  Columns c;
  const size_t n = rows.size();
  switch (first->kind) {
    case Value::Kind::Scalar: {
      c.kind = Columns::Kind::Prim;
      c.prim = first->scalar.type;
      c.column = std::make_shared<Buffer>(c.prim, int64_t(n));
      std::byte* out = c.column->host_mut();
      for (size_t k = 0; k < n; ++k) {
        if (!rows[k]) continue;
        if (rows[k]->scalar.type != c.prim) {
          why = "arrays of sum types whose elements differ in structure";
          return std::nullopt;
        }
        store_scalar(out + k * prim_width(c.prim), rows[k]->scalar);
      }
      return c;
    }
    case Value::Kind::Tuple:
    case Value::Kind::Record: {
      c.kind = first->kind == Value::Kind::Tuple ? Columns::Kind::Tuple : Columns::Kind::Record;
      if (first->names) c.names = *first->names;
      const size_t m = first->elems ? first->elems->size() : 0;
      for (const Value* r : rows)
        if (r && (r->elems ? r->elems->size() : 0) != m) {
          why = "arrays of sum types whose elements differ in structure";
          return std::nullopt;
        }
      for (size_t j = 0; j < m; ++j) {
        auto f = columns_of(field_rows(rows, j), why);
        if (!f) return std::nullopt;
        c.children.push_back(std::move(*f));
      }
      return c;
    }
    case Value::Kind::Sum: {
      c.kind = Columns::Kind::Sum;
      std::set<std::string> held;
      for (const Value* r : rows)
        if (r) held.insert(r->constructor());
      c.names.assign(held.begin(), held.end());
      c.column = std::make_shared<Buffer>(Prim::I32, int64_t(n));
      std::byte* tags = c.column->host_mut();
      for (size_t k = 0; k < n; ++k) {
        if (!rows[k]) continue;
        auto at = std::lower_bound(c.names.begin(), c.names.end(), rows[k]->constructor());
        store_scalar(tags + k * 4, Scalar::i32(int32_t(at - c.names.begin())));
      }
      for (const std::string& name : c.names) {
        std::vector<const Value*> holders(n, nullptr);
        size_t arity = 0;
        for (size_t k = 0; k < n; ++k)
          if (rows[k] && rows[k]->constructor() == name) {
            holders[k] = rows[k];
            arity = rows[k]->elems ? rows[k]->elems->size() : 0;
          }
        Columns payload;
        payload.kind = Columns::Kind::Tuple;
        for (size_t j = 0; j < arity; ++j) {
          auto f = columns_of(field_rows(holders, j), why);
          if (!f) return std::nullopt;
          payload.children.push_back(std::move(*f));
        }
        c.children.push_back(std::move(payload));
      }
      return c;
    }
    default: why = "arrays of sum types with array or function payloads"; return std::nullopt;
  }
}

bool has_sum(const Sym& like) {
  if (like.kind == Sym::Kind::Sum) return true;
  for (const Sym& e : like.elems)
    if (has_sum(e)) return true;
  return false;
}

namespace {

size_t leaf_count(const Sym& like) {
  if (like.kind == Sym::Kind::Scalar) return 1;
  size_t n = 0;
  for (const Sym& e : like.elems) n += leaf_count(e);
  return n;
}

// Element k of a value shaped like `like` from its leaves' buffers at bufs[pos...].
Value element_at(const Sym& like, const std::vector<BufferPtr>& bufs, size_t& pos, int64_t k) {
  switch (like.kind) {
    case Sym::Kind::Scalar: {
      const BufferPtr& b = bufs.at(pos++);
      return Value(load_scalar(b->elem(), b->host() + size_t(k) * prim_width(b->elem())));
    }
    case Sym::Kind::Sum: {
      const size_t end = pos + leaf_count(like);
      Value tag = element_at(like.elems.at(0), bufs, pos, k);
      const int64_t t = tag.scalar.as_i64();
      Value out;
      for (size_t c = 0; c + 1 < like.elems.size(); ++c) {
        const Sym& payload = like.elems[1 + c];
        if (int64_t(c) != t) {
          pos += leaf_count(payload);
          continue;
        }
        std::vector<Value> xs;
        for (const Sym& p : payload.elems) xs.push_back(element_at(p, bufs, pos, k));
        out = Value::sum((*like.names).at(c), std::move(xs));
      }
      if (out.kind != Value::Kind::Sum) throw Error(ErrorKind::Internal, "a sum result with a tag out of range");
      pos = end;
      return out;
    }
    case Sym::Kind::Tuple:
    case Sym::Kind::Record: {
      std::vector<Value> xs;
      for (const Sym& e : like.elems) xs.push_back(element_at(e, bufs, pos, k));
      if (like.kind == Sym::Kind::Tuple) return Value::tuple(std::move(xs));
      std::vector<std::pair<std::string, Value>> fields;
      for (size_t j = 0; j < xs.size(); ++j) fields.emplace_back((*like.names)[j], std::move(xs[j]));
      return Value::record(std::move(fields));
    }
    default: throw Error(ErrorKind::Internal, "a result that is not made of scalars, tuples, records and sums");
  }
}

}  // namespace

ArrayPtr array_with_sums(const Sym& like, const std::vector<BufferPtr>& bufs, size_t& pos,
                         const std::vector<int64_t>& shape) {
  if (!has_sum(like)) {
    std::vector<ArrayPtr> leaves;
    const size_t n = leaf_count(like);
    for (size_t k = 0; k < n; ++k) leaves.push_back(make_prim_array(bufs.at(pos + k), shape));
    size_t at = 0;
    pos += n;
    return nest_leaves(elem_shape_of_sym(like), leaves, at, shape);
  }
  auto a = std::make_shared<ArrayValue>();
  a->shape = shape;
  if (like.kind == Sym::Kind::Sum) {
    // Boxed: a Value per element, as the evaluator builds arrays of sums.
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    auto boxed = std::make_shared<std::vector<Value>>();
    boxed->reserve(size_t(count));
    for (int64_t k = 0; k < count; ++k) {
      size_t p = pos;
      boxed->push_back(element_at(like, bufs, p, k));
    }
    pos += leaf_count(like);
    a->elem.kind = ElemShape::Kind::Boxed;
    a->boxed = std::move(boxed);
    return a;
  }
  // A tuple or record with a sum in it: one component per field.
  a->elem.kind = like.kind == Sym::Kind::Record ? ElemShape::Kind::Record : ElemShape::Kind::Tuple;
  if (like.names) a->elem.names = *like.names;
  for (const Sym& e : like.elems) {
    ArrayPtr c = array_with_sums(e, bufs, pos, shape);
    a->elem.children.push_back(c->elem);
    a->components.push_back(std::move(c));
  }
  return a;
}

}  // namespace thorn::flatten
