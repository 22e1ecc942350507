#include "interp/types/ty.hpp"

#include <functional>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "interp/types/type.hpp"

namespace thorn::types {

DimRef dim_var() {
  auto d = std::make_shared<DimNode>();
  d->kind = DimNode::Kind::Var;
  return d;
}
DimRef dim_const(int64_t v) {
  auto d = std::make_shared<DimNode>();
  d->kind = DimNode::Kind::Constant;
  d->value = v;
  return d;
}
DimRef dim_name(std::string name, std::shared_ptr<const void> binding) {
  auto d = std::make_shared<DimNode>();
  d->kind = DimNode::Kind::Name;
  d->name = std::move(name);
  d->binding = std::move(binding);
  return d;
}
DimRef dim_unknown() {
  static const DimRef unknown = std::make_shared<DimNode>();
  return unknown;
}

DimRef dim_existential() {
  auto d = std::make_shared<DimNode>();
  d->existential = true;
  return d;
}

DimRef dim_resolve(DimRef d) {
  if (!d) return dim_unknown();
  if (d->kind != DimNode::Kind::Var || !d->link) return d;
  DimRef root = dim_resolve(d->link);
  d->link = root;
  return root;
}

PrimMask numeric_mask() {
  PrimMask m = 0;
  for (int i = 0; i < kNumPrims; ++i)
    if (is_numeric(static_cast<Prim>(i))) m |= prim_bit(static_cast<Prim>(i));
  return m;
}
PrimMask integral_mask() {
  PrimMask m = 0;
  for (int i = 0; i < kNumPrims; ++i)
    if (is_integral(static_cast<Prim>(i))) m |= prim_bit(static_cast<Prim>(i));
  return m;
}
PrimMask float_mask() { return prim_bit(Prim::F16) | prim_bit(Prim::F32) | prim_bit(Prim::F64); }
PrimMask all_prims_mask() { return numeric_mask() | prim_bit(Prim::Bool); }

static Ty make(TyNode::Kind k) {
  auto t = std::make_shared<TyNode>();
  t->kind = k;
  return t;
}

Ty ty_prim(Prim p) {
  static const auto table = [] {
    std::vector<Ty> out;
    for (int i = 0; i < kNumPrims; ++i) {
      auto t = make(TyNode::Kind::Prim);
      t->prim = static_cast<Prim>(i);
      out.push_back(t);
    }
    return out;
  }();
  return table[static_cast<int>(p)];
}

Ty ty_array(DimRef dim, Ty elem) {
  auto t = make(TyNode::Kind::Array);
  t->dim = std::move(dim);
  t->elem = std::move(elem);
  return t;
}

Ty ty_array_n(std::vector<DimRef> dims, Ty elem) {
  Ty t = std::move(elem);
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) t = ty_array(*it, t);
  return t;
}

Ty ty_record(Fields fields) {
  std::sort(fields.begin(), fields.end(),
            [](const auto& a, const auto& b) { return field_less(a.first, b.first); });
  auto t = make(TyNode::Kind::Record);
  t->fields = std::move(fields);
  return t;
}

Ty ty_tuple(std::vector<Ty> elems) {
  if (elems.size() == 1) return elems[0];
  Fields f;
  for (size_t i = 0; i < elems.size(); ++i) f.emplace_back(std::to_string(i), elems[i]);
  auto t = make(TyNode::Kind::Record);
  t->fields = std::move(f);
  return t;
}

Ty ty_unit() { return make(TyNode::Kind::Record); }

