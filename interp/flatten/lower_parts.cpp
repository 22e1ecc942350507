// Arrays whose elements hold arrays or sums, part by part (see SymArr::parts).
//
// A private array of `(i64, [b]u8)` (diku-dk/sorts' merge sort over string
// keys) or of a sum type (futhark-btree's child pointers) cannot be one
// kir::LocalArray per scalar leaf: its leaves have different shapes, and a
// sum's layout is a tag beside every constructor's payload. As Futhark's
// core language does, such an array is unzipped into one array per leaf of
// its element (a scalar, or an array of the element), each stored, updated
// and carried through loops as any other; the array itself is a generator
// that zips the parts' elements back.
#include <fmt/format.h>

#include "interp/flatten/lower.hpp"

namespace thorn::flatten {

using kir::Reg;

namespace {

bool is_node(const Sym& s) {
  return s.kind == Sym::Kind::Tuple || s.kind == Sym::Kind::Record || s.kind == Sym::Kind::Sum;
}

bool holds_array_or_sum(const Sym& s) {
  if (s.kind == Sym::Kind::Array || s.kind == Sym::Kind::Sum) return true;
  if (!is_node(s)) return false;
  for (const Sym& e : s.elems)
    if (holds_array_or_sum(e)) return true;
  return false;
}

// The paths (element indices from the root) of like's leaves, depth first.
void leaf_paths(const Sym& like, std::vector<size_t>& path, std::vector<std::vector<size_t>>& out) {
  if (like.kind == Sym::Kind::Function || like.kind == Sym::Kind::Soac)
    throw Fallback("arrays of functions inside a mapped function");
  if (!is_node(like)) {
    out.push_back(path);
    return;
  }
  for (size_t k = 0; k < like.elems.size(); ++k) {
    path.push_back(k);
    leaf_paths(like.elems[k], path, out);
    path.pop_back();
  }
}

// Whether v can be laid out as like: the same structure, and like's sums
// hold every constructor v's may.
bool fits_layout(const Sym& v, const Sym& like) {
  if (v.kind != like.kind) return false;
  if (!is_node(v)) return true;
  if (v.kind == Sym::Kind::Sum) {
    if (!v.names || !like.names) return false;
    for (size_t k = 0; k < v.names->size(); ++k) {
      int j = like.constructor_index((*v.names)[k]);
      if (j < 0 || !fits_layout(v.elems.at(1 + k), like.elems.at(1 + size_t(j)))) return false;
    }
    return true;
  }
  if (v.elems.size() != like.elems.size()) return false;
  if (v.kind == Sym::Kind::Record && (!v.names || !like.names || *v.names != *like.names)) return false;
  for (size_t k = 0; k < v.elems.size(); ++k)
    if (!fits_layout(v.elems[k], like.elems[k])) return false;
  return true;
}

// The leaves of v, an element laid out as like.
std::vector<Sym> element_leaves(const Sym& v, const Sym& like) {
  if (!same_layout(v, like)) throw Fallback("elements of one private array with different layouts");
  std::vector<std::vector<size_t>> paths;
  std::vector<size_t> path;
  leaf_paths(like, path, paths);
  std::vector<Sym> out;
  for (const auto& p : paths) {
    const Sym* cur = &v;
    for (size_t k : p) cur = &cur->elems[k];
    out.push_back(*cur);
  }
  return out;
}

// An element laid out as like from its leaves (leaves[pos...]).
Sym from_leaves(const Sym& like, const std::vector<Sym>& leaves, size_t& pos) {
  if (!is_node(like)) return leaves.at(pos++);
  Sym s;
  s.kind = like.kind;
  s.names = like.names;
  for (const Sym& e : like.elems) s.elems.push_back(from_leaves(e, leaves, pos));
  return s;
}

}  // namespace

bool same_layout(const Sym& a, const Sym& b) {
  if (a.kind != b.kind) return false;
  if (!is_node(a)) return true;
  if (a.elems.size() != b.elems.size()) return false;
  if (a.kind != Sym::Kind::Tuple && (!a.names || !b.names || *a.names != *b.names)) return false;
  for (size_t k = 0; k < a.elems.size(); ++k)
    if (!same_layout(a.elems[k], b.elems[k])) return false;
  return true;
}

Sym Lowerer::laid_out(const Sym& v, const Sym& like) {
  if (same_layout(v, like)) return v;
  // Sums read from a boxed array hold only the constructors found there.
  if (!fits_layout(v, like)) throw Fallback("elements of one private array with different layouts");
  return conform_sums(v, like);
}

Sym Lowerer::widened(const Sym& like, const Sym& v) const {
  if (fits_layout(v, like)) return like;
  std::optional<Sym> u = sum_union(like, v);
  if (!u) throw Fallback("elements of one private array with different layouts");
  return *u;
}

Sym Lowerer::materialise_as(const Sym& arr, const Sym& like, const Loc& loc) {
  std::vector<Sym> parts = unzip_parts(arr, like, loc);
  for (Sym& p : parts) p = materialise(p, loc);
  return zip_parts(like, std::move(parts), arr.arr->dims, arr.arr->len);
}

std::optional<Sym> Lowerer::parts_layout(const Sym& arr, const Loc& loc) {
  if (arr.kind != Sym::Kind::Array) return std::nullopt;
  if (!arr.arr->parts.empty()) return *arr.arr->like;
  Sym like = element_like(arr, loc);
  if (!holds_array_or_sum(like)) return std::nullopt;
  return like;
}

Sym Lowerer::zip_parts(const Sym& like, std::vector<Sym> parts, std::vector<int64_t> dims, Reg len) {
  auto arr = std::make_shared<SymArr>();
  arr->dims = dims;
  arr->len = len;
  arr->like = std::make_shared<const Sym>(like);
  arr->parts = parts;
  Lowerer* self = this;
  arr->gen = [self, like, parts, dims](Reg i) -> Sym {
    std::vector<Sym> xs;
    for (const Sym& p : parts) xs.push_back(self->index(p, i, Loc{}, false));
    if (dims.size() > 1) return self->zip_parts(like, std::move(xs), std::vector<int64_t>(dims.begin() + 1, dims.end()));
    size_t pos = 0;
    return from_leaves(like, xs, pos);
  };
  return array_sym(arr);
}

Sym Lowerer::leaf_part(const Sym& a, const std::vector<size_t>& path, const Sym& like, std::vector<int64_t> dims,
                       size_t outer, const Loc& loc) {
  auto out = std::make_shared<SymArr>();
  out->dims = dims;
  out->len = a.arr->len;
  Lowerer* self = this;
  out->gen = [self, a, path, like, dims, outer, loc](Reg i) -> Sym {
    Sym e = self->index(a, i, loc, false);
    if (outer > 1)
      return self->leaf_part(e, path, like, std::vector<int64_t>(dims.begin() + 1, dims.end()), outer - 1, loc);
    e = self->laid_out(e, like);
    const Sym* cur = &e;
    for (size_t j : path) cur = &cur->elems[j];
    return *cur;
  };
  return array_sym(out);
}

std::vector<Sym> Lowerer::unzip_parts(const Sym& arr, const Sym& like, const Loc& loc) {
  if (!arr.arr->parts.empty() && same_layout(*arr.arr->like, like)) return arr.arr->parts;
  if (!arr.arr->inner_len.empty())
    throw Fallback("arrays of tuples holding arrays whose length depends on the element");
  std::vector<std::vector<size_t>> paths;
  std::vector<size_t> path;
  leaf_paths(like, path, paths);
  std::vector<Sym> probe = element_leaves(laid_out(element_like(arr, loc), like), like);
  std::vector<Sym> parts;
  for (size_t k = 0; k < paths.size(); ++k) {
    std::vector<int64_t> dims = arr.arr->dims;
    if (probe[k].kind == Sym::Kind::Array) {
      if (dynamic(probe[k])) throw Fallback("arrays of tuples holding arrays whose length depends on the element");
      dims.insert(dims.end(), probe[k].arr->dims.begin(), probe[k].arr->dims.end());
    }
    parts.push_back(leaf_part(arr, paths[k], like, dims, arr.arr->dims.size(), loc));
  }
  return parts;
}

Sym Lowerer::in_parts(const Sym& v, const Loc& loc) {
  if (is_node(v)) {
    Sym r = v;
    for (Sym& e : r.elems) e = in_parts(e, loc);
    return r;
  }
  if (v.kind != Sym::Kind::Array || !v.arr->parts.empty()) return v;
  std::optional<Sym> like = parts_layout(v, loc);
  if (!like) return v;
  std::vector<Sym> parts = unzip_parts(v, *like, loc);
  for (Sym& p : parts) p = in_parts(p, loc);
  return zip_parts(*like, std::move(parts), v.arr->dims, v.arr->len);
}

void Lowerer::write_element(const Sym& dest, Reg at, const Sym& v, const Loc& loc) {
  const SymArr& d = *dest.arr;
  if (d.parts.empty()) {
    if (d.dims.size() == 1) write_leaves(d, at, v, "a write of a value of another type");
    else store_elements(d, at, v, 1, "a write of a value of another type", loc);
    return;
  }
  const Sym& like = *d.like;
  std::vector<Sym> values;
  if (v.kind == Sym::Kind::Array) {
    values = unzip_parts(v, like, loc);
  } else {
    values = element_leaves(laid_out(v, like), like);
  }
  for (size_t k = 0; k < d.parts.size(); ++k) write_element(d.parts[k], at, values.at(k), loc);
}

Sym Lowerer::update_parts(const Sym& arr_in, const std::vector<Reg>& idx, const Sym& v, const Loc& loc) {
  Sym arr = arr_in;
  const bool element = idx.size() == arr.arr->dims.size();
  if (!element && v.kind != Sym::Kind::Array) throw Fallback("an in-place update with an array of another shape");
  // Storage read from a boxed array of sums has only the constructors
  // found there: widened (copied) when v holds others.
  Sym like = widened(*arr.arr->like, element ? v : element_like(v, loc));
  if (!same_layout(like, *arr.arr->like)) arr = materialise_as(arr, like, loc);
  const SymArr& a = *arr.arr;
  std::vector<Sym> values = element ? element_leaves(laid_out(v, like), like) : unzip_parts(v, like, loc);
  std::vector<Sym> parts;
  for (size_t k = 0; k < a.parts.size(); ++k) parts.push_back(update_at(a.parts[k], idx, values.at(k), loc, true));
  return zip_parts(like, std::move(parts), a.dims, a.len);
}

}  // namespace thorn::flatten
