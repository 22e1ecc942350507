// Lowering of run-time values (see lower.hpp): captured variables as capture
// sources or constants, arrays as views of their buffers or inlined producers.
#include "interp/flatten/lower.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "interp/eval/scalar_ops.hpp"
#include "interp/flatten/delayed.hpp"
#include "interp/flatten/elem_tree.hpp"
#include "interp/flatten/sum_columns.hpp"
#include "interp/syntax/print.hpp"

namespace thorn::flatten {

using kir::Reg;

// ------------------------------------------------------------------ capture sources (captures.hpp)

Sym Lowerer::from_source(const Value& v, int src) {
  if (!cap_) return from_value(v);
  if (auto it = src_syms_.find(src); it != src_syms_.end()) return it->second;
  CaptureSource& cs = cap_->sources.at(size_t(src));
  std::string sig, why;
  if (!signature(v, cs.step == CaptureSource::Step::Input, sig, nullptr, &why, cap_->copy_delayed_up_to)) {
    cap_->refuse(why);
    return from_value(v);
  }
  cs.sig = std::move(sig);
  int saved_src = cur_src_, saved_leaf = array_leaf_;
  cur_src_ = src;
  array_leaf_ = 0;
  int scalar_leaf = 0;
  Sym s = lift_value(v, src, scalar_leaf, 0);
  cur_src_ = saved_src;
  array_leaf_ = saved_leaf;
  // Constants are re-made at each use (valid in any block); parameters are
  // entry-block registers, valid everywhere.
  if (cap_->lift) src_syms_[src] = s;
  return s;
}

// As from_value, in signature()'s leaf order.
Sym Lowerer::lift_value(const Value& v, int src, int& scalar_leaf, int depth) {
  switch (v.kind) {
    case Value::Kind::Scalar:
      if (!cap_->lift) {
        cap_->refuse("captured scalars kept as constants");
        return constant(v.scalar);
      }
      return param(v.scalar, src, scalar_leaf++);
    case Value::Kind::Tuple:
    case Value::Kind::Record: {
      Sym s;
      s.kind = v.kind == Value::Kind::Tuple ? Sym::Kind::Tuple : Sym::Kind::Record;
      for (const Value& x : *v.elems) s.elems.push_back(lift_value(x, src, scalar_leaf, depth + 1));
      s.names = v.names;
      return s;
    }
    case Value::Kind::Function:
      // A closure inside a tuple has no path of its own to its environment.
      cap_->callable_src[v.fn.get()] = depth == 0 ? src : -3;
      return from_value(v);
    case Value::Kind::Sum:
      return sum_value(v, [&](const Value& x) { return lift_value(x, src, scalar_leaf, depth + 1); });
    default: return from_value(v);
  }
}

// A captured scalar as a kernel-IR parameter: a read of a one-element
// buffer, hoisted to the entry block so that every block may use it.
Sym Lowerer::param(const Scalar& s, int src, int leaf) {
  int id = b_.free_array(s.type, fmt::format("p{}", f_.free_arrays.size()));
  auto buf = std::make_shared<Buffer>(s.type, 1, Buffer::NoInit{});
  store_scalar(buf->host_mut(), s);
  reads_.push_back(buf);
  ReadBinding r;
  r.kind = ReadBinding::Kind::Param;
  r.source = src;
  r.leaf = leaf;
  r.prim = s.type;
  cap_->reads.push_back(r);
  cap_->lifted = true;
  kir::Instr zero;
  zero.op = kir::Opcode::Const;
  zero.type = Prim::I64;
  zero.imm = Scalar::i64(0);
  zero.dst = f_.new_reg(Prim::I64);
  kir::Instr rd;
  rd.op = kir::Opcode::Read;
  rd.type = s.type;
  rd.aux = id;
  rd.a = zero.dst;
  rd.dst = f_.new_reg(s.type);
  Reg dst = rd.dst;
  f_.body.instrs.insert(f_.body.instrs.begin(), {std::move(zero), std::move(rd)});
  return Sym::scalar(dst, s.type);
}

int Lowerer::source_of(const Callable& c) const {
  if (!cap_) return -1;
  auto it = cap_->callable_src.find(&c);
  return it == cap_->callable_src.end() ? -1 : it->second;
}

Sym Lowerer::held_arg(const Callable& c, size_t k) {
  int src = source_of(c);
  if (src >= 0) return from_source(c.args.at(k), cap_->source(src, CaptureSource::Step::Arg, "", int(k)).first);
  if (src == -3) cap_->refuse("a partial application the cache cannot find again");
  return from_value(c.args.at(k));
}

Sym Lowerer::held_fn(const Callable& c) {
  int src = source_of(c);
  if (src >= 0) return from_source(Value::function(c.fn), cap_->source(src, CaptureSource::Step::InnerFn, "", 0).first);
  if (src == -3) cap_->refuse("a partial application the cache cannot find again");
  return from_value(Value::function(c.fn));
}

std::shared_ptr<Scope> Lowerer::child_scope(ScopePtr parent) const {
  auto s = std::make_shared<Scope>();
  s->parent = std::move(parent);
  s->owner = this;
  return s;
}

// A value found in a scope built by another Lowerer (a lambda captured by
// an operator, say) may name that function's registers: only plan-time
// constants and functions can cross over.
// ------------------------------------------------------------------ values

int Lowerer::array_index(const BufferPtr& buf) {
  auto it = array_ids_.find(buf.get());
  if (it != array_ids_.end()) {
    if (cap_ && cur_src_ >= 0) cap_->aliases.emplace_back(cur_src_, array_leaf_++, it->second);
    return it->second;
  }
  buf->materialise_delayed();  // a delayed buffer now, on this thread; a GPU-resident one stays there
  int id = b_.free_array(buf->elem(), fmt::format("in{}", reads_.size()));
  reads_.push_back(buf);
  array_ids_[buf.get()] = id;
  if (cap_) {
    // Outside a source: a module-level array, the same on every call.
    ReadBinding r;
    if (cur_src_ >= 0) {
      r.kind = ReadBinding::Kind::SourceArray;
      r.source = cur_src_;
      r.leaf = array_leaf_++;
    } else {
      r.fixed = buf;
    }
    cap_->reads.push_back(r);
  }
  return id;
}

int Lowerer::output_array(const BufferPtr& buf, std::string name) {
  int id = b_.free_array(buf->elem(), std::move(name));
  f_.free_arrays[size_t(id)].written = true;
  reads_.push_back(buf);
  array_ids_[buf.get()] = id;
  if (cap_) {
    ReadBinding r;
    r.kind = ReadBinding::Kind::Output;
    cap_->reads.push_back(r);
  }
  return id;
}

// An array of tuples whose components are arrays of their own (or have
// other shapes): Futhark's tuple of arrays, zipped back into an array whose
// element at i is the tuple of the components' elements at i.
static Sym zipped(Lowerer& lw, std::vector<Sym> comps, const ElemShape& elem, std::vector<int64_t> dims) {
  auto arr = std::make_shared<SymArr>();
  arr->dims = dims;
  arr->fused = "";
  Lowerer* l = &lw;
  arr->gen = [l, comps, elem, dims](Reg i) -> Sym {
    std::vector<Sym> xs;
    for (const Sym& c : comps) xs.push_back(l->index(c, i, Loc{}, false));
    if (dims.size() > 1) return zipped(*l, std::move(xs), elem, std::vector<int64_t>(dims.begin() + 1, dims.end()));
    Sym s;
    s.kind = elem.kind == ElemShape::Kind::Record ? Sym::Kind::Record : Sym::Kind::Tuple;
    s.elems = std::move(xs);
    if (s.kind == Sym::Kind::Record) s.names = std::make_shared<std::vector<std::string>>(elem.names);
    return s;
  };
  Sym s;
  s.kind = Sym::Kind::Array;
  s.arr = arr;
  return s;
}

Sym Lowerer::view_of(const ArrayValue& a) {
  if (a.elem.kind == ElemShape::Kind::Boxed) return sum_array_view(a);
  std::vector<const ArrayValue*> prims;
  if (flat_leaves(a, prims)) {
    auto arr = std::make_shared<SymArr>();
    arr->dims = a.shape;
    arr->elem = a.elem;
    for (const ArrayValue* p : prims) arr->leaves.push_back({array_index(p->buffer), p->offset, p->elem.prim});
    Sym s;
    s.kind = Sym::Kind::Array;
    s.arr = arr;
    return s;
  }
  if (a.elem.kind == ElemShape::Kind::Prim) throw Fallback("an array without a buffer");
  // Components with more dimensions than the array: viewed one by one (in
  // the same depth-first leaf order as a flat tuple, for the plan cache).
  std::vector<Sym> comps;
  for (const ArrayPtr& c : a.components) comps.push_back(view_of(*c));
  return zipped(*this, std::move(comps), a.elem, a.shape);
}

// Dimensions shape[from..] of a row-major array whose flat index so far is
// `base` (kNoReg: 0), its elements `element(flat)`: a generated array of
// generated arrays, down to the elements.
static Sym row_major(Lowerer& lw, const std::vector<int64_t>& shape, size_t from, Reg base, const std::string& fused,
                     const std::function<Sym(Reg)>& element) {
  auto arr = std::make_shared<SymArr>();
  arr->dims.assign(shape.begin() + long(from), shape.end());
  arr->fused = fused;
  int64_t stride = 1;
  for (size_t k = from + 1; k < shape.size(); ++k) stride *= shape[k];
  Lowerer* l = &lw;
  arr->gen = [l, shape, from, base, stride, fused, element](Reg i) -> Sym {
    kir::Builder& b = l->b();
    Reg flat = i;
    if (stride != 1) flat = b.binary(kir::BinOp::Mul, i, b.i64(stride));
    if (base != kir::kNoReg) flat = b.binary(kir::BinOp::Add, base, flat);
    if (from + 1 == shape.size()) return element(flat);
    return row_major(*l, shape, from + 1, flat, fused, element);
  };
  Sym s;
  s.kind = Sym::Kind::Array;
  s.arr = arr;
  return s;
}

Sym Lowerer::sum_array_view(const ArrayValue& a) {
  const int64_t count = a.count();
  if (count == 0) throw Fallback("an empty array of sum types");
  std::vector<const Value*> rows;
  rows.reserve(size_t(count));
  for (int64_t k = 0; k < count; ++k) {
    const Value& v = (*a.boxed)[size_t(a.offset + k)];
    if (v.kind != Value::Kind::Sum) throw Fallback("arrays of functions");
    rows.push_back(&v);
  }
  std::string why;
  std::optional<Columns> cols = columns_of(rows, why);
  if (!cols) throw Fallback(why);
  auto c = std::make_shared<const Columns>(std::move(*cols));
  return row_major(*this, a.shape, 0, kir::kNoReg, "", [this, c](Reg flat) { return column_element(*c, flat); });
}

Sym Lowerer::column_element(const Columns& c, Reg flat) {
  switch (c.kind) {
    case Columns::Kind::Prim: return Sym::scalar(b_.read(array_index(c.column), flat), c.prim);
    case Columns::Kind::Tuple:
    case Columns::Kind::Record: {
      Sym s;
      s.kind = c.kind == Columns::Kind::Tuple ? Sym::Kind::Tuple : Sym::Kind::Record;
      if (c.kind == Columns::Kind::Record) s.names = std::make_shared<std::vector<std::string>>(c.names);
      for (const Columns& f : c.children) s.elems.push_back(column_element(f, flat));
      return s;
    }
    case Columns::Kind::Sum: {
      Sym s;
      s.kind = Sym::Kind::Sum;
      s.names = std::make_shared<std::vector<std::string>>(c.names);
      s.elems.push_back(Sym::scalar(b_.read(array_index(c.column), flat), Prim::I32));
      for (const Columns& payload : c.children) s.elems.push_back(column_element(payload, flat));
      return s;
    }
  }
  throw Fallback("arrays of sum types");
}

// The element function of a delayed array, inlined at flat index `flat`.
static Sym producer_element(Lowerer& lw, const ProducerPtr& p, const std::vector<int>& arrays, Reg flat) {
  std::vector<Reg> regs = lw.b().inline_call(p->elem, {flat}, arrays);
  std::vector<Sym> parts;
  for (size_t k = 0; k < regs.size(); ++k) parts.push_back(Sym::scalar(regs[k], p->leaves[k]));
  size_t pos = 0;
  return sym_from_parts(p->elem_shape, parts, pos);
}

Sym Lowerer::producer_array(const ArrayValue& a) {
  ProducerPtr p = delayed_producer(a);
  std::vector<int> arrays;
  for (const BufferPtr& r : p->reads) arrays.push_back(array_index(r));
  fused.push_back(p->what);
  if (p->shape.empty()) throw Fallback("a delayed scalar");
  // a.shape: maybe a reshape of p's.
  return row_major(*this, a.shape, 0, kir::kNoReg, p->what,
                   [this, p, arrays](Reg flat) { return producer_element(*this, p, arrays, flat); });
}

// Fusing a producer into a consumer recomputes it for every consumer, so
// only cheap producers are fused; an expensive one (a loop per element, a
// long body) is materialised once by its first consumer and then read.
static bool cheap_to_recompute(const kir::Function& f) {
  size_t n = 0;
  std::function<bool(const kir::Block&)> go = [&](const kir::Block& b) {
    for (const kir::Instr& in : b.instrs) {
      if (in.op == kir::Opcode::For || in.op == kir::Opcode::While) return false;
      if (in.op == kir::Opcode::Call) return false;  // a subroutine is big (lower_subroutine.cpp)
      if (++n > 64) return false;
      for (const kir::Block& nb : in.blocks)
        if (!go(nb)) return false;
    }
    return true;
  };
  return go(f.body);
}

Sym Lowerer::array_of(const Value& v) {
  const ArrayValue& a = v.arr();
  if (ProducerPtr p = delayed_producer(a); p && cheap_to_recompute(p->elem)) return producer_array(a);
  return view_of(a);
}

Sym Lowerer::from_value(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Scalar: return constant(v.scalar);
    case Value::Kind::Tuple:
    case Value::Kind::Record: {
      Sym s;
      s.kind = v.kind == Value::Kind::Tuple ? Sym::Kind::Tuple : Sym::Kind::Record;
      for (const Value& x : *v.elems) s.elems.push_back(from_value(x));
      s.names = v.names;
      return s;
    }
    case Value::Kind::Array: return array_of(v);
    case Value::Kind::Function: {
      auto fn = std::make_shared<SymFn>();
      fn->kind = SymFn::Kind::Value;
      fn->value = v.fn;
      Sym s;
      s.kind = Sym::Kind::Function;
      s.fn = fn;
      return s;
    }
    case Value::Kind::Sum: return sum_value(v, [&](const Value& x) { return from_value(x); });
    default: break;
  }
  throw Fallback("values of this kind");
}

}  // namespace thorn::flatten