Ty ty_sum(Constrs constrs) {
  std::sort(constrs.begin(), constrs.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  auto t = make(TyNode::Kind::Sum);
  t->constrs = std::move(constrs);
  return t;
}

Ty ty_function(Ty param, Ty result, std::string param_name) {
  auto t = make(TyNode::Kind::Function);
  t->param = std::move(param);
  t->result = std::move(result);
  t->param_name = std::move(param_name);
  return t;
}

Ty ty_param(int id, std::string name) {
  auto t = make(TyNode::Kind::Param);
  t->param_id = id;
  t->param_var_name = std::move(name);
  return t;
}

Ty ty_with_unique(const Ty& t0, bool unique) {
  Ty t = resolve(t0);
  if (t->unique == unique) return t;
  if (t->kind == TyNode::Kind::Var) {
    // `*t` instantiated with a still-unknown type: a unique view of the
    // variable (a link to it), so that zonking the enclosing type (say, the
    // instantiated type of `copy`) still shows the result as unique.
    if (!unique) return t;
    auto v = std::make_shared<TyNode>();
    v->kind = TyNode::Kind::Var;
    v->link = t;
    v->unique = true;
    return v;
  }
  auto c = std::make_shared<TyNode>(*t);
  c->unique = unique;
  return c;
}

Ty ty_nonunique(const Ty& t0) {
  Ty t = ty_with_unique(t0, false);
  switch (t->kind) {
    case TyNode::Kind::Record: {
      bool any = false;
      for (const auto& [n, ft] : t->fields)
        if (resolve(ft)->unique || resolve(ft)->kind == TyNode::Kind::Record || resolve(ft)->kind == TyNode::Kind::Sum)
          any = true;
      if (!any) return t;
      auto c = std::make_shared<TyNode>(*t);
      for (auto& [n, ft] : c->fields) ft = ty_nonunique(ft);
      return c;
    }
    case TyNode::Kind::Sum: {
      auto c = std::make_shared<TyNode>(*t);
      for (auto& [n, ts] : c->constrs)
        for (auto& pt : ts) pt = ty_nonunique(pt);
      return c;
    }
    default: return t;
  }
}

Ty resolve(Ty t) {
  if (t->kind != TyNode::Kind::Var || !t->link) return t;
  Ty root = resolve(t->link);
  t->link = root;
  return root;
}

bool is_tuple_fields(const Fields& f) {
  if (f.size() == 1) return false;
  for (size_t i = 0; i < f.size(); ++i)
    if (f[i].first != std::to_string(i)) return false;
  return true;
}

const Ty* find_field(const Fields& f, const std::string& name) {
  for (const auto& [n, t] : f)
    if (n == name) return &t;
  return nullptr;
}

const std::vector<Ty>* find_constr(const Constrs& c, const std::string& name) {
  for (const auto& [n, ts] : c)
    if (n == name) return &ts;
  return nullptr;
}

// A size expression under a substitution of its names: `[n + 1]` with n
// := 3 is [4]. A name replaced by a size that is not a name, constant or
// expression (a variable, unknown) makes the whole size unknown.
// The tree's leaves named in s replaced; null when nothing changed, and
// `unknown` set when a name was replaced by an unknown size.
static SizeTreePtr substitute_tree(const SizeTreePtr& t, const Substitution& s, bool& unknown) {
  if (t->op == SizeTree::Op::Leaf) {
    DimRef d = dim_resolve(t->leaf);
    if (d->kind == DimNode::Kind::Name) {
      auto it = s.dims.find(d->name);
      if (it == s.dims.end()) return nullptr;
      if (dim_resolve(it->second)->kind == DimNode::Kind::Unknown) unknown = true;
      return tree_leaf(it->second);
    }
    return nullptr;
  }
  if (t->op == SizeTree::Op::Apply) {
    std::vector<SizeTreePtr> args;
    bool changed = false;
    for (const auto& x : t->args) {
      SizeTreePtr y = substitute_tree(x, s, unknown);
      changed = changed || y;
      args.push_back(y ? y : x);
    }
    return changed ? tree_apply(t->fn, std::move(args)) : nullptr;
  }
  SizeTreePtr a = substitute_tree(t->a, s, unknown);
  SizeTreePtr b = t->b ? substitute_tree(t->b, s, unknown) : nullptr;
  if (!a && !b) return nullptr;
  return tree_node(t->op, a ? a : t->a, b ? b : t->b);
}

static DimRef substitute_dim_expr(const DimRef& d, const Substitution& s) {
  if (d->tree) {
    // With its syntax, a size parameter replaced by a variable stays
    // solvable by structural unification (`[n * m]` at a call of unflatten).
    bool unknown = false;
    SizeTreePtr t = substitute_tree(d->tree, s, unknown);
    if (!t) return d;
    return unknown ? dim_unknown() : dim_of_tree(t);
  }
  if (!d->poly) return d;
  bool touched = false;
  for (const auto& [n, b] : d->poly->bindings) touched = touched || s.dims.count(n);
  if (!touched) return d;
  SizePoly out;
  for (const auto& [mono, c] : d->poly->terms) {
    SizePoly term = poly_const(c);
    for (const auto& n : mono) {
      SizePoly atom;
      auto it = s.dims.find(n);
      if (it != s.dims.end()) {
        if (!dim_poly(it->second, atom)) return dim_unknown();
      } else {
        atom.terms[{n}] = 1;
        auto b = d->poly->bindings.find(n);
        atom.bindings[n] = b == d->poly->bindings.end() ? nullptr : b->second;
      }
      term = poly_mul(term, atom);
    }
    out = poly_add(out, term);
  }
  return dim_of_poly(std::move(out));
}

Ty substitute(const Ty& t0, const Substitution& s) {
  if (s.empty()) return t0;
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Var:
    case TyNode::Kind::Prim: return t;
    case TyNode::Kind::Param: {
      auto it = s.types.find(t->param_id);
      if (it == s.types.end()) return t;
      return t->unique ? ty_with_unique(it->second, true) : it->second;
    }
    case TyNode::Kind::Array: {
      DimRef d = dim_resolve(t->dim);
      if (d->kind == DimNode::Kind::Name) {
        auto it = s.dims.find(d->name);
        if (it != s.dims.end()) d = it->second;
      } else if (d->kind == DimNode::Kind::Expr) {
        d = substitute_dim_expr(d, s);
      }
      auto c = std::make_shared<TyNode>(*t);
      c->dim = d;
      c->elem = substitute(t->elem, s);
      return c;
    }
    case TyNode::Kind::Record: {
      auto c = std::make_shared<TyNode>(*t);
      for (auto& [n, ft] : c->fields) ft = substitute(ft, s);
      return c;
    }
    case TyNode::Kind::Sum: {
      auto c = std::make_shared<TyNode>(*t);
      for (auto& [n, ts] : c->constrs)
        for (auto& pt : ts) pt = substitute(pt, s);
      return c;
    }
    case TyNode::Kind::Function: {
      auto c = std::make_shared<TyNode>(*t);
      c->param = substitute(t->param, s);
      // A named parameter shadows a size of the same name in the result.
      if (!t->param_name.empty() && s.dims.count(t->param_name)) {
        Substitution inner = s;
        inner.dims.erase(t->param_name);
        c->result = substitute(t->result, inner);
      } else {
        c->result = substitute(t->result, s);
      }
      return c;
    }
  }
  return t;
}

