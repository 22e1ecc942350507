// Private arrays in the lowering (see lower.hpp): arrays an element creates
// and updates in place (`replicate`/`iota` then `with`, a scan inside the
// mapped function, loop state that is an array, a local histogram) are
// stored in kir::LocalArray storage of the function being built, one copy
// per running element.
//
// Views of private arrays are plain SymArr views whose leaves are marked
// `local`. In-place updates write the storage, so every view records the
// version of the storage it was made at, and a read through an older view
// (a delayed `map` over an array that was updated since) falls back rather
// than reading new values. Futhark's uniqueness rules make that rare: an
// updated array's old name is dead.
#include <fmt/format.h>

#include "interp/flatten/lower.hpp"
#include "interp/flatten/elem_tree.hpp"

namespace thorn::flatten {

using kir::Reg;

namespace {

std::string too_private(int64_t limit) {
  return fmt::format("private arrays of more than {} KiB per element", limit / 1024);
}

int64_t product(const std::vector<int64_t>& dims, size_t from = 0) {
  int64_t n = 1;
  for (size_t k = from; k < dims.size(); ++k) n *= dims[k];
  return n;
}

}  // namespace

int Lowerer::bump_version(int local) {
  if (local_version.size() <= size_t(local)) local_version.resize(size_t(local) + 1, 0);
  return ++local_version[size_t(local)];
}

Sym Lowerer::with_current_versions(const Sym& arr) {
  if (!arr.arr->parts.empty()) {
    std::vector<Sym> parts;
    for (const Sym& p : arr.arr->parts) parts.push_back(with_current_versions(p));
    return zip_parts(*arr.arr->like, std::move(parts), arr.arr->dims, arr.arr->len);
  }
  auto a = std::make_shared<SymArr>(*arr.arr);
  for (SymArr::Leaf& l : a->leaves)
    if (l.local) l.version = size_t(l.array) < local_version.size() ? local_version[size_t(l.array)] : 0;
  return array_sym(a);
}

bool Lowerer::is_private_whole(const Sym& arr) const {
  if (arr.kind == Sym::Kind::Array && !arr.arr->parts.empty()) {
    for (const Sym& p : arr.arr->parts)
      if (!is_private_whole(p)) return false;
    return true;
  }
  if (arr.kind != Sym::Kind::Array || arr.arr->gen || arr.arr->rel != kir::kNoReg) return false;
  const SymArr& a = *arr.arr;
  int64_t n = product(a.dims);
  for (const SymArr::Leaf& l : a.leaves) {
    if (!l.local || l.base != 0 || f_.locals.at(size_t(l.array)).count != n) return false;
    int cur = size_t(l.array) < local_version.size() ? local_version[size_t(l.array)] : 0;
    if (l.version != cur) return false;
  }
  return !a.leaves.empty();
}

Sym Lowerer::element_like(const Sym& arr, const Loc& loc) {
  if (arr.kind != Sym::Kind::Array) throw Fallback("expected an array");
  Sym e;
  probe_element(arr, loc, e);
  return e;
}

kir::Block Lowerer::probe_element(const Sym& arr, const Loc& loc, Sym& element) {
  return probe_block([&] {
    Sym cur = arr;
    while (cur.kind == Sym::Kind::Array) {
      Reg pi = f_.new_reg(Prim::I64);
      probe_indices.push_back(pi);
      cur = index(cur, pi, loc, false);
    }
    element = cur;
    return std::vector<Reg>{};
  });
}

kir::Block Lowerer::probe_block(const kir::Builder::BlockFn& fn, bool* made_locals) {
  size_t locals = f_.locals.size();
  // No subroutines while probing: they could use the private arrays released below.
  struct Probing {
    int& n;
    ~Probing() { --n; }
  } probing{++probing_};
  kir::Block b = b_.capture(fn);
  if (made_locals) *made_locals = f_.locals.size() > locals;
  f_.locals.resize(locals);
  if (local_version.size() > locals) local_version.resize(locals);
  return b;
}

bool Lowerer::fits_private(const Sym& arr, const Loc& loc) {
  if (arr.kind != Sym::Kind::Array || arr.arr->dims.empty() || arr.arr->dims[0] < 0) return false;
  for (int64_t d : arr.arr->dims)
    if (d < 0) return false;
  Sym like;
  try {
    like = element_like(arr, loc);
    int64_t bytes = 0;
    for (Prim p : leaf_types(like)) bytes += product(arr.arr->dims) * prim_bytes(p);
    return f_.local_bytes() + bytes <= std::min(choice_private_bytes, max_private_bytes);
  } catch (const Fallback&) {
    return false;  // elements that are not scalars or tuples of them
  }
}

Sym Lowerer::materialise(const Sym& arr, const Loc& loc) {
  if (std::optional<Sym> like = parts_layout(arr, loc)) return materialise_as(arr, *like, loc);
  Sym dst = private_storage(arr, loc);
  if (product(arr.arr->dims) > 0) copy_into(dst, arr, loc);
  return with_current_versions(dst);
}

Sym Lowerer::private_storage(const Sym& arr, const Loc& loc) {
  if (arr.kind != Sym::Kind::Array) throw Fallback("expected an array");
  if (std::optional<Sym> like = parts_layout(arr, loc)) {
    std::vector<Sym> parts = unzip_parts(arr, *like, loc);
    for (Sym& p : parts) p = private_storage(p, loc);
    return zip_parts(*like, std::move(parts), arr.arr->dims, arr.arr->len);
  }
  std::vector<int64_t> dims = arr.arr->dims;
  for (int64_t d : dims)
    if (d < 0) throw Fallback("a private copy of an array whose length depends on the element and has no bound");
  int64_t count = product(dims);
  Sym like = element_like(arr, loc);
  std::vector<Prim> prims = leaf_types(like);
  int64_t bytes = 0;
  for (Prim p : prims) bytes += count * prim_bytes(p);
  if (f_.local_bytes() + bytes > max_private_bytes)
    throw Fallback(too_private(max_private_bytes));
  auto out = std::make_shared<SymArr>();
  out->dims = dims;
  out->len = arr.arr->len;
  out->inner_len = arr.arr->inner_len;
  out->elem = elem_shape_of_sym(like);
  for (Prim p : prims) {
    int id = b_.local_array(p, count, fmt::format("l{}", f_.locals.size()));
    out->leaves.push_back({id, 0, p, true, bump_version(id)});
  }
  return array_sym(out);
}

// The private storage an array reads directly (its leaves, its parts').
static void local_leaves(const Sym& arr, std::set<int>& out) {
  for (const Sym& p : arr.arr->parts) local_leaves(p, out);
  for (const SymArr::Leaf& t : arr.arr->leaves)
    if (t.local) out.insert(int(t.array));
}

// A private array's copy must not share its storage (the copy may be
// updated): in tuples, records and sums too, and part by part.
Sym Lowerer::copy_value(const Sym& v, const Loc& loc) {
  switch (v.kind) {
    case Sym::Kind::Array: {
      std::set<int> storage;
      local_leaves(v, storage);
      return storage.empty() ? v : materialise(v, loc);
    }
    case Sym::Kind::Tuple:
    case Sym::Kind::Record:
    case Sym::Kind::Sum: {
      Sym r = v;
      for (Sym& e : r.elems) e = copy_value(e, loc);
      return r;
    }
    default: return v;
  }
}

void Lowerer::copy_into(const Sym& dst, const Sym& src, const Loc& loc) {
  const SymArr& d = *dst.arr;
  if (!d.parts.empty()) {
    if (src.kind != Sym::Kind::Array || src.arr->dims != d.dims)
      throw Fallback("copying between private arrays of different shapes");
    std::vector<Sym> from = unzip_parts(src, *d.like, loc);
    for (size_t k = 0; k < d.parts.size(); ++k) copy_into(d.parts[k], from.at(k), loc);
    return;
  }
  if (src.kind != Sym::Kind::Array || src.arr->dims != d.dims || src.arr->len != d.len ||
      src.arr->inner_len != d.inner_len)
    throw Fallback("copying between private arrays of different shapes");
  store_elements(d, kir::kNoReg, src, 0, "copying between private arrays of different element types", loc);
  for (const SymArr::Leaf& l : d.leaves) bump_version(l.array);
}

void Lowerer::store_elements(const SymArr& d, Reg base, const Sym& src, size_t k, const char* mismatch,
                             const Loc& loc) {
  // The innermost loop writes every leaf. Storage is laid out by the
  // bounds (dims); lengths known per element loop less.
  Reg count = d.len_of(k) != kir::kNoReg ? d.len_of(k) : b_.i64(d.dims[k]);
  b_.for_(count, {}, [&](Reg i, const std::vector<Reg>&) {
    Sym e = index(src, i, loc, false);
    Reg at = base == kir::kNoReg ? i : b_.binary(kir::BinOp::Add, b_.binary(kir::BinOp::Mul, base, b_.i64(d.dims[k])), i);
    if (k + 1 < d.dims.size()) {
      store_elements(d, at, e, k + 1, mismatch, loc);
    } else {
      write_leaves(d, at, e, mismatch);
    }
    return std::vector<Reg>{};
  });
}

// a with [i, j, ...] = v: in place when `a` is a whole private array,
// else on a private copy (the original is consumed either way).
// Stores the scalar leaves of `value` into the private array `dest` at
// element `at`; `mismatch` is the fallback when their types differ.
void Lowerer::write_leaves(const SymArr& dest, Reg at, const Sym& value, const char* mismatch) {
  std::vector<Reg> regs = leaves(value);
  if (regs.size() != dest.leaves.size()) throw Fallback(mismatch);
  for (size_t l = 0; l < regs.size(); ++l) {
    if (f_.reg_types[size_t(regs[l])] != dest.leaves[l].prim) throw Fallback(mismatch);
    b_.local_write(dest.leaves[l].array, at, regs[l]);
  }
}

// The bounds check of an in-place update, with the evaluator's message:
// idx[k] indexes dimension k (kNoReg: a slice, checked when planned).
void Lowerer::check_update_bounds(const std::vector<int64_t>& dims, const std::vector<Reg>& idx, const Loc& loc) {
  Reg ok = b_.boolean(true);
  for (size_t k = 0; k < idx.size(); ++k) {
    if (idx[k] == kir::kNoReg) continue;
    Reg u = b_.convert(Prim::U64, idx[k]);
    ok = b_.binary(kir::BinOp::LogAnd, ok,
                   b_.compare(kir::CmpOp::Lt, u, b_.constant(Scalar::unsigned_int(Prim::U64, uint64_t(dims[k])))));
  }
  std::string shape;
  for (int64_t d : dims) shape += fmt::format("[{}]", d);
  b_.check(ok, fmt::format("Index out of bounds for array of shape {}.", shape), loc);
}

Sym Lowerer::lower_update(const Expr& e, const ScopePtr& sc) {
  if (!e.field_path.empty()) throw Fallback("an in-place update through a field path inside a mapped function");
  Sym arr = lower(*e.a, sc);
  if (arr.kind != Sym::Kind::Array) throw Fallback("an in-place update of a non-array");
  for (const IndexArg& ix : e.indices)
    if (ix.is_slice) return update_slices(e, sc);
  std::vector<Reg> idx;
  for (const IndexArg& ix : e.indices) idx.push_back(convert(lower(*ix.index, sc), Prim::I64).reg);
  Sym v = lower(*e.b, sc);
  return update_at(arr, idx, v, e.loc);
}

Sym Lowerer::update_at(Sym arr, const std::vector<Reg>& idx, const Sym& v, const Loc& loc, bool checked) {
  if (dynamic(arr)) throw Fallback("an in-place update of an array whose length depends on the element");
  if (!is_private_whole(arr)) arr = materialise(arr, loc);
  const SymArr& a = *arr.arr;
  if (idx.size() > a.dims.size()) throw Fallback("an in-place update with more indices than dimensions");
  if (!checked) check_update_bounds(a.dims, idx, loc);
  if (!a.parts.empty()) return update_parts(arr, idx, v, loc);
  Reg off = b_.i64(0);
  for (size_t k = 0; k < idx.size(); ++k)
    off = b_.binary(kir::BinOp::Add, b_.binary(kir::BinOp::Mul, off, b_.i64(a.dims[k])), idx[k]);
  std::vector<int64_t> rest(a.dims.begin() + long(idx.size()), a.dims.end());
  if (rest.empty()) {
    write_leaves(a, off, v, "an in-place update with a value of another type");
  } else {
    // A row (or block): v's elements, row-major, at block off.
    if (v.kind != Sym::Kind::Array || v.arr->dims != rest)
      throw Fallback("an in-place update with an array of another shape");
    // Lengths known per element are bounds in dims: each must be the row's.
    for (size_t k = 0; k < rest.size(); ++k)
      if (v.arr->len_of(k) != kir::kNoReg)
        b_.check(b_.compare(kir::CmpOp::Eq, v.arr->len_of(k), b_.i64(rest[k])),
                 "Value cannot be written to a slice of another shape.", loc);
    store_elements(a, off, v, idx.size(), "an in-place update with a value of another type", loc);
  }
  for (const SymArr::Leaf& l : a.leaves) bump_version(l.array);
  return with_current_versions(arr);
}

// `a with [i, j:k, ...] = v` and `let a[:, i] = v`: slices with positive
// strides known when the nest is planned, mixed with indices computed per
// element. The first slice dimension may also have bounds computed per
// element (`let block[0:k] = bs[i:i+k]`); they and v's length are checked at
// run time. Writes v's elements in row-major order of the slice; v is first
// copied to private storage unless it is private already or a view of the
// nest's inputs (which no element writes), so that reading it never sees the
// writes. Anything else (bad shapes known when planned) is left to the
// reference backend, which reports errors in Futhark's words.
Sym Lowerer::update_slices(const Expr& e, const ScopePtr& sc) {
  Sym arr = lower(*e.a, sc);
  if (arr.kind != Sym::Kind::Array) throw Fallback("an in-place update of a non-array");
  if (dynamic(arr)) throw Fallback("an in-place update of an array whose length depends on the element");
  const std::vector<int64_t> dims = arr.arr->dims;
  if (e.indices.size() > dims.size()) throw Fallback("an in-place update with more indices than dimensions");
  struct Dim {
    bool slice = true;
    Reg index = kir::kNoReg;
    int64_t start = 0, count = 0, stride = 1;
    Reg start_reg = kir::kNoReg, count_reg = kir::kNoReg;  // bounds computed per element
  };
  std::vector<Dim> spec(dims.size());
  std::vector<int64_t> value_dims;
  Reg bounds_ok = kir::kNoReg;  // the per-element bounds' check, when there are some
  for (size_t k = 0; k < dims.size(); ++k) {
    Dim& d = spec[k];
    if (k < e.indices.size() && !e.indices[k].is_slice) {
      d.slice = false;
      d.index = convert(lower(*e.indices[k].index, sc), Prim::I64).reg;
      continue;
    }
    // A bound: a constant or a register (not the stride).
    auto bound = [&](const ExprPtr& x, int64_t dflt, Reg* reg) -> int64_t {
      if (!x) return dflt;
      Sym b = lower(*x, sc);
      if (!b.is_scalar() || !is_integral(b.prim)) throw Fallback("an in-place update of a slice with bounds that are not integers");
      if (b.known) return b.known->as_i64();
      if (!reg) throw Fallback("an in-place update of a slice whose stride depends on the element");
      *reg = convert(b, Prim::I64).reg;
      return 0;
    };
    int64_t start = 0, end = dims[k];
    Reg start_reg = kir::kNoReg, end_reg = kir::kNoReg;
    if (k < e.indices.size()) {
      const IndexArg& ix = e.indices[k];
      d.stride = bound(ix.stride, 1, nullptr);
      if (d.stride <= 0) throw Fallback("an in-place update of a slice with a stride that is not positive");
      start = bound(ix.start, 0, &start_reg);
      end = bound(ix.end, dims[k], &end_reg);
    }
    if (start_reg == kir::kNoReg && end_reg == kir::kNoReg) {
      if (start < 0 || end > dims[k] || start > end) throw Fallback("an in-place update of a slice out of bounds");
      d.start = start;
      d.count = (end - start + d.stride - 1) / d.stride;
      value_dims.push_back(d.count);
      continue;
    }
    // Futhark's rule for a positive stride: 0 <= start <= end <= n.
    Reg a = start_reg != kir::kNoReg ? start_reg : b_.i64(start);
    Reg z = end_reg != kir::kNoReg ? end_reg : b_.i64(end);
    Reg in = b_.binary(kir::BinOp::LogAnd, b_.compare(kir::CmpOp::Le, b_.i64(0), a),
                       b_.binary(kir::BinOp::LogAnd, b_.compare(kir::CmpOp::Le, a, z),
                                 b_.compare(kir::CmpOp::Le, z, b_.i64(dims[k]))));
    bounds_ok = bounds_ok == kir::kNoReg ? in : b_.binary(kir::BinOp::LogAnd, bounds_ok, in);
    d.start_reg = a;
    Reg span = b_.binary(kir::BinOp::Sub, z, a);
    d.count_reg = d.stride == 1 ? span
                                : b_.binary(kir::BinOp::Quot, b_.binary(kir::BinOp::Add, span, b_.i64(d.stride - 1)),
                                            b_.i64(d.stride));
    value_dims.push_back(-1);  // its length is checked at run time
  }
  std::string shape;
  for (int64_t d : dims) shape += fmt::format("[{}]", d);
  if (bounds_ok != kir::kNoReg) b_.check(bounds_ok, fmt::format("Index out of bounds for array of shape {}.", shape), e.loc);
  Sym v = lower(*e.b, sc);
  if (value_dims.empty()) {
    if (v.kind == Sym::Kind::Array) throw Fallback("an in-place update with a value of another shape");
  } else {
    if (v.kind != Sym::Kind::Array || v.arr->dims.size() != value_dims.size())
      throw Fallback("an in-place update with a value of another shape");
    // Value dimension k is the k-th slice; where its length or the
    // value's is only known per element, they are compared at run time.
    std::vector<const Dim*> slices;
    for (const Dim& d : spec)
      if (d.slice) slices.push_back(&d);
    Reg same = kir::kNoReg;
    for (size_t k = 0; k < value_dims.size(); ++k) {
      Reg have = v.arr->len_of(k);
      if (value_dims[k] >= 0 && have == kir::kNoReg) {
        if (v.arr->dims[k] != value_dims[k]) throw Fallback("an in-place update with a value of another shape");
        continue;
      }
      Reg want = value_dims[k] < 0 ? slices.at(k)->count_reg : b_.i64(value_dims[k]);
      Reg eq = b_.compare(kir::CmpOp::Eq, have != kir::kNoReg ? have : b_.i64(v.arr->dims[k]), want);
      same = same == kir::kNoReg ? eq : b_.binary(kir::BinOp::LogAnd, same, eq);
    }
    if (same != kir::kNoReg) b_.check(same, "Value cannot be written to a slice of another shape.", e.loc);
  }
  if (!is_private_whole(arr)) arr = materialise(arr, e.loc);
  if (v.kind == Sym::Kind::Array && !is_private_whole(v) && !is_input_view(v)) v = materialise(v, e.loc);
  const SymArr& a = *arr.arr;
  std::vector<Reg> idx;
  for (const Dim& d : spec) idx.push_back(d.index);  // kNoReg for slices
  check_update_bounds(dims, idx, e.loc);
  std::vector<int64_t> stride_of(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) stride_of[k - 1] = stride_of[k] * dims[k];
  // Dimension k at flat offset `off`, `sub` the part of v for what remains.
  std::function<void(const Sym&, Reg, size_t)> walk = [&](const Sym& sub, Reg off, size_t k) {
    if (k == dims.size()) {
      write_leaves(a, off, sub, "an in-place update with a value of another type");
      return;
    }
    const Dim& d = spec[k];
    if (!d.slice) {
      walk(sub, b_.binary(kir::BinOp::Add, off, b_.binary(kir::BinOp::Mul, d.index, b_.i64(stride_of[k]))), k + 1);
      return;
    }
    Reg count = d.count_reg != kir::kNoReg ? d.count_reg : b_.i64(d.count);
    Reg first = d.start_reg != kir::kNoReg ? d.start_reg : b_.i64(d.start);
    b_.for_(count, {}, [&](Reg j, const std::vector<Reg>&) {
      Reg pos = b_.binary(kir::BinOp::Add, first, b_.binary(kir::BinOp::Mul, j, b_.i64(d.stride)));
      walk(index(sub, j, e.loc, false), b_.binary(kir::BinOp::Add, off, b_.binary(kir::BinOp::Mul, pos, b_.i64(stride_of[k]))),
           k + 1);
      return std::vector<Reg>{};
    });
  };
  walk(v, b_.i64(0), 0);
  for (const SymArr::Leaf& l : a.leaves) bump_version(l.array);
  return with_current_versions(arr);
}

// A view of the nest's input arrays (no private leaves, no generator): no
// element writes them, so an update can read it while writing.
bool Lowerer::is_input_view(const Sym& arr) const {
  if (arr.kind != Sym::Kind::Array || arr.arr->gen) return false;
  for (const SymArr::Leaf& l : arr.arr->leaves)
    if (l.local) return false;
  return !arr.arr->leaves.empty();
}

// scan inside a mapped function, not as its result: sequential, in the
// reference backend's order (the accumulator starts at ne), into a private array.
// scan with a vectorised operator (`scan (map2 (*)) ones rows`): the
// accumulator row is loop state in private storage, copied into row i of
// the result after step i.
Sym Lowerer::sequential_row_scan(const Sym& op, const Sym& ne, const Sym& arr, const Loc& loc) {
  int64_t n = arr.arr->dims.at(0);
  if (ne.kind != Sym::Kind::Array || dynamic(ne)) throw Fallback("a scan whose elements are tuples holding arrays");
  std::vector<int64_t> dims{n};
  dims.insert(dims.end(), ne.arr->dims.begin(), ne.arr->dims.end());
  int64_t inner = product(ne.arr->dims);
  Sym like = element_like(ne, loc);
  std::vector<Prim> types = leaf_types(like);
  int64_t bytes = 0;
  for (Prim p : types) bytes += (n + 1) * inner * prim_bytes(p);
  if (f_.local_bytes() + bytes > max_private_bytes)
    throw Fallback(too_private(max_private_bytes));
  auto out = std::make_shared<SymArr>();
  out->dims = dims;
  out->len = arr.arr->len;
  out->elem = elem_shape_of_sym(like);
  for (Prim p : types) {
    int id = b_.local_array(p, n * inner, fmt::format("l{}", f_.locals.size()));
    out->leaves.push_back({id, 0, p, true, 0});
  }
  LoopState st = loop_state(ne, loc);
  const SymArr& acc = *st.storage.at(0).arr;
  b_.for_(length_reg(arr), st.init_regs, [&](Reg i, const std::vector<Reg>& carried) {
    Sym r = apply(op, {state_value(st, carried), index(arr, i, loc, false)}, loc);
    std::vector<Reg> regs = next_state(st, r, loc);
    Reg base = b_.binary(kir::BinOp::Mul, i, b_.i64(inner));
    b_.for_(b_.i64(inner), {}, [&](Reg j, const std::vector<Reg>&) {
      Reg at = b_.binary(kir::BinOp::Add, base, j);
      for (size_t l = 0; l < acc.leaves.size(); ++l)
        b_.local_write(out->leaves[l].array, at, b_.local_read(acc.leaves[l].array, j));
      return std::vector<Reg>{};
    });
    return regs;
  });
  for (const SymArr::Leaf& l : acc.leaves) bump_version(l.array);
  for (const SymArr::Leaf& l : out->leaves) bump_version(l.array);
  return with_current_versions(array_sym(out));
}

Sym Lowerer::sequential_scan(const Sym& op, const Sym& ne, const Sym& arr, const Loc& loc) {
  if (arr.kind != Sym::Kind::Array) throw Fallback("scan of a non-array");
  int64_t n = arr.arr->dims.at(0);
  if (n < 0) throw Fallback("a scan of an array whose length depends on the element and has no bound");
  if (ne.kind != Sym::Kind::Scalar && ne.kind != Sym::Kind::Tuple && ne.kind != Sym::Kind::Record)
    return sequential_row_scan(op, ne, arr, loc);
  {
    std::vector<Reg> regs;
    std::vector<Sym> arrays;
    split_state(ne, regs, arrays);
    if (!arrays.empty()) return sequential_row_scan(op, ne, arr, loc);
  }
  Reg len = length_reg(arr);
  std::vector<Prim> types = leaf_types(ne);
  auto out = std::make_shared<SymArr>();
  out->dims = {n};
  out->len = arr.arr->len;
  out->elem = elem_shape_of_sym(ne);
  if (f_.local_bytes() + n * int64_t(types.size()) * 8 > max_private_bytes)
    throw Fallback(too_private(max_private_bytes));
  for (Prim p : types) {
    int id = b_.local_array(p, n, fmt::format("l{}", f_.locals.size()));
    out->leaves.push_back({id, 0, p, true, 0});
  }
  b_.for_(len, leaves(ne), [&](Reg i, const std::vector<Reg>& carried) {
    size_t pos = 0;
    Sym acc = rebuild(ne, carried, pos);
    Sym r = apply(op, {acc, index(arr, i, loc, false)}, loc);
    if (leaf_types(r) != types) throw Fallback("scan operator changes the type of its accumulator");
    std::vector<Reg> regs = leaves(r);
    for (size_t l = 0; l < regs.size(); ++l) b_.local_write(out->leaves[l].array, i, regs[l]);
    return regs;
  });
  for (const SymArr::Leaf& l : out->leaves) bump_version(l.array);
  return with_current_versions(array_sym(out));
}

// The row-major position of index `idx` (a d-tuple for d > 1) in a private
// array of `dims` (its first d), and whether it is in bounds in every
// dimension (scatter_2d, reduce_by_index_3d ignore the rest).
Reg Lowerer::private_position(const Sym& idx, const std::vector<int64_t>& dims, int d, Reg& in_bounds,
                              std::vector<Reg>& components, const Loc& loc) {
  std::vector<Sym> parts = d == 1 ? std::vector<Sym>{idx} : idx.elems;
  if (d > 1 && (idx.kind != Sym::Kind::Tuple || int(parts.size()) != d)) throw Fallback("index tuples of another arity");
  Reg pos = b_.constant(Scalar::i64(0));
  in_bounds = b_.constant(Scalar::boolean(true));
  for (int k = 0; k < d; ++k) {
    if (!parts[size_t(k)].is_scalar() || !is_integral(parts[size_t(k)].prim)) throw Fallback("indices that are not integers");
    Reg ik = convert(parts[size_t(k)], Prim::I64).reg;
    components.push_back(ik);
    // One unsigned comparison covers both ends (a negative index is huge).
    Reg ok = b_.compare(kir::CmpOp::Lt, b_.convert(Prim::U64, ik),
                        b_.constant(Scalar::unsigned_int(Prim::U64, uint64_t(dims[size_t(k)]))));
    in_bounds = binop("&&", Sym::scalar(in_bounds, Prim::Bool), Sym::scalar(ok, Prim::Bool), loc).reg;
    pos = binop("+", binop("*", Sym::scalar(pos, Prim::I64), constant(Scalar::i64(dims[size_t(k)])), loc),
                Sym::scalar(ik, Prim::I64), loc)
              .reg;
  }
  return pos;
}

// reduce_by_index inside a mapped function: sequential, into the
// destination (a private array, updated in place).
Sym Lowerer::sequential_hist(const Sym& dest_in, const Sym& op, const Sym& ne, const Sym& is, const Sym& vs,
                             int index_dims, const Loc& loc) {
  (void)ne;
  Sym dest = is_private_whole(dest_in) ? dest_in : materialise(dest_in, loc);
  const SymArr& d = *dest.arr;
  if (int(d.dims.size()) < index_dims) throw Fallback("reduce_by_index with more indices than dimensions");
  if (dynamic(dest)) throw Fallback("reduce_by_index into an array whose length depends on the element");
  // Bins that are rows (`hist (map2 (+)) (replicate 3 0) m is vss`): the
  // operator's row stored over the bin's row.
  const std::vector<int64_t> bin_dims(d.dims.begin(), d.dims.begin() + index_dims);
  const std::vector<int64_t> row_dims(d.dims.begin() + index_dims, d.dims.end());
  SymArr both;
  same_length(both, {is, vs}, "reduce_by_index", loc);
  b_.for_(length_reg(is), {}, [&](Reg j, const std::vector<Reg>&) {
    Reg inb;
    std::vector<Reg> at;
    Reg bin = private_position(index(is, j, loc, false), bin_dims, index_dims, inb, at, loc);
    Sym v = index(vs, j, loc, false);
    b_.if_(
        inb,
        [&] {
          Sym cur = with_current_versions(dest);
          for (Reg c : at) cur = index(cur, c, loc, false);
          Sym r = apply(op, {cur, v}, loc);
          if (!row_dims.empty()) {
            if (r.kind != Sym::Kind::Array || dynamic(r) || r.arr->dims != row_dims)
              throw Fallback("reduce_by_index operator whose result is not a row of the bins' shape");
            // A private copy first: r may read the bin's row it replaces.
            store_elements(d, bin, materialise(r, loc), size_t(index_dims), "reduce_by_index operator of another type",
                           loc);
            return std::vector<Reg>{};
          }
          std::vector<Reg> regs = leaves(r);
          if (regs.size() != d.leaves.size()) throw Fallback("reduce_by_index operator of another type");
          for (size_t l = 0; l < regs.size(); ++l) b_.local_write(d.leaves[l].array, bin, regs[l]);
          return std::vector<Reg>{};
        },
        [] { return std::vector<Reg>{}; });
    return std::vector<Reg>{};
  });
  for (const SymArr::Leaf& l : d.leaves) bump_version(l.array);
  return with_current_versions(dest);
}

Sym Lowerer::sequential_scatter(const Sym& dest_in, const Sym& is_in, const Sym& vs_in, int index_dims,
                                const Loc& loc) {
  bool in_place = is_private_whole(dest_in);
  Sym dest = dest_in;
  if (std::optional<Sym> like = parts_layout(dest_in, loc)) {
    // Storage read from a boxed array of sums has only the constructors
    // found there: widened (copied) when the values hold others.
    Sym wide = widened(*like, element_like(vs_in, loc));
    if (!in_place || !same_layout(wide, *like)) {
      dest = materialise_as(dest_in, wide, loc);
      in_place = false;
    }
  } else if (!in_place) {
    dest = materialise(dest_in, loc);
  }
  const SymArr& d = *dest.arr;
  if (int(d.dims.size()) != index_dims && d.parts.empty())
    throw Fallback("scatter into an array of more dimensions than the indices have inside a mapped function");
  if (dynamic(dest)) throw Fallback("scatter into an array whose length depends on the element");
  // The loop below writes dest as it goes, while it reads the indices and
  // values. Read through a view of dest's storage, or computed where read
  // from private arrays (which may be dest: blocked_radix_sort_step's
  // `scatter xs is sorted`, sorted built from xs), they could see elements
  // already overwritten; Futhark's scatter reads them all first. Such
  // arrays are stored before the first write.
  // Only dest's own storage matters: values computed from other private
  // arrays (radix_sort_step's `scatter (copy xs) is xs`, is from scans of
  // xs) are not changed by the writes.
  std::set<int> dest_locals;
  local_leaves(dest, dest_locals);
  auto settled = [&](const Sym& s) -> Sym {
    if (!in_place || s.kind != Sym::Kind::Array) return s;
    bool reads_dest = false;
    for (const SymArr::Leaf& l : s.arr->leaves) reads_dest |= l.local && dest_locals.count(int(l.array));
    if (!reads_dest && s.arr->gen) {
      Sym e;
      reads_dest = kir::reads_locals(f_, probe_element(s, loc, e), dest_locals);
    }
    if (!reads_dest) return s;
    if (dynamic(s) || !fits_private(s, loc))
      throw Fallback("a scatter whose indices or values may read its destination while it is written");
    return materialise(s, loc);
  };
  Sym is = settled(is_in), vs = settled(vs_in);
  if (!d.parts.empty()) {
    // Part by part, once the indices and values are settled.
    std::vector<Sym> values = unzip_parts(vs, *d.like, loc), parts;
    for (size_t k = 0; k < d.parts.size(); ++k)
      parts.push_back(sequential_scatter(d.parts[k], is, values.at(k), index_dims, loc));
    return zip_parts(*d.like, std::move(parts), d.dims, d.len);
  }
  SymArr both;
  same_length(both, {is, vs}, "scatter", loc);
  b_.for_(length_reg(is), {}, [&](Reg j, const std::vector<Reg>&) {
    Reg inb;
    std::vector<Reg> parts;
    Reg at = private_position(index(is, j, loc, false), d.dims, index_dims, inb, parts, loc);
    std::vector<Reg> regs = leaves(index(vs, j, loc, false));
    if (regs.size() != d.leaves.size()) throw Fallback("scatter of values of another type");
    b_.if_(
        inb,
        [&] {
          for (size_t l = 0; l < regs.size(); ++l) b_.local_write(d.leaves[l].array, at, regs[l]);
          return std::vector<Reg>{};
        },
        [] { return std::vector<Reg>{}; });
    return std::vector<Reg>{};
  });
  for (const SymArr::Leaf& l : d.leaves) bump_version(l.array);
  return with_current_versions(dest);
}

void Lowerer::split_state(const Sym& v, std::vector<Reg>& regs, std::vector<Sym>& arrays) const {
  switch (v.kind) {
    case Sym::Kind::Scalar: regs.push_back(v.reg); return;
    case Sym::Kind::Tuple:
    case Sym::Kind::Record:
    case Sym::Kind::Sum:
      for (const Sym& e : v.elems) split_state(e, regs, arrays);
      return;
    case Sym::Kind::Array:
      if (v.arr->parts.empty()) arrays.push_back(v);
      for (const Sym& p : v.arr->parts) split_state(p, regs, arrays);
      return;
    case Sym::Kind::Function: throw Fallback("a function value where only scalars and arrays are supported");
    case Sym::Kind::Soac: throw Fallback("a nested SOAC whose result is used further");
  }
}

Sym Lowerer::join_state(const Sym& like, const std::vector<Reg>& regs, size_t& pr, const std::vector<Sym>& arrays,
                        size_t& pa) {
  switch (like.kind) {
    case Sym::Kind::Scalar: {
      Reg r = regs.at(pr++);
      return Sym::scalar(r, f_.reg_types[size_t(r)]);
    }
    case Sym::Kind::Array: {
      if (like.arr->parts.empty()) return arrays.at(pa++);
      std::vector<Sym> parts;
      for (const Sym& p : like.arr->parts) parts.push_back(join_state(p, regs, pr, arrays, pa));
      return zip_parts(*like.arr->like, std::move(parts), like.arr->dims, like.arr->len);
    }
    default: {
      Sym s;
      s.kind = like.kind;
      s.names = like.names;
      for (const Sym& e : like.elems) s.elems.push_back(join_state(e, regs, pr, arrays, pa));
      return s;
    }
  }
}

}  // namespace thorn::flatten
