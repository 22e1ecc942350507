// Lowering of expressions (see lower.hpp).
#include "interp/flatten/lower.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "interp/eval/scalar_ops.hpp"
#include "interp/flatten/delayed.hpp"
#include "interp/flatten/elem_tree.hpp"
#include "interp/syntax/print.hpp"

namespace thorn::flatten {

using kir::Reg;

Sym Sym::tuple(std::vector<Sym> xs) {
  if (xs.size() == 1) return std::move(xs[0]);
  Sym s;
  s.kind = Kind::Tuple;
  s.elems = std::move(xs);
  return s;
}

Lowerer::Lowerer(kir::Function& f, eval::Evaluator& ev) : f_(f), b_(f), ev_(ev) {}

ScopePtr Lowerer::root_scope(eval::EnvPtr env, int source) const {
  auto s = std::make_shared<Scope>();
  s->env = std::move(env);
  s->owner = this;
  s->source = source;
  return s;
}

// ------------------------------------------------------------------ capture sources (captures.hpp)

Sym Lowerer::from_source(const Value& v, int src) {
  if (!cap_) return from_value(v);
  if (auto it = src_syms_.find(src); it != src_syms_.end()) return it->second;
  CaptureSource& cs = cap_->sources.at(size_t(src));
  std::string sig, why;
  if (!signature(v, cs.step == CaptureSource::Step::Input, sig, nullptr, &why)) {
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
static bool portable(const Sym& s) {
  switch (s.kind) {
    case Sym::Kind::Scalar: return s.known.has_value();
    case Sym::Kind::Tuple:
    case Sym::Kind::Record:
      for (const Sym& e : s.elems)
        if (!portable(e)) return false;
      return true;
    case Sym::Kind::Function:
      for (const Sym& e : s.fn->args)
        if (!portable(e)) return false;
      return true;
    default: return false;
  }
}

Sym Lowerer::import(const Sym& s) {
  if (!portable(s)) throw Fallback("an operator that depends on the mapped element");
  return localise(s);
}

Sym Lowerer::localise(const Sym& s) {
  switch (s.kind) {
    case Sym::Kind::Scalar: return constant(*s.known);
    case Sym::Kind::Tuple:
    case Sym::Kind::Record: {
      Sym out = s;
      for (Sym& e : out.elems) e = localise(e);
      return out;
    }
    case Sym::Kind::Function: {
      auto fn = std::make_shared<SymFn>(*s.fn);
      for (Sym& e : fn->args) e = localise(e);
      Sym out = s;
      out.fn = fn;
      return out;
    }
    default: return s;
  }
}

Sym Lowerer::constant(const Scalar& s) { return Sym::scalar(b_.constant(s), s.type, s); }

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
  if (a.elem.kind == ElemShape::Kind::Boxed) throw Fallback("arrays of sum types or functions");
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

// The element function of a delayed array, inlined at flat index `flat`.
static Sym producer_element(Lowerer& lw, const ProducerPtr& p, const std::vector<int>& arrays, Reg flat) {
  std::vector<Reg> regs = lw.b().inline_call(p->elem, {flat}, arrays);
  std::vector<Sym> parts;
  for (size_t k = 0; k < regs.size(); ++k) parts.push_back(Sym::scalar(regs[k], p->leaves[k]));
  size_t pos = 0;
  return sym_from_parts(p->elem_shape, parts, pos);
}

// A generated array over dims[from..] of a producer whose flat index so far is `base`.
static Sym producer_dims(Lowerer& lw, const ProducerPtr& p, std::vector<int> arrays, size_t from, Reg base) {
  auto arr = std::make_shared<SymArr>();
  arr->dims.assign(p->shape.begin() + long(from), p->shape.end());
  arr->fused = p->what;
  int64_t stride = 1;
  for (size_t k = from + 1; k < p->shape.size(); ++k) stride *= p->shape[k];
  Lowerer* l = &lw;
  arr->gen = [l, p, arrays, from, base, stride](Reg i) -> Sym {
    kir::Builder& b = l->b();
    Reg flat = i;
    if (stride != 1) flat = b.binary(kir::BinOp::Mul, i, b.i64(stride));
    if (base != kir::kNoReg) flat = b.binary(kir::BinOp::Add, base, flat);
    if (from + 1 == p->shape.size()) return producer_element(*l, p, arrays, flat);
    return producer_dims(*l, p, arrays, from + 1, flat);
  };
  Sym s;
  s.kind = Sym::Kind::Array;
  s.arr = arr;
  return s;
}

Sym Lowerer::producer_array(const ArrayValue& a) {
  ProducerPtr p = delayed_producer(a);
  std::vector<int> arrays;
  for (const BufferPtr& r : p->reads) arrays.push_back(array_index(r));
  fused.push_back(p->what);
  if (p->shape.empty()) throw Fallback("a delayed scalar");
  return producer_dims(*this, p, arrays, 0, kir::kNoReg);
}

// Fusing a producer into a consumer recomputes it for every consumer, so
// only cheap producers are fused; an expensive one (a loop per element, a
// long body) is materialised once by its first consumer and then read.
static bool cheap_to_recompute(const kir::Function& f) {
  size_t n = 0;
  std::function<bool(const kir::Block&)> go = [&](const kir::Block& b) {
    for (const kir::Instr& in : b.instrs) {
      if (in.op == kir::Opcode::For || in.op == kir::Opcode::While) return false;
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
    case Value::Kind::Sum: break;
  }
  throw Fallback("values of sum types");
}

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
      shape += k == 0 && a.len != kir::kNoReg ? std::string("[n]") : fmt::format("[{}]", a.dims[k]);
    b_.check(ok, fmt::format("Index out of bounds for array of shape {}.", shape), loc);
  }
  if (a.gen) return a.gen(i);
  int64_t stride = 1;
  for (size_t k = 1; k < a.dims.size(); ++k) stride *= a.dims[k];
  Reg off = stride == 1 ? i : b_.binary(kir::BinOp::Mul, i, b_.i64(stride));
  if (a.rel != kir::kNoReg) off = b_.binary(kir::BinOp::Add, a.rel, off);
  if (a.dims.size() > 1) {
    auto sub = std::make_shared<SymArr>(a);
    sub->dims.erase(sub->dims.begin());
    sub->len = kir::kNoReg;
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
        throw Fallback("a read of an array through a view made before the array was updated in place");
      parts.push_back(Sym::scalar(b_.local_read(leaf.array, at), leaf.prim));
    } else {
      parts.push_back(Sym::scalar(b_.read(leaf.array, at), leaf.prim));
    }
  }
  size_t pos = 0;
  return sym_from_parts(a.elem, parts, pos);
}

std::vector<Reg> Lowerer::leaves(const Sym& v) const {
  std::vector<Reg> out;
  std::function<void(const Sym&)> go = [&](const Sym& s) {
    switch (s.kind) {
      case Sym::Kind::Scalar: out.push_back(s.reg); return;
      case Sym::Kind::Tuple:
      case Sym::Kind::Record:
        for (const Sym& e : s.elems) go(e);
        return;
      case Sym::Kind::Array: throw Fallback("an array where only scalars are supported");
      case Sym::Kind::Function: throw Fallback("a function value where only scalars are supported");
      case Sym::Kind::Soac: throw Fallback("a nested SOAC whose result is used further");
    }
  };
  go(v);
  return out;
}

std::vector<Prim> Lowerer::leaf_types(const Sym& v) const {
  std::vector<Prim> out;
  for (Reg r : leaves(v)) out.push_back(f_.reg_types[size_t(r)]);
  return out;
}

Sym Lowerer::rebuild(const Sym& like, const std::vector<Reg>& regs, size_t& pos) const {
  if (like.kind == Sym::Kind::Scalar) {
    Reg r = regs.at(pos++);
    return Sym::scalar(r, f_.reg_types[size_t(r)]);
  }
  Sym s;
  s.kind = like.kind;
  s.names = like.names;
  for (const Sym& e : like.elems) s.elems.push_back(rebuild(e, regs, pos));
  return s;
}

Sym Lowerer::rebuild_value(const Value& like, const std::vector<Reg>& regs, size_t& pos) const {
  if (like.kind == Value::Kind::Scalar) {
    Reg r = regs.at(pos++);
    return Sym::scalar(r, f_.reg_types[size_t(r)]);
  }
  if (like.kind != Value::Kind::Tuple && like.kind != Value::Kind::Record)
    throw Fallback("operator values that are not scalars or tuples of scalars");
  Sym s;
  s.kind = like.kind == Value::Kind::Tuple ? Sym::Kind::Tuple : Sym::Kind::Record;
  s.names = like.names;
  for (const Value& e : *like.elems) s.elems.push_back(rebuild_value(e, regs, pos));
  return s;
}

Sym Lowerer::project(const Sym& v, const std::string& field, const Loc&) const {
  if (v.kind == Sym::Kind::Tuple) {
    size_t k = size_t(std::stoul(field));
    if (k < v.elems.size()) return v.elems[k];
  } else if (v.kind == Sym::Kind::Record && v.names) {
    for (size_t k = 0; k < v.names->size(); ++k)
      if ((*v.names)[k] == field) return v.elems[k];
  }
  throw Fallback("projection of a field the flattener cannot see");
}

// ------------------------------------------------------------------ names and patterns

// Whether `name` resolves in a local frame (a let, a parameter, a loop
// variable) rather than a module-level namespace (fixed for the program).
static bool bound_locally(const eval::EnvPtr& env, const std::string& name) {
  for (const eval::Env* e = env.get(); e; e = e->parent.get()) {
    if (e->ns) {
      if (e->ns->values.count(name)) return false;
    } else {
      for (auto it = e->locals.rbegin(); it != e->locals.rend(); ++it)
        if (it->first == name) return true;
    }
  }
  return false;
}

Sym Lowerer::lookup(const QualName& name, const ScopePtr& sc, const Loc& loc) {
  const Scope* s = sc.get();
  // A module-level binding (of the closure's environment or of a module
  // opened by `M.(e)`) as a symbolic value.
  auto module_level = [&](const eval::Binding& b) {
    if (b.lazy) throw Fallback(fmt::format("`{}` is a polymorphic constant", name.str()));
    if (b.consumed) throw Fallback(fmt::format("`{}` was consumed", name.str()));
    return from_value(b.value);
  };
  for (const Scope* o = s; o; o = o->parent.get()) {
    if (!o->opened) continue;
    if (name.qualifiers.empty()) {
      // Only frames inside the opened one may shadow its names.
      bool shadowed = false;
      for (const Scope* i = s; i != o && !shadowed; i = i->parent.get())
        for (const auto& v : i->vars) shadowed |= v.first == name.name;
      if (shadowed) break;
      auto it = o->opened->values.find(name.name);
      if (it != o->opened->values.end()) return module_level(it->second);
    } else if (const eval::Binding* b = eval::lookup_value(eval::extend_scope(nullptr, o->opened), name)) {
      return module_level(*b);
    }
  }
  if (name.qualifiers.empty()) {
    for (; s; s = s->parent.get()) {
      for (auto it = s->vars.rbegin(); it != s->vars.rend(); ++it) {
        if (it->first != name.name) continue;
        if (s->owner == this) {
          // Constants are re-made where they are used, so they are valid in any block.
          if (it->second.is_scalar() && it->second.known) return constant(*it->second.known);
          return it->second;
        }
        if (!portable(it->second))
          throw Fallback(fmt::format("`{}` is captured from the mapped element by an operator", name.name));
        return localise(it->second);
      }
      if (!s->parent) break;
    }
  } else {
    while (s && s->parent) s = s->parent.get();
  }
  const eval::Binding* bnd = s ? eval::lookup_value(s->env, name) : nullptr;
  if (bnd) {
    if (bnd->lazy) throw Fallback(fmt::format("`{}` is a polymorphic constant", name.str()));
    if (bnd->consumed) throw Fallback(fmt::format("`{}` was consumed", name.str()));
    if (cap_ && name.qualifiers.empty() && bound_locally(s->env, name.name)) {
      // A variable of a local frame: it may differ on the next call.
      if (s->source >= 0)
        return from_source(bnd->value, cap_->source(s->source, CaptureSource::Step::EnvName, name.name, 0).first);
      cap_->refuse(fmt::format("`{}` is captured by a function the cache cannot find again", name.name));
    }
    return from_value(bnd->value);
  }
  if (name.qualifiers.empty() && eval::is_builtin_operator(name.name)) {
    auto fn = std::make_shared<SymFn>();
    fn->kind = SymFn::Kind::Operator;
    fn->name = name.name;
    Sym r;
    r.kind = Sym::Kind::Function;
    r.fn = fn;
    return r;
  }
  throw Fallback(fmt::format("unbound name `{}` at {}", name.str(), loc.str()));
}

void Lowerer::bind_sizes(const TypeExpr& t, const Sym& v, std::vector<std::pair<std::string, Sym>>& out) {
  const TypeExpr* te = &t;
  while (te && te->kind == TypeExpr::Kind::Unique) te = te->elem.get();
  if (!te || te->kind != TypeExpr::Kind::Array || v.kind != Sym::Kind::Array) return;
  const std::vector<int64_t>& dims = v.arr->dims;
  for (size_t k = 0; te && te->kind == TypeExpr::Kind::Array && k < dims.size(); ++k, te = te->elem.get()) {
    if (te->size.kind == SizeExpr::Kind::Name && te->size.name.qualifiers.empty())
      out.emplace_back(te->size.name.name, k == 0 && v.arr->len != kir::kNoReg
                                               ? Sym::scalar(v.arr->len, Prim::I64)
                                               : constant(Scalar::i64(dims[k])));
  }
}

void Lowerer::bind(const Pattern& p, const Sym& v, std::vector<std::pair<std::string, Sym>>& out,
                   const std::vector<TypeParam>* sizes) {
  switch (p.kind) {
    case Pattern::Kind::Id: out.emplace_back(p.name, v); return;
    case Pattern::Kind::Wildcard: return;
    case Pattern::Kind::Tuple:
      if (v.kind != Sym::Kind::Tuple || v.elems.size() != p.elems.size())
        throw Fallback("tuple pattern on a value of another shape");
      for (size_t k = 0; k < p.elems.size(); ++k) bind(*p.elems[k], v.elems[k], out, sizes);
      return;
    case Pattern::Kind::Record:
      for (const auto& [field, sub] : p.fields) {
        Sym f = project(v, field, p.loc);
        if (sub) bind(*sub, f, out, sizes);
        else out.emplace_back(field, f);
      }
      return;
    case Pattern::Kind::Ascribed:
      if (p.ascription) bind_sizes(*p.ascription, v, out);
      bind(*p.inner, v, out, sizes);
      return;
    case Pattern::Kind::Literal:
    case Pattern::Kind::Constructor: break;
  }
  throw Fallback("refutable patterns");
}

// ------------------------------------------------------------------ expressions

// Branches that yield arrays: each array result is put in one private
// array both branches write (the result storage). A branch result that is
// a private array updated in that branch (so consumed: Futhark's
// uniqueness rules) is itself the storage, and the other branch copies
// into it unless it yields that same array.
Sym Lowerer::if_with_arrays(Reg cond, const std::function<Sym()>& then, const std::function<Sym()>& otherwise) {
  std::vector<int> before = local_version;
  std::vector<Sym> storage;
  std::vector<Reg> tregs, eregs;
  Sym ts, es;
  auto changed = [&](const Sym& arr) {
    for (const SymArr::Leaf& l : arr.arr->leaves) {
      int was = size_t(l.array) < before.size() ? before[size_t(l.array)] : 0;
      if (!l.local || l.version == was) return false;
    }
    return true;
  };
  kir::Block tb = b_.capture([&] {
    ts = then();
    std::vector<Sym> arrays;
    split_state(ts, tregs, arrays);
    for (const Sym& a : arrays) {
      if (dynamic(a)) throw Fallback("if branches yielding arrays whose length depends on the element");
      if (is_private_whole(a) && changed(a)) storage.push_back(a);
      else storage.push_back(materialise(a, Loc{}));
    }
    return tregs;
  });
  std::vector<int> after_then = local_version;
  local_version = before;
  kir::Block eb = b_.capture([&] {
    es = otherwise();
    std::vector<Sym> arrays;
    split_state(es, eregs, arrays);
    if (arrays.size() != storage.size()) throw Fallback("if branches of different shapes");
    for (size_t k = 0; k < arrays.size(); ++k) {
      const Sym& a = arrays[k];
      if (dynamic(a) || a.arr->dims != storage[k].arr->dims) throw Fallback("if branches of different shapes");
      bool same = a.kind == Sym::Kind::Array && !a.arr->gen && a.arr->rel == kir::kNoReg &&
                  a.arr->leaves.size() == storage[k].arr->leaves.size();
      for (size_t l = 0; same && l < a.arr->leaves.size(); ++l)
        same = a.arr->leaves[l].local && a.arr->leaves[l].array == storage[k].arr->leaves[l].array &&
               a.arr->leaves[l].base == 0;
      if (same) continue;
      // Through a fresh copy when the value may read the storage.
      copy_into(storage[k], is_private_whole(a) ? a : materialise(a, Loc{}), Loc{});
    }
    return eregs;
  });
  for (size_t k = 0; k < after_then.size(); ++k)
    if (k >= local_version.size() || after_then[k] > local_version[k]) {
      if (k >= local_version.size()) local_version.resize(k + 1, 0);
      local_version[k] = after_then[k];
    }
  if (types_of(tregs) != types_of(eregs)) throw Fallback("if branches of different shapes");
  std::vector<Reg> out = b_.if_(
      cond,
      [&] {
        b_.append(std::move(tb.instrs));
        return tb.results;
      },
      [&] {
        b_.append(std::move(eb.instrs));
        return eb.results;
      });
  std::vector<Sym> arrays;
  for (const Sym& st : storage) {
    for (const SymArr::Leaf& l : st.arr->leaves) bump_version(l.array);
    arrays.push_back(with_current_versions(st));
  }
  size_t pr = 0, pa = 0;
  return join_state(ts, out, pr, arrays, pa);
}

std::vector<Prim> Lowerer::types_of(const std::vector<Reg>& regs) const {
  std::vector<Prim> t;
  for (Reg r : regs) t.push_back(f_.reg_types[size_t(r)]);
  return t;
}

static bool has_array(const Sym& s) {
  if (s.kind == Sym::Kind::Array) return true;
  for (const Sym& e : s.elems)
    if (has_array(e)) return true;
  return false;
}

Sym Lowerer::select_or_if(const Sym& cond, const std::function<Sym()>& then, const std::function<Sym()>& otherwise) {
  Sym ts, es;
  std::vector<int> versions = local_version;
  bool arrays = false;
  kir::Block tb = b_.capture([&] {
    ts = then();
    arrays = has_array(ts);
    return arrays ? std::vector<Reg>{} : leaves(ts);
  });
  if (arrays) {
    // Lowered again with the arrays' storage (the first lowering is dropped).
    local_version = versions;
    return if_with_arrays(cond.reg, then, otherwise);
  }
  kir::Block eb = b_.capture([&] {
    es = otherwise();
    return leaves(es);
  });
  if (leaf_types(ts) != leaf_types(es)) throw Fallback("if branches of different shapes");
  auto cheap = [](const kir::Block& blk) {
    if (blk.instrs.size() > 8) return false;
    for (const kir::Instr& in : blk.instrs)
      if (in.op == kir::Opcode::Check || in.op == kir::Opcode::Read || !in.blocks.empty()) return false;
    return true;
  };
  std::vector<Reg> out;
  if (cheap(tb) && cheap(eb)) {
    // Branch-free: both sides are cheap and cannot fail.
    b_.append(std::move(tb.instrs));
    b_.append(std::move(eb.instrs));
    for (size_t k = 0; k < tb.results.size(); ++k) out.push_back(b_.select(cond.reg, tb.results[k], eb.results[k]));
  } else {
    out = b_.if_(
        cond.reg,
        [&] {
          b_.append(std::move(tb.instrs));
          return tb.results;
        },
        [&] {
          b_.append(std::move(eb.instrs));
          return eb.results;
        });
  }
  size_t pos = 0;
  return rebuild(ts, out, pos);
}

Sym Lowerer::lower_if(const Expr& e, const ScopePtr& sc) {
  Sym c = lower(*e.a, sc);
  if (!c.is_scalar() || c.prim != Prim::Bool) throw Fallback("if on a non-boolean");
  if (c.known) return lower(c.known->b ? *e.b : *e.c, sc);
  return select_or_if(c, [&] { return lower(*e.b, sc); }, [&] { return lower(*e.c, sc); });
}

Sym Lowerer::logical(bool is_and, const Expr& lhs, const Expr& rhs, const ScopePtr& sc) {
  Sym a = lower(lhs, sc);
  if (a.known) {
    if (is_and ? !a.known->b : a.known->b) return a;
    return lower(rhs, sc);
  }
  // Short-circuit: the right side runs only where it decides the result.
  if (is_and) return select_or_if(a, [&] { return lower(rhs, sc); }, [&] { return constant(Scalar::boolean(false)); });
  return select_or_if(a, [&] { return constant(Scalar::boolean(true)); }, [&] { return lower(rhs, sc); });
}

Sym Lowerer::lower_binop(const Expr& e, const ScopePtr& sc) {
  // As the evaluator: a name bound to a built-in operator (or unbound) is
  // the built-in; anything else is a function to apply.
  std::string op = e.name.name;
  bool builtin = false;
  Sym fn;
  try {
    fn = lookup(e.name, sc, e.loc);
    if (fn.kind == Sym::Kind::Function && fn.fn->kind == SymFn::Kind::Operator) builtin = true;
    if (fn.kind == Sym::Kind::Function && fn.fn->kind == SymFn::Kind::Value &&
        fn.fn->value->kind == Callable::Kind::Operator) {
      builtin = true;
      op = fn.fn->value->name;
    }
  } catch (const Fallback&) {
    if (!eval::is_builtin_operator(e.name.name)) throw;
    builtin = true;
  }
  if (builtin && (op == "&&" || op == "||")) return logical(op == "&&", *e.a, *e.b, sc);
  Sym x = lower(*e.a, sc), y = lower(*e.b, sc);
  if (builtin) return binop(op, x, y, e.loc);
  return apply(fn, {x, y}, e.loc);
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
  if (probe.kind == Sym::Kind::Array) {
    if (probe.arr->len != kir::kNoReg) throw Fallback("slices of dynamic length in more than one dimension");
    for (int64_t d : probe.arr->dims) out->dims.push_back(d);
  }
  out->fused = "slice";
  Lowerer* l = this;
  out->gen = [l, sliced, ix, k, loc](Reg i) { return l->index_all(l->index(sliced, i, loc, false), ix, k + 1, loc); };
  Sym s;
  s.kind = Sym::Kind::Array;
  s.arr = out;
  return s;
}

// xs[a:b:s]: a generated array whose element i is xs[a + i*s]. With bounds
// known when the nest starts, its length is fixed and bounds the reference
// would reject fall back, so that it reports them; with bounds computed in
// the element, its length is a register and the bounds are checked at run
// time (the stride must still be known).
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
  } else if (ix.span && s == 1 && ix.start) {
    // xs[a : a + k]: 0 <= a and a + k <= n at run time, length k.
    Reg n = length_reg(arr);
    Reg a = ix.start->reg;
    Reg b = b_.binary(kir::BinOp::Add, a, b_.i64(*ix.span));
    b_.check(b_.binary(kir::BinOp::LogAnd, b_.compare(kir::CmpOp::Le, b_.i64(0), a), b_.compare(kir::CmpOp::Le, b, n)),
             "Slice out of bounds.", loc);
    sub->dims[0] = *ix.span;
    sub->gen = [l, whole, a, loc](Reg i) -> Sym {
      return l->index(whole, l->b().binary(kir::BinOp::Add, i, a), loc, false);
    };
  } else {
    // Futhark's rule: 0 <= a <= b <= n for s > 0, -1 <= b <= a < n (or a == b) for s < 0.
    Reg n = length_reg(arr);
    Reg a = ix.start ? ix.start->reg : (s > 0 ? b_.i64(0) : b_.binary(kir::BinOp::Sub, n, b_.i64(1)));
    Reg b = ix.end ? ix.end->reg : (s > 0 ? n : b_.i64(-1));
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
    b_.check(ok, "Slice out of bounds.", loc);
    Reg span = s > 0 ? b_.binary(kir::BinOp::Sub, b, a) : b_.binary(kir::BinOp::Sub, a, b);
    int64_t as = s > 0 ? s : -s;
    sub->len = as == 1 ? span : b_.binary(kir::BinOp::Quot, b_.binary(kir::BinOp::Add, span, b_.i64(as - 1)), b_.i64(as));
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

Sym Lowerer::lower_loop(const Expr& e, const ScopePtr& sc) {
  const Pattern& pat = *e.params.at(0);
  Sym init;
  if (e.a) {
    init = lower(*e.a, sc);
  } else {
    // `loop x for ...`: the pattern's variables from the scope.
    std::function<Sym(const Pattern&)> from_pat = [&](const Pattern& p) -> Sym {
      switch (p.kind) {
        case Pattern::Kind::Id: return lookup(QualName{{}, p.name}, sc, p.loc);
        case Pattern::Kind::Ascribed: return from_pat(*p.inner);
        case Pattern::Kind::Tuple: {
          std::vector<Sym> xs;
          for (const auto& q : p.elems) xs.push_back(from_pat(*q));
          return Sym::tuple(std::move(xs));
        }
        default: throw Fallback("loop without initial values on a complex pattern");
      }
    };
    init = from_pat(pat);
  }
  LoopState st = loop_state(init, e.loc);
  auto bind_state = [&](const std::vector<Reg>& regs, std::vector<std::pair<std::string, Sym>>& vars) {
    bind(pat, state_value(st, regs), vars, nullptr);
  };
  auto body_regs = [&](const ScopePtr& inner) { return next_state(st, lower(*e.b, inner), e.loc); };
  const std::vector<Reg>& init_regs = st.init_regs;
  std::vector<Reg> out;
  switch (e.loop_form) {
    case Expr::LoopForm::For: {
      Sym bound = lower(*e.c, sc);
      if (!bound.is_scalar() || !is_integral(bound.prim)) throw Fallback("for loop bound of a non-integer type");
      Sym count = convert(bound, Prim::I64);
      out = b_.for_(count.reg, init_regs, [&](Reg i, const std::vector<Reg>& carried) {
        auto inner = child_scope(sc);
        bind_state(carried, inner->vars);
        inner->vars.emplace_back(e.loop_var, convert(Sym::scalar(i, Prim::I64), bound.prim));
        return body_regs(inner);
      });
      break;
    }
    case Expr::LoopForm::ForIn: {
      Sym arr = lower(*e.c, sc);
      out = b_.for_(length_reg(arr), init_regs, [&](Reg i, const std::vector<Reg>& carried) {
        auto inner = child_scope(sc);
        bind_state(carried, inner->vars);
        bind(*e.pattern, index(arr, i, e.loc, false), inner->vars, nullptr);
        return body_regs(inner);
      });
      break;
    }
    case Expr::LoopForm::While: {
      out = b_.while_(
          init_regs,
          [&](const std::vector<Reg>& carried) {
            auto inner = child_scope(sc);
            bind_state(carried, inner->vars);
            Sym c = lower(*e.c, inner);
            if (!c.is_scalar() || c.prim != Prim::Bool) throw Fallback("while condition is not a boolean");
            return c.reg;
          },
          [&](const std::vector<Reg>& carried) {
            auto inner = child_scope(sc);
            bind_state(carried, inner->vars);
            return body_regs(inner);
          });
      break;
    }
  }
  return final_state(st, out);
}

// Scalars of the state are carried in registers; arrays live in private
// storage of their own (a copy of the initial value), which the body
// updates in place or copies its result into.
Lowerer::LoopState Lowerer::loop_state(const Sym& init, const Loc& loc) {
  LoopState st;
  st.init = init;
  std::vector<Sym> init_arrays;
  split_state(init, st.init_regs, init_arrays);
  for (const Sym& a : init_arrays) {
    if (dynamic(a)) throw Fallback("loop state holding an array whose length depends on the element");
    st.storage.push_back(materialise(a, loc));
  }
  st.types = types_of(st.init_regs);
  return st;
}

Sym Lowerer::state_value(const LoopState& st, const std::vector<Reg>& regs) {
  size_t pr = 0, pa = 0;
  std::vector<Sym> current;
  for (const Sym& a : st.storage) current.push_back(with_current_versions(a));
  return join_state(st.init, regs, pr, current, pa);
}

std::vector<Reg> Lowerer::next_state(const LoopState& st, const Sym& r, const Loc& loc) {
  std::vector<Reg> regs;
  std::vector<Sym> arrays;
  split_state(r, regs, arrays);
  if (types_of(regs) != st.types || arrays.size() != st.storage.size())
    throw Fallback("loop body changes the shape of the loop state");
  // Every source is made ready before any storage is written: a result may
  // be another position's storage (`(scatter out' ..., in')` swaps two
  // buffers), which the first copy would overwrite.
  std::vector<int> written;  // the storage arrays this iteration's copies write
  std::vector<bool> same(arrays.size());
  for (size_t k = 0; k < arrays.size(); ++k) {
    const Sym& a = arrays[k];
    const Sym& storage = st.storage[k];
    if (a.kind != Sym::Kind::Array || a.arr->dims != storage.arr->dims || dynamic(a))
      throw Fallback("loop body changes the shape of the loop state");
    bool s = !a.arr->gen && a.arr->rel == kir::kNoReg && a.arr->leaves.size() == storage.arr->leaves.size();
    for (size_t l = 0; s && l < a.arr->leaves.size(); ++l)
      s = a.arr->leaves[l].local && a.arr->leaves[l].array == storage.arr->leaves[l].array && a.arr->leaves[l].base == 0;
    same[k] = s;
    if (!s)
      for (const SymArr::Leaf& l : storage.arr->leaves) written.push_back(l.array);
  }
  std::vector<Sym> sources(arrays.size());
  for (size_t k = 0; k < arrays.size(); ++k) {
    if (same[k]) continue;
    const Sym& a = arrays[k];
    bool direct = is_private_whole(a);  // a whole private array no copy here overwrites
    for (size_t l = 0; direct && l < a.arr->leaves.size(); ++l)
      direct = std::find(written.begin(), written.end(), a.arr->leaves[l].array) == written.end();
    sources[k] = direct ? a : materialise(a, loc);
  }
  for (size_t k = 0; k < arrays.size(); ++k)
    if (!same[k]) copy_into(with_current_versions(st.storage[k]), sources[k], loc);
  return regs;
}

Sym Lowerer::final_state(const LoopState& st, const std::vector<Reg>& out) {
  std::vector<Sym> arrays;
  for (const Sym& a : st.storage) {
    for (const SymArr::Leaf& l : a.arr->leaves) bump_version(l.array);
    arrays.push_back(with_current_versions(a));
  }
  size_t pr = 0, pa = 0;
  return join_state(st.init, out, pr, arrays, pa);
}

Sym Lowerer::lower(const Expr& e, const ScopePtr& sc, bool tail) {
  switch (e.kind) {
    case Expr::Kind::IntLit:
    case Expr::Kind::FloatLit: {
      Prim p = e.suffix ? *e.suffix : e.prim;
      if (e.kind == Expr::Kind::FloatLit) return constant(Scalar::floating(is_float(p) ? p : Prim::F64, e.float_value));
      if (is_float(p)) return constant(Scalar::floating(p, double(e.int_value)));
      return constant(Scalar::unsigned_int(p, e.int_value));
    }
    case Expr::Kind::BoolLit: return constant(Scalar::boolean(e.bool_value));
    case Expr::Kind::Var: return lookup(e.name, sc, e.loc);
    case Expr::Kind::Apply: {
      Sym fn = lower(*e.a, sc);
      std::vector<Sym> args;
      for (const auto& x : e.list) args.push_back(lower(*x, sc));
      call_hint_ = call_hint(e, sc);
      return apply(fn, std::move(args), e.loc, tail);
    }
    case Expr::Kind::BinOp: return lower_binop(e, sc);
    case Expr::Kind::Negate: return unop("neg", lower(*e.a, sc), e.loc);
    case Expr::Kind::Not: return unop("!", lower(*e.a, sc), e.loc);
    case Expr::Kind::OpSection: {
      Sym op;
      try {
        op = lookup(e.name, sc, e.loc);
      } catch (const Fallback&) {
        throw;
      }
      if (!e.a && !e.b) return op;
      auto fn = std::make_shared<SymFn>();
      if (e.a) {  // (x op): op applied to x first
        if (op.kind != Sym::Kind::Function) throw Fallback("section of a non-function");
        *fn = *op.fn;
        fn->args.push_back(lower(*e.a, sc));
      } else {
        fn->kind = SymFn::Kind::RightSection;
        fn->args = {op, lower(*e.b, sc)};
      }
      Sym s;
      s.kind = Sym::Kind::Function;
      s.fn = fn;
      return s;
    }
    case Expr::Kind::ProjSection: {
      auto fn = std::make_shared<SymFn>();
      fn->kind = SymFn::Kind::Projection;
      fn->path = e.field_path;
      Sym s;
      s.kind = Sym::Kind::Function;
      s.fn = fn;
      return s;
    }
    case Expr::Kind::Lambda: {
      auto fn = std::make_shared<SymFn>();
      fn->kind = SymFn::Kind::Ast;
      fn->params = &e.params;
      fn->body = e.a.get();
      fn->scope = sc;
      Sym s;
      s.kind = Sym::Kind::Function;
      s.fn = fn;
      return s;
    }
    case Expr::Kind::Let: {
      Sym v = lower(*e.a, sc);
      auto inner = child_scope(sc);
      bind(*e.pattern, v, inner->vars, nullptr);
      return lower(*e.b, inner, tail);
    }
    case Expr::Kind::LetFun: {
      auto fn = std::make_shared<SymFn>();
      fn->kind = SymFn::Kind::Ast;
      fn->params = &e.params;
      fn->body = e.a.get();
      fn->type_params = &e.type_params;
      fn->name = e.name.name;
      auto inner = child_scope(sc);
      fn->scope = sc;  // Futhark's local functions are not recursive
      Sym s;
      s.kind = Sym::Kind::Function;
      s.fn = fn;
      inner->vars.emplace_back(e.name.name, s);
      return lower(*e.b, inner, tail);
    }
    case Expr::Kind::If: return lower_if(e, sc);
    case Expr::Kind::Loop: return lower_loop(e, sc);
    case Expr::Kind::Tuple: {
      std::vector<Sym> xs;
      for (const auto& x : e.list) xs.push_back(lower(*x, sc));
      if (xs.empty()) {
        Sym u;
        u.kind = Sym::Kind::Tuple;
        return u;
      }
      return Sym::tuple(std::move(xs));
    }
    case Expr::Kind::Record: {
      std::vector<std::pair<std::string, Sym>> fields;
      for (const auto& [name, x] : e.fields) fields.emplace_back(name, lower(*x, sc));
      std::stable_sort(fields.begin(), fields.end(),
                       [](const auto& a, const auto& b) { return record_field_less(a.first, b.first); });
      Sym s;
      s.kind = Sym::Kind::Record;
      auto names = std::make_shared<std::vector<std::string>>();
      for (auto& [n, v] : fields) {
        names->push_back(n);
        s.elems.push_back(std::move(v));
      }
      s.names = names;
      return s;
    }
    case Expr::Kind::Project: {
      Sym v = lower(*e.a, sc);
      return project(v, e.field_path.empty() ? e.name.name : e.field_path[0], e.loc);
    }
    case Expr::Kind::Index: return lower_index(e, sc);
    case Expr::Kind::Update: return lower_update(e, sc);
    case Expr::Kind::ArrayLit: {
      // [x, y, ...]: a private array, filled by a generator that picks
      // element i among the literal's elements (rows, for arrays of arrays).
      std::vector<Sym> xs;
      for (const auto& x : e.list) xs.push_back(lower(*x, sc));
      if (xs.empty()) throw Fallback("an empty array literal inside a mapped function");
      auto gen = std::make_shared<SymArr>();
      gen->dims = {int64_t(xs.size())};
      if (xs[0].kind == Sym::Kind::Array) {
        for (const Sym& x : xs)
          if (x.kind != Sym::Kind::Array || dynamic(x) || x.arr->dims != xs[0].arr->dims)
            throw Fallback("an array literal of arrays of different or varying shapes inside a mapped function");
        gen->dims.insert(gen->dims.end(), xs[0].arr->dims.begin(), xs[0].arr->dims.end());
        gen->elem = xs[0].arr->elem;
      }
      Lowerer* l = this;
      gen->gen = [l, xs, loc = e.loc](Reg i) { return l->pick(xs, i, loc); };
      Sym g;
      g.kind = Sym::Kind::Array;
      g.arr = gen;
      return materialise(g, e.loc);
    }
    case Expr::Kind::RecordUpdate: {
      Sym r = lower(*e.a, sc);
      Sym v = lower(*e.b, sc);
      std::function<Sym(const Sym&, size_t)> upd = [&](const Sym& s, size_t k) -> Sym {
        if (k == e.field_path.size()) return v;
        Sym out = s;
        bool found = false;
        for (size_t i = 0; s.names && i < s.names->size(); ++i)
          if ((*s.names)[i] == e.field_path[k]) {
            out.elems[i] = upd(s.elems[i], k + 1);
            found = true;
          }
        if (!found && s.kind == Sym::Kind::Tuple) {
          size_t i = size_t(std::stoul(e.field_path[k]));
          out.elems.at(i) = upd(s.elems.at(i), k + 1);
          found = true;
        }
        if (!found) throw Fallback("record update of a missing field");
        return out;
      };
      return upd(r, 0);
    }
    case Expr::Kind::Ascribe:
    case Expr::Kind::Coerce:
    case Expr::Kind::Attr: return lower(*e.a, sc, tail);
    case Expr::Kind::QualParens: {
      // M.(e): e with M's names in front (the checker resolved M already).
      const Scope* root = sc.get();
      while (root && root->parent) root = root->parent.get();
      std::vector<std::string> path = e.name.qualifiers;
      path.push_back(e.name.name);
      eval::ModulePtr m = root ? eval::lookup_module_path(root->env, path) : nullptr;
      if (!m || !m->ns) throw Fallback(fmt::format("module `{}` opened at {}", e.name.str(), e.loc.str()));
      auto opened = std::make_shared<Scope>();
      opened->parent = sc;
      opened->owner = this;
      opened->opened = m->ns;
      return lower(*e.a, opened, tail);
    }
    case Expr::Kind::Assert: {
      Sym c = lower(*e.a, sc);
      if (!(c.known && c.known->b)) {
        std::string text = "assertion";
        if (e.a->loc.known()) {
          std::string_view line = e.a->loc.file->line(e.a->loc.line);
          size_t from = e.a->loc.col ? e.a->loc.col - 1 : 0;
          size_t to = e.a->loc.end_col >= e.a->loc.col ? std::min<size_t>(e.a->loc.end_col, line.size()) : line.size();
          if (from < to) text = std::string(line.substr(from, to - from));
        }
        b_.check(c.reg, "Assertion is false: " + text, e.loc);
      }
      return lower(*e.b, sc, tail);
    }
    case Expr::Kind::Range: {
      Sym a = lower(*e.a, sc), c = lower(*e.c, sc);
      std::optional<Sym> second;
      if (e.b) second = lower(*e.b, sc);
      if (second && !(second->known && a.known))
        throw Fallback("a range whose step is not known when the nest starts");
      Prim t = a.prim;
      Lowerer* l = this;
      auto arr = std::make_shared<SymArr>();
      arr->fused = "range";
      if (a.known && c.known) {
        int64_t start = a.known->as_i64(), end = c.known->as_i64();
        int64_t step = second ? second->known->as_i64() - start : (e.range_kind == Expr::RangeKind::DownToExclusive ? -1 : 1);
        if (step == 0) throw Fallback("a range with step 0");
        int64_t last = e.range_kind == Expr::RangeKind::Inclusive ? end : end - (step > 0 ? 1 : -1);
        int64_t n = (step > 0 ? last - start : start - last) / std::abs(step) + 1;
        if ((step > 0 && last < start) || (step < 0 && last > start)) n = 0;
        arr->dims = {n};
        arr->gen = [l, start, step, t](Reg i) {
          kir::Builder& b = l->b();
          Reg v = b.binary(kir::BinOp::Add, b.i64(start), b.binary(kir::BinOp::Mul, i, b.i64(step)));
          return l->convert(Sym::scalar(v, Prim::I64), t);
        };
      } else {
        // Bounds computed in the element: a dynamic length (steps of +1 or -1 only).
        if (second) throw Fallback("a range with a step whose bounds are not known when the nest starts");
        int64_t step = e.range_kind == Expr::RangeKind::DownToExclusive ? -1 : 1;
        Reg start = convert(a, Prim::I64).reg, end = convert(c, Prim::I64).reg;
        Reg last = e.range_kind == Expr::RangeKind::Inclusive ? end : b_.binary(kir::BinOp::Sub, end, b_.i64(step));
        Reg span = step > 0 ? b_.binary(kir::BinOp::Sub, last, start) : b_.binary(kir::BinOp::Sub, start, last);
        Reg n = b_.binary(kir::BinOp::Add, span, b_.i64(1));
        arr->len = b_.binary(kir::BinOp::Max, n, b_.i64(0));
        arr->dims = {-1};
        arr->gen = [l, start, step, t](Reg i) {
          kir::Builder& b = l->b();
          Reg v = step > 0 ? b.binary(kir::BinOp::Add, start, i) : b.binary(kir::BinOp::Sub, start, i);
          return l->convert(Sym::scalar(v, Prim::I64), t);
        };
      }
      Sym s;
      s.kind = Sym::Kind::Array;
      s.arr = arr;
      return s;
    }
    case Expr::Kind::Intrinsic: {
      std::vector<Sym> args;
      for (const auto& x : e.list) args.push_back(lower(*x, sc));
      return intrinsic(e.text, std::move(args), e.loc, tail);
    }
    default: break;
  }
  throw Fallback(fmt::format("this kind of expression (at {}) inside a mapped function", e.loc.str()));
}

}  // namespace thorn::flatten