namespace {

// Mark: a declared result's anonymous sizes get DimNode::declared.
// Instantiate: declared (and escaped named) sizes become fresh existentials.
enum class Freshen { Mark, Instantiate };

struct FreshenCtx {
  Freshen mode;
  std::vector<DimRef>* created;  // Instantiate: the existentials made
  const std::function<bool(const DimNode&)>* escaped;
  std::set<std::string> params;  // named parameters in scope of the result
  const std::set<const DimNode*>* keep = nullptr;  // Mark: variables not marked
};

// The array sizes of a function's final result. Only the declared
// structure is copied (type variables are not followed: at instantiation
// they are still unbound, and a type bound to one comes from an argument,
// whose sizes are its own).
Ty freshen_dims(const Ty& t, bool& changed, FreshenCtx& cx) {
  if (t->link) return t;  // a bound variable: not part of the declared result
  switch (t->kind) {
    case TyNode::Kind::Array: {
      DimRef d = dim_resolve(t->dim);
      bool fresh;
      if (cx.mode == Freshen::Mark) {
        // An unknown size, or a `[]` the body left unsolved.
        fresh = (d->kind == DimNode::Kind::Unknown && !d->existential && !d->declared) ||
                (d->kind == DimNode::Kind::Var && !(cx.keep && cx.keep->count(d.get())));
      } else {
        fresh = (d->kind == DimNode::Kind::Unknown && d->declared) ||
                (d->kind == DimNode::Kind::Name && d->binding && cx.escaped && *cx.escaped &&
                 !cx.params.count(d->name) && (*cx.escaped)(*d));
      }
      bool elem_changed = false;
      Ty elem = freshen_dims(t->elem, elem_changed, cx);
      if (!fresh && !elem_changed) return t;
      changed = true;
      auto c = std::make_shared<TyNode>(*t);
      if (fresh && cx.mode == Freshen::Mark) {
        auto m = std::make_shared<DimNode>();
        m->declared = true;
        c->dim = m;
      } else if (fresh) {
        c->dim = dim_existential();
        if (cx.created) cx.created->push_back(c->dim);
      }
      c->elem = elem;
      return c;
    }
    case TyNode::Kind::Record: {
      bool any = false;
      Fields fs = t->fields;
      for (auto& [n, f] : fs) f = freshen_dims(f, any, cx);
      if (!any) return t;
      changed = true;
      auto c = std::make_shared<TyNode>(*t);
      c->fields = std::move(fs);
      return c;
    }
    case TyNode::Kind::Sum: {
      bool any = false;
      Constrs cs = t->constrs;
      for (auto& [n, ps] : cs)
        for (auto& p : ps) p = freshen_dims(p, any, cx);
      if (!any) return t;
      changed = true;
      auto c = std::make_shared<TyNode>(*t);
      c->constrs = std::move(cs);
      return c;
    }
    default: return t;
  }
}

Ty freshen_result(const Ty& t, FreshenCtx& cx) {
  if (t->link || t->kind != TyNode::Kind::Function) return t;
  // `(n: i64) -> [n]t`: n is the argument, not an escaped local.
  if (!t->param_name.empty()) cx.params.insert(t->param_name);
  Ty r = t->result;
  if (r->kind == TyNode::Kind::Function && !r->link) {
    Ty fr = freshen_result(r, cx);
    if (fr == r) return t;
    auto c = std::make_shared<TyNode>(*t);
    c->result = fr;
    return c;
  }
  bool changed = false;
  Ty fr = freshen_dims(r, changed, cx);
  if (!changed) return t;
  auto c = std::make_shared<TyNode>(*t);
  c->result = fr;
  return c;
}

}  // namespace

