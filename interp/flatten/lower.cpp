// Lowering of expressions (see lower.hpp).
#include "interp/flatten/lower.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "interp/eval/scalar_ops.hpp"
#include "interp/eval/user_params.hpp"
#include "interp/flatten/delayed.hpp"
#include "interp/flatten/elem_tree.hpp"
#include "interp/syntax/print.hpp"

namespace thorn::flatten {

using kir::Reg;

namespace {
// An if's branches that no layout merges; lower_if adds which if it was.
constexpr const char* kBranchShapes = "if branches of different shapes";
}  // namespace

Sym Sym::tuple(std::vector<Sym> xs) {
  if (xs.size() == 1) return std::move(xs[0]);
  Sym s;
  s.kind = Kind::Tuple;
  s.elems = std::move(xs);
  return s;
}

Sym Sym::record(std::vector<std::pair<std::string, Sym>> fields) {
  std::stable_sort(fields.begin(), fields.end(),
                   [](const auto& a, const auto& b) { return record_field_less(a.first, b.first); });
  Sym s;
  s.kind = Kind::Record;
  auto names = std::make_shared<std::vector<std::string>>();
  for (auto& [n, v] : fields) {
    names->push_back(n);
    s.elems.push_back(std::move(v));
  }
  s.names = std::move(names);
  return s;
}

Lowerer::Lowerer(kir::Function& f) : f_(f), b_(f) {}

ScopePtr Lowerer::root_scope(eval::EnvPtr env, int source) const {
  auto s = std::make_shared<Scope>();
  s->env = std::move(env);
  s->owner = this;
  s->source = source;
  return s;
}

std::vector<Reg> Lowerer::leaves(const Sym& v) const {
  std::vector<Reg> out;
  std::function<void(const Sym&)> go = [&](const Sym& s) {
    switch (s.kind) {
      case Sym::Kind::Scalar: out.push_back(s.reg); return;
      case Sym::Kind::Tuple:
      case Sym::Kind::Record:
      case Sym::Kind::Sum:
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

static bool portable(const Sym& s) {
  switch (s.kind) {
    case Sym::Kind::Scalar: return s.known.has_value();
    case Sym::Kind::Tuple:
    case Sym::Kind::Record:
    case Sym::Kind::Sum:
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
  if (!portable(s)) throw PerElementOperands("an operator that depends on the mapped element");
  return localise(s);
}

Sym Lowerer::localise(const Sym& s) {
  switch (s.kind) {
    case Sym::Kind::Scalar: return constant(*s.known);
    case Sym::Kind::Tuple:
    case Sym::Kind::Record:
    case Sym::Kind::Sum: {
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

// A polymorphic constant that only names another value (`def stdreplicate =
// replicate`, as the vector library has it) is that value under any
// instantiation: follow it, so the alias lowers like the function it names.
// Other polymorphic constants are evaluated per instantiation, which the
// lowering does not do.
static const eval::Binding& follow_aliases(const eval::Binding& b) {
  const eval::Binding* at = &b;
  for (int depth = 0; at->lazy && depth < 16; ++depth) {
    const Decl& d = *at->lazy;
    bool sized = std::any_of(d.type_params.begin(), d.type_params.end(), [](const TypeParam& tp) { return tp.is_size; });
    if (sized || !d.params.empty() || !d.body || d.body->kind != Expr::Kind::Var) break;
    const eval::Binding* next = eval::lookup_value(at->lazy_env, d.body->name);
    if (!next) break;
    at = next;
  }
  return *at;
}

Sym Lowerer::lookup(const QualName& name, const ScopePtr& sc, const Loc& loc) {
  const Scope* s = sc.get();
  // A module-level binding (of the closure's environment or of a module
  // opened by `M.(e)`) as a symbolic value.
  auto module_level = [&](const eval::Binding& bound) {
    const eval::Binding& b = follow_aliases(bound);
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
  if (bnd) bnd = &follow_aliases(*bnd);
  if (bnd) {
    if (bnd->lazy) {
      // A point-free polymorphic definition of a function (`def fromarrs
      // = map (\x -> (x[0], x[1]))`): its body, lowered where it was
      // defined, is the function. Other polymorphic constants need the
      // reference's instantiation of their type.
      const Decl& d = *bnd->lazy;
      if (d.params.empty() && d.body && d.body->type && d.body->type->kind == Type::Kind::Function)
        return lower(*d.body, root_scope(bnd->lazy_env));
      throw Fallback(fmt::format("`{}` is a polymorphic constant", name.str()));
    }
    if (bnd->consumed) throw Fallback(fmt::format("`{}` was consumed", name.str()));
    // Generated vjp code binds its helpers (`__adr..`: the vjps of the
    // functions it calls, the prelude's rules) in a frame of its own; they
    // are fixed with the generated code, which is memoised by its source
    // and the functions its environment gave (ad_rev.cpp), so a plan naming
    // them stays valid. (Not other generated names: ad_lambda's `__adc` is
    // an operand that differs from call to call.)
    const bool generated_helper = name.qualifiers.empty() && name.name.rfind("__adr", 0) == 0;
    if (cap_ && name.qualifiers.empty() && !generated_helper && bound_locally(s->env, name.name)) {
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
  if (name.qualifiers.empty() && unsolved_sizes_.count(name.name))
    throw Fallback(fmt::format("the size `{}` used at {} cannot be determined when the nest is planned (it may differ "
                               "between elements)",
                               name.str(), loc.str()));
  // A function's own name in its body: the evaluator's closure refers to
  // itself (Callable::self), the scope it was defined in does not.
  if (name.qualifiers.empty() && std::find(active_names_.begin(), active_names_.end(), name.name) != active_names_.end())
    throw Fallback(fmt::format("recursive function {}", name.str()));
  throw Fallback(fmt::format("unbound name `{}` at {}", name.str(), loc.str()));
}

void Lowerer::bind_sizes(const TypeExpr& t, const Sym& v, std::vector<std::pair<std::string, Sym>>& out) {
  const TypeExpr* te = &t;
  while (te && te->kind == TypeExpr::Kind::Unique) te = te->elem.get();
  // Sizes inside a tuple or record type (`rank [n] (w: ([n]i64, []i32))`).
  if (te && te->kind == TypeExpr::Kind::Tuple && v.kind == Sym::Kind::Tuple && te->elems.size() == v.elems.size()) {
    for (size_t k = 0; k < te->elems.size(); ++k) bind_sizes(*te->elems[k], v.elems[k], out);
    return;
  }
  if (te && te->kind == TypeExpr::Kind::Record && v.kind == Sym::Kind::Record) {
    for (const auto& [field, ft] : te->fields) {
      Sym f;
      try {
        f = project(v, field, te->loc);
      } catch (const Fallback&) {
        continue;
      }
      bind_sizes(*ft, f, out);
    }
    return;
  }
  if (!te || te->kind != TypeExpr::Kind::Array || v.kind != Sym::Kind::Array) return;
  const std::vector<int64_t>& dims = v.arr->dims;
  for (size_t k = 0; te && te->kind == TypeExpr::Kind::Array && k < dims.size(); ++k, te = te->elem.get()) {
    if (te->size.kind == SizeExpr::Kind::Name && te->size.name.qualifiers.empty())
      out.emplace_back(te->size.name.name, dim_size(v, k));
  }
}

void Lowerer::bind_type_sizes(const Type& t, const Sym& v, const std::vector<TypeParam>& sizes,
                               std::vector<std::pair<std::string, Sym>>& out) {
  auto wanted = [&](const std::string& n) {
    bool param = false;
    for (const TypeParam& tp : sizes) param = param || (tp.is_size && tp.name == n);
    for (const auto& [bound, _] : out) param = param && bound != n;
    return param;
  };
  switch (t.kind) {
    case Type::Kind::Array:
      if (v.kind != Sym::Kind::Array) return;
      for (size_t k = 0; k < t.dims.size() && k < v.arr->dims.size(); ++k) {
        const Dim& d = t.dims[k];
        if (d.kind != Dim::Kind::Name || !wanted(d.name)) continue;
        if (v.arr->len_of(k) != kir::kNoReg) out.emplace_back(d.name, dim_size(v, k));
        else if (v.arr->dims[k] >= 0) out.emplace_back(d.name, constant(Scalar::i64(v.arr->dims[k])));
      }
      return;
    case Type::Kind::Tuple:
      if (v.kind != Sym::Kind::Tuple || v.elems.size() != t.elems.size()) return;
      for (size_t k = 0; k < t.elems.size(); ++k) bind_type_sizes(*t.elems[k], v.elems[k], sizes, out);
      return;
    case Type::Kind::Record:
      if (v.kind != Sym::Kind::Record) return;
      for (const auto& [field, ft] : t.fields) {
        Sym f;
        try {
          f = project(v, field, Loc{});
        } catch (const Fallback&) {
          continue;
        }
        bind_type_sizes(*ft, f, sizes, out);
      }
      return;
    default: return;
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
      // Size parameters the written type hides in an abbreviation
      // (`noise [n] ({ranvec, ...}: perlin [n])`): from the checked type.
      if (p.type && sizes) bind_type_sizes(*p.type, v, *sizes, out);
      bind(*p.inner, v, out, sizes);
      return;
    case Pattern::Kind::Literal: return;  // tested by the match (pattern_test)
    case Pattern::Kind::Constructor: {
      // The match tested the constructor; bind its payload.
      const int k = v.kind == Sym::Kind::Sum ? v.constructor_index(p.name) : -1;
      if (k < 0 || v.elems[1 + size_t(k)].elems.size() != p.elems.size()) break;
      const Sym& payload = v.elems[1 + size_t(k)];
      for (size_t j = 0; j < p.elems.size(); ++j) bind(*p.elems[j], payload.elems[j], out, sizes);
      return;
    }
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
    ts = in_parts(then(), Loc{});
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
    es = in_parts(otherwise(), Loc{});
    std::vector<Sym> arrays;
    split_state(es, eregs, arrays);
    if (arrays.size() != storage.size()) throw Fallback(kBranchShapes);
    for (size_t k = 0; k < arrays.size(); ++k) {
      const Sym& a = arrays[k];
      if (dynamic(a) || a.arr->dims != storage[k].arr->dims) throw Fallback(kBranchShapes);
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
  if (types_of(tregs) != types_of(eregs)) throw Fallback(kBranchShapes);
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

bool has_array(const Sym& s) {
  if (s.kind == Sym::Kind::Array) return true;
  for (const Sym& e : s.elems)
    if (has_array(e)) return true;
  return false;
}

// An instruction a branch guards: it may fail (a check), read out of
// bounds on the side not taken (`(xs ++ ys)[i]` reads ys at i - length xs
// < 0 when i is in xs), call, or hold blocks of its own.
static bool guarded(const kir::Instr& in) {
  return in.op == kir::Opcode::Check || in.op == kir::Opcode::Read || in.op == kir::Opcode::LocalRead ||
         in.op == kir::Opcode::Call || !in.blocks.empty();
}

// `if c then xs else ys` with both arrays computed where read (a view of
// an input, `map2 (+) x y`) by code that cannot fail or write: an array
// computed where read too, each element chosen by c. Nothing is stored in
// private arrays, and a vectorised operator (`\(f, x) (g, y) -> (f || g,
// if g then y else map2 (+) x y)`, a segmented scan of rows) stays
// element by element. Anything else: nullopt, and the caller stores the
// branches' arrays.
std::optional<Sym> Lowerer::lazy_if_of_arrays(const Sym& cond, const Sym& ts, const kir::Block& tb,
                                              const std::function<Sym()>& otherwise) {
  // Run whatever the condition: nothing guarded, nothing written.
  auto pure = [](const kir::Block& blk) {
    for (const kir::Instr& in : blk.instrs)
      if (guarded(in) || in.op == kir::Opcode::LocalWrite || in.op == kir::Opcode::Write) return false;
    return true;
  };
  if (ts.kind != Sym::Kind::Array || dynamic(ts) || !pure(tb)) return std::nullopt;
  for (const SymArr::Leaf& l : ts.arr->leaves)
    if (l.local) return std::nullopt;
  const size_t locals = f_.locals.size();
  Sym es;
  kir::Block eb = b_.capture([&] {
    es = otherwise();
    return std::vector<Reg>{};
  });
  if (f_.locals.size() != locals || es.kind != Sym::Kind::Array || dynamic(es) || es.arr->dims != ts.arr->dims ||
      !pure(eb))
    return std::nullopt;
  for (const SymArr::Leaf& l : es.arr->leaves)
    if (l.local) return std::nullopt;
  // Their elements must not read private arrays, which may change before
  // the lazy array is read.
  Sym te, ee;
  if (kir::reads_locals(f_, probe_element(ts, Loc{}, te)) || kir::reads_locals(f_, probe_element(es, Loc{}, ee)))
    return std::nullopt;
  if (leaf_types(te) != leaf_types(ee)) return std::nullopt;
  b_.append(kir::Block(tb).instrs);
  b_.append(std::move(eb.instrs));
  auto arr = std::make_shared<SymArr>();
  arr->dims = ts.arr->dims;
  arr->elem = ts.arr->elem;
  Lowerer* self = this;
  const Sym c = cond;
  arr->gen = [self, c, ts, es](Reg i) {
    return self->select_or_if(c, [&] { return self->index(ts, i, Loc{}, false); },
                              [&] { return self->index(es, i, Loc{}, false); });
  };
  Sym out;
  out.kind = Sym::Kind::Array;
  out.arr = arr;
  return out;
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
    if (std::optional<Sym> lazy = lazy_if_of_arrays(cond, ts, tb, otherwise)) return *lazy;
    // Lowered again with the arrays' storage (the first lowering is dropped).
    local_version = versions;
    return if_with_arrays(cond.reg, then, otherwise);
  }
  kir::Block eb = b_.capture([&] {
    es = otherwise();
    return leaves(es);
  });
  if (leaf_types(ts) != leaf_types(es)) {
    // Sums holding different constructors (lower_match.cpp): both
    // branches again, each rearranged into their union layout.
    std::optional<Sym> like = sum_union(ts, es);
    if (!like) throw Fallback(kBranchShapes);
    local_version = versions;
    tb = b_.capture([&] {
      ts = conform_sums(then(), *like);
      return leaves(ts);
    });
    eb = b_.capture([&] {
      es = conform_sums(otherwise(), *like);
      return leaves(es);
    });
    if (leaf_types(ts) != leaf_types(es)) throw Fallback(kBranchShapes);
  }
  auto cheap = [](const kir::Block& blk) {
    if (blk.instrs.size() > 8) return false;
    for (const kir::Instr& in : blk.instrs)
      if (guarded(in)) return false;
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
  try {
    return select_or_if(c, [&] { return lower(*e.b, sc); }, [&] { return lower(*e.c, sc); });
  } catch (const Fallback& f) {
    // Which if, for the plan log (the innermost one that disagrees).
    if (std::string_view(f.what()) == kBranchShapes)
      throw Fallback(fmt::format("{} (the if at {})", kBranchShapes, e.loc.str()));
    throw;
  }
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

Sym Lowerer::lower_binop(const Expr& e, const ScopePtr& sc, bool tail) {
  // As the evaluator: a name bound to a built-in operator (or unbound) is
  // the built-in; anything else is a function to apply.
  std::string op = e.name.name;
  bool builtin = false;
  Sym fn;
  try {
    fn = lookup(e.name, sc, e.loc);
    // A built-in operator, possibly under another name (`xs[t] `lte` x`
    // with the parameter lte bound to (<=)).
    if (fn.kind == Sym::Kind::Function && fn.fn->kind == SymFn::Kind::Operator && fn.fn->args.empty()) {
      builtin = true;
      op = fn.fn->name;
    }
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
  // The prelude's pipes apply their function directly, so that `xs |> scan
  // (+) 0` in tail position is the SOAC a segmented step takes, as `scan
  // (+) 0 xs` is (the prelude's body `f x` would lower it as an inner call).
  if (!builtin && e.name.qualifiers.empty() && (op == "|>" || op == "<|") && fn.kind == Sym::Kind::Function &&
      fn.fn->kind == SymFn::Kind::Value && fn.fn->value->kind == Callable::Kind::Closure &&
      fn.fn->value->loc.in_prelude()) {
    const Expr& arg = op == "|>" ? *e.a : *e.b;
    const Expr& f = op == "|>" ? *e.b : *e.a;
    Sym x = lower(arg, sc);
    return apply(lower(f, sc), {x}, e.loc, tail);
  }
  Sym x = lower(*e.a, sc), y = lower(*e.b, sc);
  if (builtin) return binop(op, x, y, e.loc);
  return apply(fn, {x, y}, e.loc);
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
    case Expr::Kind::Var: {
      Sym s = lookup(e.name, sc, e.loc);
      if (e.size_args.empty() || s.kind != Sym::Kind::Function) return s;
      // `xs |> unflatten`: the sizes the checker found for this use travel
      // with the function value to wherever it is applied.
      auto f = std::make_shared<SymFn>(*s.fn);
      for (const auto& [name, d] : e.size_args)
        if (std::optional<int64_t> v = dim_value(d, sc, e.loc)) f->size_hints.emplace_back(name, *v);
      s.fn = std::move(f);
      return s;
    }
    case Expr::Kind::Apply: {
      Sym fn = lower(*e.a, sc);
      std::vector<Sym> args;
      for (const auto& x : e.list) args.push_back(lower(*x, sc));
      call_hint_ = call_hint(e, sc);
      return apply(fn, std::move(args), e.loc, tail);
    }
    case Expr::Kind::BinOp: return lower_binop(e, sc, tail);
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
    case Expr::Kind::Match: return lower_match(e, sc);
    case Expr::Kind::Constructor: return lower_constructor(e, sc);
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
      return Sym::record(std::move(fields));
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
    case Expr::Kind::Ascribe: return lower(*e.a, sc, tail);
    case Expr::Kind::Coerce: return coerce(lower(*e.a, sc, tail), e, sc);
    case Expr::Kind::Attr: {
      Sym v = lower(*e.a, sc, tail);
      // `#[param(name)] e` with name set: its value (interp/eval/user_params.hpp).
      for (const std::string& attr : e.attrs)
        if (std::optional<int64_t> p = eval::user_param_value(attr); p && v.is_scalar() && v.prim == Prim::I64)
          v = constant(Scalar::i64(*p));
      return v;
    }
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
    case Expr::Kind::Range: return lower_range(e, sc);
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
