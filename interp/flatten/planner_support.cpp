// Helpers shared by the planner's parts (planner_impl.hpp).
#include "interp/flatten/planner_impl.hpp"

#include <cstdlib>

#include "interp/flatten/kernel_ir_simplify.hpp"
#include "interp/flatten/elem_tree.hpp"
#include "interp/flatten/sum_columns.hpp"

namespace thorn::flatten::planning {

// ------------------------------------------------------------------ structure helpers

// A register-free Sym with the structure of a value (tuples/records of scalars).
Sym shape_of_value(const Value& v) {
  if (v.kind == Value::Kind::Scalar) return Sym::scalar(kir::kNoReg, v.scalar.type);
  if (v.kind != Value::Kind::Tuple && v.kind != Value::Kind::Record)
    throw Fallback("a neutral element that is not a scalar or a tuple of scalars");
  Sym s;
  s.kind = v.kind == Value::Kind::Tuple ? Sym::Kind::Tuple : Sym::Kind::Record;
  s.names = v.names;
  for (const Value& e : *v.elems) s.elems.push_back(shape_of_value(e));
  return s;
}

void leaf_prims(const Sym& s, std::vector<Prim>& out) {
  if (s.kind == Sym::Kind::Scalar) {
    out.push_back(s.prim);
    return;
  }
  if (s.kind != Sym::Kind::Tuple && s.kind != Sym::Kind::Record && s.kind != Sym::Kind::Sum)
    throw Fallback("results that are not scalars or tuples of scalars");
  for (const Sym& e : s.elems) leaf_prims(e, out);
}

ElemShape elem_shape_of(const Sym& like) { return elem_shape_of_sym(like); }

Sym leaves_like(const std::vector<Prim>& prims) {
  if (prims.size() == 1) return Sym::scalar(kir::kNoReg, prims[0]);
  Sym t;
  t.kind = Sym::Kind::Tuple;
  for (Prim p : prims) t.elems.push_back(Sym::scalar(kir::kNoReg, p));
  return t;
}

Value array_from_leaves(const Sym& like, const std::vector<BufferPtr>& bufs, const std::vector<int64_t>& shape) {
  size_t pos = 0;
  return Value::make_array(array_with_sums(like, bufs, pos, shape));
}

Value array_from_columns(const Sym& like, const ArrayValue& columns, const std::vector<int64_t>& shape) {
  std::vector<const ArrayValue*> leaves;
  flat_leaves(columns, leaves);
  std::vector<BufferPtr> bufs;
  for (const ArrayValue* a : leaves) bufs.push_back(a->buffer);
  return array_from_leaves(like, bufs, shape);
}

Value value_from_scalars(const Sym& like, const std::vector<Scalar>& xs, size_t& pos) {
  if (like.kind == Sym::Kind::Scalar) return Value(xs.at(pos++));
  std::vector<Value> elems;
  for (const Sym& e : like.elems) elems.push_back(value_from_scalars(e, xs, pos));
  if (like.kind == Sym::Kind::Record) {
    std::vector<std::pair<std::string, Value>> fields;
    for (size_t k = 0; k < elems.size(); ++k) fields.emplace_back((*like.names)[k], elems[k]);
    return Value::record(std::move(fields));
  }
  return Value::tuple(std::move(elems));
}

std::vector<Scalar> value_scalars(const Value& v) {
  std::vector<Scalar> out;
  std::function<void(const Value&)> go = [&](const Value& x) {
    if (x.kind == Value::Kind::Scalar) out.push_back(x.scalar);
    else if (x.kind == Value::Kind::Tuple || x.kind == Value::Kind::Record)
      for (const Value& e : *x.elems) go(e);
    else throw Fallback("a neutral element that is not a scalar or a tuple of scalars");
  };
  go(v);
  return out;
}

bool value_holds(const Value& v, Value::Kind kind) {
  if (v.kind == kind) return true;
  if ((v.kind == Value::Kind::Tuple || v.kind == Value::Kind::Record) && v.elems)
    return std::any_of(v.elems->begin(), v.elems->end(), [&](const Value& e) { return value_holds(e, kind); });
  return false;
}

std::string join(const std::vector<std::string>& xs) {
  std::string s;
  for (const std::string& x : xs)
    if (s.find(x) == std::string::npos) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Renumbers the free arrays f reads (kir::Read's aux), in every block and
// subroutine.
static void renumber_reads(kir::Function& f, const std::vector<int>& to) {
  std::function<void(kir::Block&)> walk = [&](kir::Block& b) {
    for (kir::Instr& in : b.instrs) {
      if (in.op == kir::Opcode::Read) in.aux = to.at(size_t(in.aux));
      for (kir::Block& nb : in.blocks) walk(nb);
    }
  };
  walk(f.body);
  for (kir::Subroutine& s : f.subs) walk(s.body);
}

// The operator as a kir function of 2k parameters (accumulators, then values).
kir::Function lower_operator(const std::function<Sym(Lowerer&)>& get_op, const Sym& like,
                             const Loc& loc, Lowerer* element) {
  kir::Function f;
  f.name = "op";
  Lowerer lw(f);
  std::vector<Prim> types;
  leaf_prims(like, types);
  std::vector<Reg> acc, x;
  for (Prim t : types) acc.push_back(lw.b().param(t));
  for (Prim t : types) x.push_back(lw.b().param(t));
  size_t p1 = 0, p2 = 0;
  Sym a = lw.rebuild(like, acc, p1), b = lw.rebuild(like, x, p2);
  Sym r = lw.apply(get_op(lw), {a, b}, loc);
  // An operator's sums may hold other constructors than like's layout
  // (every constructor of the type): rearranged into it.
  if (has_sum(like)) r = lw.conform_sums(r, like);
  if (lw.leaf_types(r) != types) throw Fallback("the operator's result type differs from its arguments'");
  lw.b().ret(lw.leaves(r));
  if (!lw.reads().empty()) {
    if (!element) throw PerElementOperands("the operator reads arrays");
    for (const kir::FreeArray& a : f.free_arrays)
      if (a.written) throw Fallback("an operator that writes arrays");
    std::vector<int> to;
    for (const BufferPtr& buf : lw.reads()) to.push_back(element->read_array(buf));
    renumber_reads(f, to);
    f.free_arrays = element->function().free_arrays;
  }
  if (std::string err = kir::verify(f); !err.empty()) throw Fallback("operator: " + err);
  return f;
}

// Indexes `v` at the row-major position `flat % inner` over `dims` (whose
// product is `inner`), one index per dimension, outermost first.
Sym index_row_major(Lowerer& lw, Sym v, Reg flat, int64_t inner, const std::vector<int64_t>& dims, const Loc& loc) {
  kir::Builder& b = lw.b();
  // Rows with an empty dimension have no elements: the code below never
  // runs (the step or loop around it counts inner = 0 elements), but it
  // must still have the element's shape; the strides would divide by zero.
  if (inner <= 0) {
    for (size_t k = 0; k < dims.size(); ++k) v = lw.index(v, b.i64(0), loc, false);
    return v;
  }
  Reg rest = b.binary(kir::BinOp::Rem, flat, b.i64(inner));
  int64_t stride = inner;
  for (int64_t d : dims) {
    stride /= d;
    Reg ix = rest;
    if (stride != 1) {
      ix = b.binary(kir::BinOp::Quot, rest, b.i64(stride));
      rest = b.binary(kir::BinOp::Rem, rest, b.i64(stride));
    } else {
      rest = b.i64(0);  // dimensions of size 1 may follow ([3][1]): their index is 0
    }
    v = lw.index(v, ix, loc, false);
  }
  return v;
}

Sym shape_like(const Sym& s) {
  if (s.kind == Sym::Kind::Scalar) return Sym::scalar(kir::kNoReg, s.prim);
  Sym out;
  out.kind = s.kind;
  out.names = s.names;
  if (s.kind != Sym::Kind::Tuple && s.kind != Sym::Kind::Record && s.kind != Sym::Kind::Sum)
    throw Fallback("non-scalar element values");
  for (const Sym& e : s.elems) out.elems.push_back(shape_like(e));
  return out;
}

void finish_function(kir::Function& f, const char* what, bool element) {
  if (std::string err = kir::verify(f); !err.empty())
    throw Error(ErrorKind::Internal, fmt::format("flattener produced invalid kernel IR for {}: {}\n{}", what, err,
                                                 kir::to_string(f)));
  // THORN_KIR_SIMPLIFY=0 keeps the lowering's IR as it is, for comparison.
  static const bool simplify = [] {
    const char* v = std::getenv("THORN_KIR_SIMPLIFY");
    return !(v && std::string(v) == "0");
  }();
  if (!simplify) return;
  kir::simplify(f, element);
  if (std::string err = kir::verify(f); !err.empty())
    throw Error(ErrorKind::Internal, fmt::format("kernel IR simplification broke the {}: {}\n{}", what, err,
                                                 kir::to_string(f)));
}

// A step over `segments` regular segments of `size` elements each, at the
// SOAC call `loc`; its element function is written by the caller.
plan::Step new_step(plan::StepKind kind, const Loc& loc, int64_t segments, int64_t size) {
  plan::Step st;
  st.kind = kind;
  st.loc = loc;
  st.segments = segments;
  st.segment_size = size;
  st.element.name = "element";
  return st;
}

}  // namespace thorn::flatten::planning