Ty freshen_result_sizes(const Ty& t, std::vector<DimRef>* created,
                        const std::function<bool(const DimNode&)>& escaped) {
  FreshenCtx cx{Freshen::Instantiate, created, &escaped, {}};
  return freshen_result(t, cx);
}

Ty mark_result_existentials(const Ty& t, const std::set<const DimNode*>* keep) {
  FreshenCtx cx{Freshen::Mark, nullptr, nullptr, {}, keep};
  if (t->link || t->kind != TyNode::Kind::Function) {
    bool changed = false;
    return freshen_dims(t, changed, cx);
  }
  return freshen_result(t, cx);
}

static bool same_dim(const DimRef& x0, const DimRef& y0) {
  DimRef x = dim_resolve(x0), y = dim_resolve(y0);
  if (x == y) return true;
  if (x->kind != y->kind) return false;
  if (x->kind == DimNode::Kind::Constant) return x->value == y->value;
  if (x->kind == DimNode::Kind::Name) return x->name == y->name;
  if (x->kind == DimNode::Kind::Expr) {
    SizePoly px, py;
    return dim_poly(x, px) && dim_poly(y, py) && poly_same(px, py);
  }
  return false;
}

Ty join_sizes(const Ty& a0, const Ty& b0, bool branches) {
  Ty a = resolve(a0), b = resolve(b0);
  if (a == b || a->kind != b->kind) return a;
  switch (a->kind) {
    case TyNode::Kind::Array: {
      DimRef d = a->dim;
      if (!same_dim(a->dim, b->dim)) {
        auto known = [](const DimRef& x0) {
          DimRef x = dim_resolve(x0);
          return x->kind == DimNode::Kind::Constant || x->kind == DimNode::Kind::Name ||
                 (x->kind == DimNode::Kind::Expr && x->poly);
        };
        if (branches && known(a->dim) && known(b->dim)) {
          d = dim_existential();
          d->origin = fmt::format("is unknown due to a conditional expression.\nOne branch returns array of type: {}\n"
                                  "The other an array of type:       {}",
                                  show(a), show(b));
        } else {
          d = dim_unknown();
        }
      }
      return ty_with_unique(ty_array(d, join_sizes(a->elem, b->elem, branches)), a->unique);
    }
    case TyNode::Kind::Record: {
      if (a->fields.size() != b->fields.size()) return a;
      Fields fs;
      for (size_t i = 0; i < a->fields.size(); ++i)
        fs.emplace_back(a->fields[i].first, join_sizes(a->fields[i].second, b->fields[i].second, branches));
      return ty_record(std::move(fs));
    }
    case TyNode::Kind::Sum: {
      if (a->constrs.size() != b->constrs.size()) return a;
      Constrs cs;
      for (size_t i = 0; i < a->constrs.size(); ++i) {
        std::vector<Ty> ps;
        const auto& pa = a->constrs[i].second;
        const auto& pb = b->constrs[i].second;
        for (size_t j = 0; j < pa.size() && j < pb.size(); ++j) ps.push_back(join_sizes(pa[j], pb[j], branches));
        cs.emplace_back(a->constrs[i].first, std::move(ps));
      }
      return ty_sum(std::move(cs));
    }
    default: return a;
  }
}

