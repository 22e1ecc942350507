// Lowering of indexing and slicing (see lower.hpp): lengths fixed or known
// only per element, indices with bounds checks, slices as generators.
#include "interp/flatten/lower.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "interp/eval/scalar_ops.hpp"
#include "interp/flatten/delayed.hpp"
#include "interp/flatten/elem_tree.hpp"
#include "interp/syntax/print.hpp"

namespace thorn::flatten {

using kir::Reg;

int64_t Lowerer::length(const Sym& arr) const {
  if (arr.kind != Sym::Kind::Array) throw Fallback("expected an array");
  if (arr.arr->len != kir::kNoReg) throw Fallback("an array whose length depends on the element, where a fixed length is needed");
  return arr.arr->dims.at(0);
}

Reg Lowerer::length_reg(const Sym& arr) {
  if (arr.kind != Sym::Kind::Array) throw Fallback("expected an array");
  if (arr.arr->len != kir::kNoReg) return arr.arr->len;
  return b_.i64(arr.arr->dims.at(0));
}

Sym Lowerer::dim_size(const Sym& arr, size_t k) {
  Reg r = arr.arr->len_of(k);
  return r != kir::kNoReg ? Sym::scalar(r, Prim::I64) : constant(Scalar::i64(arr.arr->dims.at(k)));
}

// Register r of the probe's code, computed here again when it is
// arithmetic on registers from before the probe (`row[j:]`'s n - j): the
// same value for every row. kNoReg when it depends on the row (reads, the
// row's index, loops) or could fail (division by a variable).
Reg Lowerer::hoist(const kir::Block& probe_code, Reg r, int probe_start) {
  if (int(r) < probe_start) return r;
  for (const kir::Instr& in : probe_code.instrs) {
    if (in.dst != r) continue;
    switch (in.op) {
      case kir::Opcode::Const:
      case kir::Opcode::Unary:
      case kir::Opcode::Binary:
      case kir::Opcode::Compare:
      case kir::Opcode::Convert:
      case kir::Opcode::Select:
        break;
      default:
        return kir::kNoReg;
    }
    if (in.op == kir::Opcode::Binary) {
      kir::BinOp op = in.binop();
      bool divides = op == kir::BinOp::Div || op == kir::BinOp::Mod || op == kir::BinOp::Quot || op == kir::BinOp::Rem;
      if (divides && is_integral(in.type) && int(in.b) >= probe_start) {
        bool constant_divisor = false;
        for (const kir::Instr& d : probe_code.instrs)
          if (d.dst == in.b) constant_divisor = d.op == kir::Opcode::Const && d.imm.as_i64() != 0;
        if (!constant_divisor) return kir::kNoReg;
      }
    }
    kir::Instr copy = in;
    for (Reg* operand : {&copy.a, &copy.b, &copy.c}) {
      if (*operand == kir::kNoReg) continue;
      *operand = hoist(probe_code, *operand, probe_start);
      if (*operand == kir::kNoReg) return kir::kNoReg;
    }
    copy.dst = f_.new_reg(f_.reg_types[size_t(r)]);
    Reg out = copy.dst;
    b_.append({std::move(copy)});
    return out;
  }
  return kir::kNoReg;  // a parameter of the probe (the row's index) or of a nested block
}

std::vector<Reg> Lowerer::row_lengths(const Sym& row, const kir::Block& probe_code, int probe_start, const char* what) {
  if (row.kind != Sym::Kind::Array || !dynamic(row)) return {};
  std::vector<Reg> lens;
  for (size_t k = 0; k < row.arr->dims.size(); ++k) {
    Reg r = row.arr->len_of(k);
    if (r != kir::kNoReg) r = hoist(probe_code, r, probe_start);
    if (r == kir::kNoReg && row.arr->len_of(k) != kir::kNoReg) throw Fallback(what);
    lens.push_back(r);
  }
  return lens;
}

Sym Lowerer::with_lengths(Sym row, const std::vector<Reg>& lens) {
  if (lens.empty() || row.kind != Sym::Kind::Array) return row;
  auto a = std::make_shared<SymArr>(*row.arr);
  a->len = lens[0];
  a->set_inner_len({lens.begin() + 1, lens.end()});
  row.arr = a;
  return row;
}

void Lowerer::same_length(SymArr& out, const std::vector<Sym>& inputs, const char* what, const Loc& loc) {
  bool dyn = false;
  for (const Sym& a : inputs) {
    if (a.kind != Sym::Kind::Array) throw Fallback("expected an array");
    dyn |= a.arr->len != kir::kNoReg;
  }
  int64_t bound = inputs.at(0).arr->dims.at(0);
  if (!dyn) {
    for (const Sym& a : inputs)
      if (a.arr->dims[0] != bound) throw Fallback(fmt::format("{} of arrays of different lengths", what));
    out.dims.insert(out.dims.begin(), bound);
    return;
  }
  Reg n = length_reg(inputs[0]);
  for (size_t k = 1; k < inputs.size(); ++k) {
    Reg ok = b_.compare(kir::CmpOp::Eq, n, length_reg(inputs[k]));
    b_.check(ok, fmt::format("{}: arrays of different lengths.", what), loc);
    int64_t b = inputs[k].arr->dims[0];
    if (bound < 0 || (b >= 0 && b < bound)) bound = b;
  }
  out.dims.insert(out.dims.begin(), bound);
  out.len = n;
}

// Element i of [xs[0], xs[1], ...]: a chain of selects on i over scalar
// leaves; for rows, a row whose element j picks among the rows' elements j.
// Only materialise's copy loops call it, so every element is read once.
Sym Lowerer::pick(const std::vector<Sym>& xs, Reg i, const Loc& loc) {
  if (xs[0].kind == Sym::Kind::Array) {
    auto row = std::make_shared<SymArr>();
    row->dims = xs[0].arr->dims;
    row->elem = xs[0].arr->elem;
    row->gen = [this, xs, i, loc](Reg j) {
      std::vector<Sym> column;
      for (const Sym& x : xs) column.push_back(index(x, j, loc, false));
      return pick(column, i, loc);
    };
    Sym r;
    r.kind = Sym::Kind::Array;
    r.arr = row;
    return r;
  }
  Sym r = xs.back();
  for (size_t k = xs.size() - 1; k-- > 0;) {
    Reg is_k = b_.compare(kir::CmpOp::Eq, i, b_.i64(int64_t(k)));
    std::vector<Reg> a = leaves(xs[k]), b = leaves(r), out;
    for (size_t q = 0; q < a.size(); ++q) out.push_back(b_.select(is_k, a[q], b[q]));
    size_t pos = 0;
    r = rebuild(xs[k], out, pos);
  }
  return r;
}

Sym Lowerer::index(const Sym& arr_sym, Reg i, const Loc& loc, bool check) {
  if (arr_sym.kind != Sym::Kind::Array) throw Fallback("indexing a non-array");
  const SymArr& a = *arr_sym.arr;
  if (a.dims.empty()) throw Fallback("indexing a zero-dimensional array");
  if (check) {
    // 0 <= i < n as one unsigned comparison.
    Reg u = b_.convert(Prim::U64, i);
    Reg n = a.len != kir::kNoReg ? b_.convert(Prim::U64, a.len)
                                 : b_.constant(Scalar::unsigned_int(Prim::U64, uint64_t(a.dims[0])));
    Reg ok = b_.compare(kir::CmpOp::Lt, u, n);
    std::string shape;
    for (size_t k = 0; k < a.dims.size(); ++k)
      shape += a.len_of(k) != kir::kNoReg ? std::string("[n]") : fmt::format("[{}]", a.dims[k]);
    b_.check(ok, fmt::format("Index [{{}}] out of bounds for array of shape {}.", shape), loc,
             b_.type(i) == Prim::I64 ? i : b_.convert(Prim::I64, i));
  }
  if (a.gen) return a.gen(i);
  int64_t stride = 1;
  for (size_t k = 1; k < a.dims.size(); ++k) stride *= a.dims[k];
  Reg off = stride == 1 ? i : b_.binary(kir::BinOp::Mul, i, b_.i64(stride));
  if (a.rel != kir::kNoReg) off = b_.binary(kir::BinOp::Add, a.rel, off);
  if (a.dims.size() > 1) {
    auto sub = std::make_shared<SymArr>(a);
    sub->dims.erase(sub->dims.begin());
    sub->len = a.len_of(1);
    if (!sub->inner_len.empty()) sub->inner_len.erase(sub->inner_len.begin());
    sub->rel = off;
    Sym s;
    s.kind = Sym::Kind::Array;
    s.arr = sub;
    return s;
  }
  std::vector<Sym> parts;
  for (const SymArr::Leaf& leaf : a.leaves) {
    Reg at = leaf.base == 0 ? off : b_.binary(kir::BinOp::Add, off, b_.i64(leaf.base));
    if (leaf.local) {
      int cur = size_t(leaf.array) < local_version.size() ? local_version[size_t(leaf.array)] : 0;
      if (leaf.version != cur)
        throw Fallback(fmt::format("a read of an array through a view made before the array was updated in place (at {})", loc.str()));
      parts.push_back(Sym::scalar(b_.local_read(leaf.array, at), leaf.prim));
    } else {
      parts.push_back(Sym::scalar(b_.read(leaf.array, at), leaf.prim));
    }
  }
  size_t pos = 0;
  return sym_from_parts(a.elem, parts, pos);
}


Sym Lowerer::lower_index(const Expr& e, const ScopePtr& sc) {
  Sym arr = lower(*e.a, sc);
  // Every index and bound is lowered once, here; index_all may use them
  // inside a generator (a slice followed by more indices).
  std::vector<LoweredIndex> ix;
  for (const IndexArg& a : e.indices) {
    LoweredIndex l;
    l.is_slice = a.is_slice;
    if (!a.is_slice) {
      l.i = convert(lower(*a.index, sc), Prim::I64).reg;
    } else {
      auto bound = [&](const ExprPtr& x) -> std::optional<Sym> {
        if (!x) return std::nullopt;
        Sym v = lower(*x, sc);
        if (!v.is_scalar() || !is_integral(v.prim)) throw Fallback("a slice bound that is not an integer");
        return v.known ? constant(Scalar::i64(v.known->as_i64())) : convert(v, Prim::I64);
      };
      l.start = bound(a.start);
      l.end = bound(a.end);
      l.stride = bound(a.stride);
      // `xs[i : i + k]` with k known when the nest starts: a fixed length k
      // wherever i is (Futhark code says so to give the slice a size).
      const Expr* end = a.end.get();
      while (end && end->kind == Expr::Kind::Ascribe) end = end->a.get();
      if (a.start && end && end->kind == Expr::Kind::BinOp && end->name.qualifiers.empty() && end->name.name == "+" &&
          to_string(*end->a) == to_string(*a.start)) {
        Sym k = lower(*end->b, sc);
        if (k.is_scalar() && k.known && is_integral(k.prim) && k.known->as_i64() >= 0) l.span = k.known->as_i64();
      }
    }
    ix.push_back(std::move(l));
  }
  return index_all(arr, ix, 0, e.loc);
}

// arr[ix[k], ix[k+1], ...]: an index removes a dimension, a slice keeps it
// (shorter); indices after a slice apply inside each of its elements.
Sym Lowerer::index_all(const Sym& arr, const std::vector<LoweredIndex>& ix, size_t k, const Loc& loc) {
  if (k == ix.size()) return arr;
  if (!ix[k].is_slice) return index_all(index(arr, ix[k].i, loc), ix, k + 1, loc);
  Sym sliced = slice(arr, ix[k], loc);
  if (k + 1 == ix.size()) return sliced;
  // The element's shape after the remaining indices, from a throw-away lowering.
  Sym probe;
  probe_block([&] {
    Reg pi = f_.new_reg(Prim::I64);
    probe_indices.push_back(pi);
    probe = index_all(index(sliced, pi, loc, false), ix, k + 1, loc);
    return std::vector<Reg>{};
  });
  auto out = std::make_shared<SymArr>();
  out->dims = {sliced.arr->dims[0]};
  out->len = sliced.arr->len;
  std::vector<Reg> lens;
  if (probe.kind == Sym::Kind::Array) {
    for (int64_t d : probe.arr->dims) out->dims.push_back(d);
    // Lengths the probe computed (`a[i:, j:]`'s j:) are computed here once,
    // from the bounds alone, for every row.
    if (dynamic(probe)) {
      Sym shape = index_lengths(sliced, ix, k + 1, loc);
      for (size_t d = 0; d < probe.arr->dims.size(); ++d) {
        if (probe.arr->len_of(d) != kir::kNoReg && shape.arr->len_of(d) == kir::kNoReg)
          throw Fallback(fmt::format("slices whose inner lengths differ per row (at {})", loc.str()));
        lens.push_back(shape.arr->len_of(d));
      }
      out->set_inner_len(lens);
    }
  }
  out->fused = "slice";
  Lowerer* l = this;
  out->gen = [l, sliced, ix, k, loc, lens](Reg i) {
    return with_lengths(l->index_all(l->index(sliced, i, loc, false), ix, k + 1, loc), lens);
  };
  Sym s;
  s.kind = Sym::Kind::Array;
  s.arr = out;
  return s;
}

// The shape of sliced[i, ix[k], ix[k+1], ...] (any row i), lengths only:
// an array Sym without elements whose dims and lengths are those the
// generator's rows get. Emits no reads and no checks (each row's code
// checks its bounds), so it can run where the rows are not made.
Sym Lowerer::index_lengths(const Sym& sliced, const std::vector<LoweredIndex>& ix, size_t k, const Loc& loc) {
  std::vector<int64_t> dims(sliced.arr->dims.begin() + 1, sliced.arr->dims.end());
  std::vector<Reg> lens;
  for (size_t d = 1; d < sliced.arr->dims.size(); ++d) lens.push_back(sliced.arr->len_of(d));
  size_t at = 0;  // the dimension ix[j] applies to
  for (size_t j = k; j < ix.size(); ++j) {
    if (at >= dims.size()) throw Fallback(fmt::format("too many indices (at {})", loc.str()));
    if (!ix[j].is_slice) {
      dims.erase(dims.begin() + long(at));
      lens.erase(lens.begin() + long(at));
      continue;
    }
    const LoweredIndex& x = ix[j];
    bool known = lens[at] == kir::kNoReg && (!x.start || x.start->known) && (!x.end || x.end->known) &&
                 (!x.stride || x.stride->known);
    int64_t s = x.stride && x.stride->known ? x.stride->known->as_i64() : 1;
    if (known || s == 0) {
      ++at;  // fixed: the probe has it
      continue;
    }
    if (x.span && s == 1 && x.start) {
      lens[at] = b_.i64(*x.span);
    } else {
      lens[at] = slice_range(lens[at] != kir::kNoReg ? lens[at] : b_.i64(dims[at]), x, s).len;
    }
    ++at;
  }
  auto shape = std::make_shared<SymArr>();
  shape->dims = dims;
  return with_lengths(array_sym(shape), lens);
}

// The bounds of `a:b:s` (s != 0) over a length n, Futhark's defaults for
// missing ones (0 and n upwards, n-1 and -1 downwards), and its length
// ceil(|b - a| / |s|). No checks: the caller makes them, or not.
Lowerer::SliceRange Lowerer::slice_range(Reg n, const LoweredIndex& ix, int64_t s) {
  SliceRange r;
  r.start = ix.start ? ix.start->reg : (s > 0 ? b_.i64(0) : b_.binary(kir::BinOp::Sub, n, b_.i64(1)));
  r.end = ix.end ? ix.end->reg : (s > 0 ? n : b_.i64(-1));
  Reg span = s > 0 ? b_.binary(kir::BinOp::Sub, r.end, r.start) : b_.binary(kir::BinOp::Sub, r.start, r.end);
  int64_t as = s > 0 ? s : -s;
  r.len = as == 1 ? span : b_.binary(kir::BinOp::Quot, b_.binary(kir::BinOp::Add, span, b_.i64(as - 1)), b_.i64(as));
  return r;
}

// xs[a:b:s]: a generated array whose element i is xs[a + i*s]. With bounds
// known when the nest starts, its length is fixed and bounds the reference
// would reject fall back, so that it reports them; with bounds computed in
// the element, its length is a register and the bounds are checked at run
// time (the stride must still be known).
// Futhark's message for a slice out of bounds ("Index [-1:2] out of bounds
// for array of shape [4]."): known parts written out, the others holes for
// the values the check reports (`values`, at most three; past three, "n").
static std::string slice_message(const SymArr& a, std::optional<Sym> start, std::optional<Sym> end,
                                 std::optional<int64_t> stride, std::vector<Reg>& values) {
  auto part = [&](const Sym& v) -> std::string {
    if (v.known) return std::to_string(v.known->as_i64());
    if (values.size() == 3) return "n";
    values.push_back(v.reg);
    return "{}";
  };
  std::string text = "Index [";
  if (start) text += part(*start);
  text += ":";
  if (end) text += part(*end);
  if (stride) text += fmt::format(":{}", *stride);
  text += "] out of bounds for array of shape ";
  for (size_t k = 0; k < a.dims.size(); ++k) {
    Reg n = a.len_of(k);
    if (n == kir::kNoReg) text += fmt::format("[{}]", a.dims[k]);
    else text += "[" + part(Sym::scalar(n, Prim::I64)) + "]";
  }
  return text + ".";
}

void Lowerer::check_slice(Reg ok, const Sym& arr, const LoweredIndex& ix, const Loc& loc) {
  std::vector<Reg> values;
  std::optional<int64_t> stride;
  if (ix.stride) stride = ix.stride->known->as_i64();
  std::string text = slice_message(*arr.arr, ix.start, ix.end, stride, values);
  values.resize(3, kir::kNoReg);
  b_.check(ok, text, loc, values[0], values[1], values[2]);
}

Sym Lowerer::slice(const Sym& arr, const LoweredIndex& ix, const Loc& loc) {
  if (arr.kind != Sym::Kind::Array || arr.arr->dims.empty()) throw Fallback("slicing a non-array");
  if (ix.stride && !ix.stride->known) throw Fallback("a slice whose stride is not known when the nest starts");
  int64_t s = ix.stride ? ix.stride->known->as_i64() : 1;
  if (s == 0) throw Fallback("a slice with stride 0");
  bool fixed = !dynamic(arr) && (!ix.start || ix.start->known) && (!ix.end || ix.end->known);
  auto sub = std::make_shared<SymArr>();
  sub->dims = arr.arr->dims;
  sub->fused = "slice";
  Sym whole = arr;
  Lowerer* l = this;
  if (fixed) {
    int64_t n = arr.arr->dims[0];
    // Element i is xs[a + i*s]; a negative stride walks down from a to b (exclusive).
    int64_t a = ix.start ? ix.start->known->as_i64() : (s > 0 ? 0 : n - 1);
    int64_t b = ix.end ? ix.end->known->as_i64() : (s > 0 ? n : -1);
    int64_t len;
    if (s > 0) {
      if (a < 0 || b < a || b > n) throw Fallback("a slice out of bounds");
      len = (b - a + s - 1) / s;
    } else {
      if (b < -1 || a < b || (a > b && a >= n)) throw Fallback("a slice out of bounds");
      len = (a - b + (-s) - 1) / (-s);
    }
    sub->dims[0] = len;
    sub->gen = [l, whole, a, s, loc](Reg i) -> Sym {
      kir::Builder& bb = l->b();
      Reg at = s == 1 ? i : bb.binary(kir::BinOp::Mul, i, bb.i64(s));
      if (a != 0) at = bb.binary(kir::BinOp::Add, at, bb.i64(a));
      return l->index(whole, at, loc, false);
    };
  } else if (s > 0 && (!ix.start || ix.start->known) && ix.end && ix.end->known) {
    // xs[a:b] with a and b known, xs's length only inside the element
    // (`take 2 (drop (i * 2) data)`): length (b - a) / s whatever the
    // element, b <= n checked at run time.
    const int64_t a = ix.start ? ix.start->known->as_i64() : 0, b = ix.end->known->as_i64();
    const int64_t bound = arr.arr->dims[0];
    if (a < 0 || b < a || (bound >= 0 && b > bound)) throw Fallback("a slice out of bounds");
    check_slice(b_.compare(kir::CmpOp::Le, b_.i64(b), length_reg(arr)), arr, ix, loc);
    sub->dims[0] = (b - a + s - 1) / s;
    sub->inner_len = arr.arr->inner_len;
    sub->gen = [l, whole, a, s, loc](Reg i) -> Sym {
      kir::Builder& bb = l->b();
      Reg at = s == 1 ? i : bb.binary(kir::BinOp::Mul, i, bb.i64(s));
      if (a != 0) at = bb.binary(kir::BinOp::Add, at, bb.i64(a));
      return l->index(whole, at, loc, false);
    };
  } else if (ix.span && s == 1 && ix.start) {
    // xs[a : a + k]: 0 <= a and a + k <= n at run time, length k.
    Reg n = length_reg(arr);
    Reg a = ix.start->reg;
    Reg b = b_.binary(kir::BinOp::Add, a, b_.i64(*ix.span));
    LoweredIndex shown = ix;
    shown.end = Sym::scalar(b, Prim::I64);
    check_slice(b_.binary(kir::BinOp::LogAnd, b_.compare(kir::CmpOp::Le, b_.i64(0), a), b_.compare(kir::CmpOp::Le, b, n)),
                arr, shown, loc);
    sub->dims[0] = *ix.span;
    sub->gen = [l, whole, a, loc](Reg i) -> Sym {
      return l->index(whole, l->b().binary(kir::BinOp::Add, i, a), loc, false);
    };
  } else {
    // Futhark's rule: 0 <= a <= b <= n for s > 0, -1 <= b <= a < n (or a == b) for s < 0.
    Reg n = length_reg(arr);
    const SliceRange range = slice_range(n, ix, s);
    const Reg a = range.start, b = range.end;
    Reg ok;
    if (s > 0) {
      ok = b_.binary(kir::BinOp::LogAnd, b_.compare(kir::CmpOp::Le, b_.i64(0), a),
                     b_.binary(kir::BinOp::LogAnd, b_.compare(kir::CmpOp::Le, a, b), b_.compare(kir::CmpOp::Le, b, n)));
    } else {
      Reg empty = b_.compare(kir::CmpOp::Eq, a, b);
      Reg in = b_.binary(kir::BinOp::LogAnd, b_.compare(kir::CmpOp::Le, b_.i64(-1), b),
                         b_.binary(kir::BinOp::LogAnd, b_.compare(kir::CmpOp::Le, b, a), b_.compare(kir::CmpOp::Lt, a, n)));
      ok = b_.binary(kir::BinOp::LogOr, empty, in);
    }
    check_slice(ok, arr, ix, loc);
    sub->len = range.len;
    int64_t as = s > 0 ? s : -s;
    int64_t bound = arr.arr->dims[0];
    sub->dims[0] = bound < 0 ? -1 : (bound + as - 1) / as;
    sub->gen = [l, whole, a, s, loc](Reg i) -> Sym {
      kir::Builder& bb = l->b();
      Reg at = s == 1 ? i : bb.binary(kir::BinOp::Mul, i, bb.i64(s));
      at = bb.binary(kir::BinOp::Add, at, a);
      return l->index(whole, at, loc, false);
    };
  }
  Sym out;
  out.kind = Sym::Kind::Array;
  out.arr = sub;
  return out;
}

}  // namespace thorn::flatten