namespace {

enum class Ctx { Top, FunParam, Atom };

std::string show_prec(const Ty& t0, Ctx ctx);

std::string show_dim(const DimRef& d0) {
  DimRef d = dim_resolve(d0);
  switch (d->kind) {
    case DimNode::Kind::Constant: return fmt::format("[{}]", d->value);
    case DimNode::Kind::Name:
    case DimNode::Kind::Expr: return show_size_name(d->name);
    default: return "[]";
  }
}

std::string show_fields(const Fields& fields) {
  if (fields.empty()) return "()";
  if (is_tuple_fields(fields)) {
    std::string out = "(";
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i) out += ", ";
      out += show_prec(fields[i].second, Ctx::Top);
    }
    return out + ")";
  }
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ", ";
    out += fields[i].first + ": " + show_prec(fields[i].second, Ctx::Top);
  }
  return out + "}";
}

std::string show_constrs(const Constrs& cs) {
  std::string out;
  for (size_t i = 0; i < cs.size(); ++i) {
    if (i) out += " | ";
    out += "#" + cs[i].first;
    for (const auto& p : cs[i].second) out += " " + show_prec(p, Ctx::Atom);
  }
  return out;
}

Prim default_prim(PrimMask m) {
  if (m & prim_bit(Prim::I32)) return Prim::I32;
  if (m & prim_bit(Prim::F64)) return Prim::F64;
  for (int i = 0; i < kNumPrims; ++i)
    if (m & prim_bit(static_cast<Prim>(i))) return static_cast<Prim>(i);
  return Prim::I32;
}

std::string show_prec(const Ty& t0, Ctx ctx) {
  Ty t = resolve(t0);
  std::string u = t->unique ? "*" : "";
  switch (t->kind) {
    case TyNode::Kind::Var:
      switch (t->constraint) {
        case Constraint::Overloaded: return std::string(prim_name(default_prim(t->prims)));
        case Constraint::HasFields: return show_fields(t->fields);
        case Constraint::HasConstrs: {
          std::string s = show_constrs(t->constrs);
          return ctx == Ctx::Top ? s : "(" + s + ")";
        }
        default: return fmt::format("t{}", t->var);
      }
    case TyNode::Kind::Prim: return u + std::string(prim_name(t->prim));
    case TyNode::Kind::Param: return u + t->param_var_name;
    case TyNode::Kind::Array: {
      std::string out = u;
      Ty cur = t;
      while (cur->kind == TyNode::Kind::Array) {
        out += show_dim(cur->dim);
        cur = resolve(cur->elem);
      }
      return out + show_prec(cur, Ctx::Atom);
    }
    case TyNode::Kind::Record: return u + show_fields(t->fields);
    case TyNode::Kind::Sum: {
      std::string s = show_constrs(t->constrs);
      return ctx == Ctx::Top && u.empty() ? s : u + "(" + s + ")";
    }
    case TyNode::Kind::Function: {
      std::string p = t->param_name.empty()
                          ? show_prec(t->param, Ctx::FunParam)
                          : fmt::format("({}: {})", t->param_name, show_prec(t->param, Ctx::Top));
      std::string s = p + " -> " + show_prec(t->result, Ctx::Top);
      return ctx == Ctx::Top ? s : "(" + s + ")";
    }
  }
  return "?";
}

}  // namespace

std::string show(const Ty& t) { return show_prec(t, Ctx::Top); }

bool ty_any_outside_functions(const Ty& t0, const std::function<bool(const Ty&)>& pred) {
  Ty t = resolve(t0);
  if (pred(t)) return true;
  switch (t->kind) {
    case TyNode::Kind::Array: return ty_any_outside_functions(t->elem, pred);
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields)
        if (ty_any_outside_functions(f, pred)) return true;
      return false;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps)
          if (ty_any_outside_functions(p, pred)) return true;
      return false;
    default: return false;
  }
}

// Whether values of this type may be functions (then the type is lifted).
bool ty_functional(const Ty& t0) {
  return ty_any_outside_functions(t0, [](const Ty& t) { return t->kind == TyNode::Kind::Function; });
}

}  // namespace thorn::types
