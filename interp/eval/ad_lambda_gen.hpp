#pragma once
// Internals of the forward-mode transformation of element functions
// (ad_lambda.hpp): the generator of dual-number code (Gen) and the helpers
// that turn generated AST into memoised closures. Shared by ad_lambda.cpp
// (element functions) and ad_lambda_tuple.cpp (the tuple scan rule's code).
#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "interp/eval/ad_lambda.hpp"
#include "interp/eval/env.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/eval/scalar_ops.hpp"
#include "interp/types/type.hpp"

namespace thorn::eval::ad::detail {

using Tans = std::vector<ExprPtr>;  // one per direction; null = zero

struct Dual {
  ExprPtr p;
  Tans t;
};

inline bool float_type(const TypePtr& t) { return t && t->kind == Type::Kind::Prim && is_float(t->prim); }

// The name a parameter pattern binds (x, or x : t), and its type.
inline const Pattern* param_id(const Pattern& p) {
  if (p.kind == Pattern::Kind::Id) return &p;
  if (p.kind == Pattern::Kind::Ascribed && p.inner) return param_id(*p.inner);
  return nullptr;
}

struct Gen {
  Gen(Evaluator& e, EnvPtr en, int n, Loc l) : ev(e), env(std::move(en)), ndirs(n), loc(l) {}
  Evaluator& ev;
  EnvPtr env;  // the closure's environment: resolves the functions it calls
  int ndirs;
  Loc loc;
  std::vector<std::pair<std::string, ExprPtr>> lets;  // emitted bindings, in order
  std::map<std::string, Tans> tan;                    // local name -> tangents
  std::set<std::string> locals;                        // names the body binds
  std::map<std::string, Tans> free_tans;               // active free variables
  // Gathers from captured arrays that carry a derivative: forward mode
  // indexes the array's tangent (bound under the given name); reverse mode
  // gives each gather site a direction of its own (appended as sites are
  // met) and reports the site's index, for a histogram of the adjoints.
  std::map<std::string, std::string> free_array_tans;  // jvp: array -> tangent array's name
  std::set<std::string> free_arrays;                   // vjp: arrays whose gathers are directions
  struct Site {
    std::string array;
    int dir;
    ExprPtr index;
  };
  std::vector<Site> sites;
  int if_depth = 0;
  int counter = 0;

  std::string fresh() { return fmt::format("__ad{}", counter++); }

  ExprPtr var(const std::string& name, const TypePtr& type) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::Var;
    e->loc = loc;
    e->name.name = name;
    e->type = type;
    return e;
  }
  ExprPtr lit(double v, const TypePtr& type) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::FloatLit;
    e->loc = loc;
    e->float_value = v;
    e->prim = type->prim;
    e->suffix = type->prim;
    e->type = type;
    return e;
  }
  ExprPtr bin(const char* op, ExprPtr a, ExprPtr b, const TypePtr& type) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::BinOp;
    e->loc = loc;
    e->name.name = op;
    e->a = std::move(a);
    e->b = std::move(b);
    e->type = type;
    return e;
  }
  ExprPtr neg(ExprPtr a) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::Negate;
    e->loc = loc;
    e->type = a->type;
    e->a = std::move(a);
    return e;
  }
  ExprPtr intr(const char* name, std::vector<ExprPtr> args, const TypePtr& type) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::Intrinsic;
    e->loc = loc;
    e->text = name;
    e->list = std::move(args);
    e->type = type;
    return e;
  }
  ExprPtr iff(ExprPtr c, ExprPtr a, ExprPtr b, const TypePtr& type) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::If;
    e->loc = loc;
    e->a = std::move(c);
    e->b = std::move(a);
    e->c = std::move(b);
    e->type = type;
    return e;
  }
  // Binds `e` to a fresh name (unless it is already a variable or literal).
  ExprPtr atom(ExprPtr e) {
    if (!e || e->kind == Expr::Kind::Var || e->kind == Expr::Kind::FloatLit || e->kind == Expr::Kind::IntLit) return e;
    std::string n = fresh();
    lets.push_back({n, e});
    return var(n, e->type);
  }
  Tans zeros() const { return Tans(size_t(ndirs)); }

  // a + b on tangents that may be zero (null).
  ExprPtr add(ExprPtr a, ExprPtr b, const TypePtr& t) {
    if (!a) return b;
    if (!b) return a;
    return atom(bin("+", a, b, t));
  }
  ExprPtr mul(ExprPtr a, ExprPtr b, const TypePtr& t) {  // b is a tangent (may be null)
    if (!b) return nullptr;
    return atom(bin("*", a, b, t));
  }

  // The built-in operator `op` is what the name means where the function was
  // written (a program may define its own `+`).
  void require_builtin(const QualName& name) {
    const Binding* b = lookup_value(env, name);
    if (!b) return;
    const Value& v = b->value;
    if (v.kind == Value::Kind::Function && v.fn->kind == Callable::Kind::Operator) return;
    throw Unsupported(fmt::format("operator {} is user-defined", name.str()));
  }

  // Wraps `lets` emitted since `mark` around `result`: let n = e in ... result.
  ExprPtr close(size_t mark, ExprPtr result) {
    for (size_t k = lets.size(); k > mark; --k) {
      auto l = std::make_shared<Expr>();
      l->kind = Expr::Kind::Let;
      l->loc = loc;
      auto p = std::make_shared<Pattern>();
      p->kind = Pattern::Kind::Id;
      p->name = lets[k - 1].first;
      p->type = lets[k - 1].second->type;
      p->loc = loc;
      l->pattern = p;
      l->a = lets[k - 1].second;
      l->b = result;
      l->type = result->type;
      result = l;
    }
    lets.resize(mark);
    return result;
  }

  // Every tangent vector as long as the current number of directions
  // (gather sites add directions as they are met).
  Dual pad(Dual d) {
    d.t.resize(size_t(ndirs));
    return d;
  }
  void pad_all(std::vector<Dual>& ds) {
    for (auto& d : ds) d.t.resize(size_t(ndirs));
  }

  Dual go(const ExprPtr& e) { return pad(go_raw(e)); }

  Dual gather(const ExprPtr& e) {
    const std::string& arr = e->a->name.name;
    if (e->indices.size() != 1 || e->indices[0].is_slice)
      throw Unsupported(fmt::format("a slice or multi-dimensional index of {} (at {}) in a mapped function", arr, e->loc.str()));
    Dual i = go(e->indices[0].index);
    ExprPtr iv = atom(i.p);
    auto n = std::make_shared<Expr>(*e);
    n->indices[0].index = iv;
    ExprPtr p = atom(n);
    Tans t = zeros();
    bool active = e->a->name.qualifiers.empty() && (free_array_tans.count(arr) || free_arrays.count(arr));
    if (!active) return {p, t};
    if (auto it = free_array_tans.find(arr); it != free_array_tans.end()) {
      auto ti = std::make_shared<Expr>(*n);
      ti->a = var(it->second, e->a->type);
      t[0] = atom(ti);
      return {p, t};
    }
    if (if_depth > 0)
      throw Unsupported(fmt::format("a gather from {} inside a branch (at {}) in a mapped function", arr, e->loc.str()));
    if (iv->kind == Expr::Kind::IntLit && iv->type && iv->type->kind == Type::Kind::Prim && iv->type->prim != Prim::I64) {
      // A literal index (`x[0]`) may have another integer type; the sites'
      // reduce_by_index takes i64 positions.
      auto wide = std::make_shared<Expr>(*iv);
      wide->type = prim_type(Prim::I64);
      wide->prim = Prim::I64;
      wide->suffix = Prim::I64;
      iv = wide;
    }
    if (!iv->type || iv->type->kind != Type::Kind::Prim || iv->type->prim != Prim::I64)
      throw Unsupported(fmt::format("a gather from {} with a non-i64 index (at {})", arr, e->loc.str()));
    int d = ndirs++;
    sites.push_back({arr, d, iv});
    t = zeros();
    t[size_t(d)] = lit(1, e->type);
    return {p, t};
  }

  Dual go_raw(const ExprPtr& e) {
    switch (e->kind) {
      case Expr::Kind::IntLit:
      case Expr::Kind::FloatLit:
      case Expr::Kind::BoolLit: return {e, zeros()};
      case Expr::Kind::Var: {
        if (e->name.qualifiers.empty()) {
          if (auto it = tan.find(e->name.name); it != tan.end()) return {e, it->second};
          if (!locals.count(e->name.name))
            if (auto it = free_tans.find(e->name.name); it != free_tans.end()) return {e, it->second};
        }
        if (e->type && e->type->kind != Type::Kind::Prim)
          throw Unsupported(fmt::format("free variable {} of a non-scalar type in a mapped function", e->name.str()));
        return {e, zeros()};
      }
      case Expr::Kind::Attr:
      case Expr::Kind::Ascribe: return go(e->a);
      case Expr::Kind::Index:
        // A read of a captured array (the function's own arrays are not
        // supported): one that carries a derivative is a gather site, any
        // other a constant.
        if (e->a && e->a->kind == Expr::Kind::Var && !(e->a->name.qualifiers.empty() && locals.count(e->a->name.name)))
          return gather(e);
        break;
      case Expr::Kind::Negate: {
        Dual a = go(e->a);
        auto n = std::make_shared<Expr>(*e);
        n->a = atom(a.p);
        Tans t = zeros();
        for (int d = 0; d < ndirs; ++d)
          if (a.t[d]) t[d] = atom(neg(a.t[d]));
        return {atom(n), t};
      }
      case Expr::Kind::BinOp: return binop(e);
      case Expr::Kind::Apply: return apply(e);
      case Expr::Kind::Intrinsic: return call_rule(e, e->text, "intrinsic " + e->text);
      case Expr::Kind::If: return cond(e);
      case Expr::Kind::Let:
        bind_let(*e);
        return go(e->b);
      default: break;
    }
    throw Unsupported(fmt::format("this kind of expression (at {}) in a mapped function", e->loc.str()));
  }

  // `let x = a in ...` (or `let _ = a`): a's primal and tangent bound to x
  // for the rest of the body.
  void bind_let(const Expr& e) {
    const Pattern* id = e.pattern ? param_id(*e.pattern) : nullptr;
    bool wildcard = e.pattern && e.pattern->kind == Pattern::Kind::Wildcard;
    if ((!id && !wildcard) || !e.type_params.empty())
      throw Unsupported(fmt::format("a let with a pattern (at {}) in a mapped function", e.loc.str()));
    Dual v = go(e.a);
    if (id) {
      lets.push_back({id->name, v.p});
      locals.insert(id->name);
      tan[id->name] = v.t;
    }
  }

  // A body whose result is a tuple of scalars (a tuple literal after
  // let-bindings): one Dual per component; any other body is one Dual.
  std::vector<Dual> go_multi(const ExprPtr& e) {
    if (e->kind == Expr::Kind::Attr || e->kind == Expr::Kind::Ascribe) return go_multi(e->a);
    if (e->kind == Expr::Kind::Tuple) {
      std::vector<Dual> out;
      for (const auto& x : e->list) {
        if (!float_type(x->type)) throw Unsupported(fmt::format("a tuple component that is not a float (at {})", x->loc.str()));
        out.push_back(go(x));
      }
      pad_all(out);
      return out;
    }
    if (e->kind == Expr::Kind::Let && e->type && e->type->kind == Type::Kind::Tuple) {
      bind_let(*e);
      return go_multi(e->b);
    }
    std::vector<Dual> one{go(e)};
    pad_all(one);
    return one;
  }

  Dual binop(const ExprPtr& e) {
    require_builtin(e->name);
    const std::string& op = e->name.name;
    Dual a = go(e->a), b = go(e->b);
    a = pad(a);
    auto n = std::make_shared<Expr>(*e);
    n->a = atom(a.p);
    n->b = atom(b.p);
    ExprPtr p = atom(n);
    Tans t = zeros();
    if (!float_type(e->type)) return {p, t};  // comparisons, integers: no tangent
    const TypePtr& ty = e->type;
    for (int d = 0; d < ndirs; ++d) {
      ExprPtr ta = a.t[d], tb = b.t[d];
      if (!ta && !tb) continue;
      if (op == "+") t[d] = add(ta, tb, ty);
      else if (op == "-") t[d] = ta && tb ? atom(bin("-", ta, tb, ty)) : ta ? ta : atom(neg(tb));
      else if (op == "*") t[d] = add(mul(n->b, ta, ty), mul(n->a, tb, ty), ty);
      else if (op == "/") {
        // d(a/b) = (ta - p * tb) / b
        ExprPtr num = tb ? atom(bin("-", ta ? ta : lit(0, ty), atom(bin("*", p, tb, ty)), ty)) : ta;
        t[d] = atom(bin("/", num, n->b, ty));
      } else if (op == "**") {
        // d(a**b) = b * a**(b-1) * ta + p * log a * tb, with Futhark's
        // guards (Derivatives.hs) that keep it finite at a = 0: the first
        // partial is 0 where a == 0 and b < 1, log a is taken as 0 where
        // a <= 0. Both branches are computed and one selected.
        ExprPtr da, db;
        TypePtr bt = prim_type(Prim::Bool);
        if (ta) {
          ExprPtr pw = atom(bin("**", n->a, atom(bin("-", n->b, lit(1, ty), ty)), ty));
          ExprPtr full = atom(bin("*", n->b, pw, ty));
          ExprPtr at0 = atom(bin("==", n->a, lit(0, ty), bt));
          ExprPtr below1 = atom(bin("<", n->b, lit(1, ty), bt));
          ExprPtr part = atom(iff(at0, atom(iff(below1, lit(0, ty), full, ty)), full, ty));
          da = atom(bin("*", part, ta, ty));
        }
        if (tb) {
          ExprPtr lg = atom(intr("log", {n->a}, ty));
          ExprPtr guarded = atom(iff(atom(bin("<=", n->a, lit(0, ty), bt)), lit(0, ty), lg, ty));
          db = atom(bin("*", atom(bin("*", p, guarded, ty)), tb, ty));
        }
        t[d] = add(da, db, ty);
      } else {
        throw Unsupported(fmt::format("the derivative of operator {} (at {})", op, e->loc.str()));
      }
    }
    return {p, t};
  }

  Dual cond(const ExprPtr& e) {
    Dual c = go(e->a);
    ExprPtr cv = atom(c.p);
    // Each branch is generated into its own let-block; the if is repeated
    // per component (primal, then each non-zero tangent), each branch
    // recomputing its block: inner scopes are recomputed, not stored.
    auto branch = [&](const ExprPtr& b, size_t& mark) {
      mark = lets.size();
      ++if_depth;
      struct Leave {
        int& d;
        ~Leave() { --d; }
      } leave{if_depth};
      auto saved_tan = tan;
      auto saved_locals = locals;
      Dual r = go(b);
      tan = std::move(saved_tan);
      locals = std::move(saved_locals);
      return r;
    };
    size_t m1 = 0, m2 = 0;
    Dual x = branch(e->b, m1);
    std::vector<std::pair<std::string, ExprPtr>> xl(lets.begin() + long(m1), lets.end());
    lets.resize(m1);
    Dual y = branch(e->c, m2);
    std::vector<std::pair<std::string, ExprPtr>> yl(lets.begin() + long(m2), lets.end());
    lets.resize(m2);
    auto block = [&](const std::vector<std::pair<std::string, ExprPtr>>& ls, ExprPtr r) {
      size_t mark = lets.size();
      lets.insert(lets.end(), ls.begin(), ls.end());
      return close(mark, std::move(r));
    };
    ExprPtr p = atom(iff(cv, block(xl, x.p), block(yl, y.p), e->type));
    Tans t = zeros();
    if (!float_type(e->type)) return {p, t};
    for (int d = 0; d < ndirs; ++d) {
      if (!x.t[d] && !y.t[d]) continue;
      ExprPtr tx = x.t[d] ? x.t[d] : lit(0, e->type);
      ExprPtr ty = y.t[d] ? y.t[d] : lit(0, e->type);
      t[d] = atom(iff(cv, block(xl, tx), block(yl, ty), e->type));
    }
    return {p, t};
  }

  // Calls of the prelude's scalar functions, resolved where the element
  // function was written.
  Dual apply(const ExprPtr& e) {
    if (!e->a || e->a->kind != Expr::Kind::Var)
      throw Unsupported(fmt::format("a call of a computed function (at {}) in a mapped function", e->loc.str()));
    if (e->a->name.qualifiers.empty() && locals.count(e->a->name.name))
      throw Unsupported("a call of a local function in a mapped function");
    const Binding* b = lookup_value(env, e->a->name);
    if (!b || b->value.kind != Value::Kind::Function)
      throw Unsupported(fmt::format("a call of {} in a mapped function", e->a->name.str()));
    const Callable& c = *b->value.fn;
    std::optional<std::string> alias;
    if (c.kind == Callable::Kind::Closure) alias = c.intrinsic_alias();
    else if (c.kind == Callable::Kind::Operator) alias = c.name;
    return call_rule(e, alias, e->a->name.str());
  }

  // An application (Apply of a prelude function whose body is the
  // intrinsic `alias`, or an Intrinsic node itself): the primal call with
  // its arguments bound, and the tangents by the intrinsic's derivative.
  Dual call_rule(const ExprPtr& e, const std::optional<std::string>& alias, const std::string& shown) {
    std::vector<Dual> args;
    for (const auto& x : e->list) args.push_back(go(x));
    pad_all(args);
    auto n = std::make_shared<Expr>(*e);
    n->list.clear();
    for (auto& a : args) n->list.push_back(atom(a.p));
    ExprPtr p = atom(n);
    Tans t = zeros();
    bool any = false;
    for (auto& a : args)
      for (auto& x : a.t) any = any || x;
    if (!any || !float_type(e->type)) return {p, t};  // a function of constants
    if (!alias) throw Unsupported(fmt::format("the derivative of {} (at {})", shown, e->loc.str()));
    const std::string& f = *alias;
    const TypePtr& ty = e->type;
    const ExprPtr& x = n->list[0];
    auto one = [&]() -> ExprPtr {  // d f / d x for unary f
      if (f == "sin") return atom(intr("cos", {x}, ty));
      if (f == "cos") return atom(neg(atom(intr("sin", {x}, ty))));
      if (f == "exp") return p;
      if (f == "log") return atom(bin("/", lit(1, ty), x, ty));
      if (f == "log2") return atom(bin("/", lit(1, ty), atom(bin("*", x, lit(0.6931471805599453, ty), ty)), ty));
      if (f == "log10") return atom(bin("/", lit(1, ty), atom(bin("*", x, lit(2.302585092994046, ty), ty)), ty));
      if (f == "log1p") return atom(bin("/", lit(1, ty), atom(bin("+", x, lit(1, ty), ty)), ty));
      if (f == "sqrt") return atom(bin("/", lit(0.5, ty), p, ty));
      if (f == "tanh") return atom(bin("-", lit(1, ty), atom(bin("*", p, p, ty)), ty));
      if (f == "sinh") return atom(intr("cosh", {x}, ty));
      if (f == "cosh") return atom(intr("sinh", {x}, ty));
      if (f == "atan")
        return atom(bin("/", lit(1, ty), atom(bin("+", lit(1, ty), atom(bin("*", x, x, ty)), ty)), ty));
      if (f == "abs") {
        TypePtr bt = prim_type(Prim::Bool);
        return atom(iff(atom(bin("<", x, lit(0, ty), bt)), lit(-1, ty), lit(1, ty), ty));
      }
      return nullptr;
    };
    if (args.size() == 1) {
      if (f == "f32" || f == "f64" || f == "to_f64" || f == "to_f32") {  // float conversions
        for (int d = 0; d < ndirs; ++d)
          if (args[0].t[d]) {
            auto cv = std::make_shared<Expr>(*n);
            cv->list = {args[0].t[d]};
            t[d] = atom(cv);
          }
        return {p, t};
      }
      ExprPtr dfdx = one();
      if (!dfdx) throw Unsupported(fmt::format("the derivative of {} (at {})", shown, e->loc.str()));
      for (int d = 0; d < ndirs; ++d) t[d] = mul(dfdx, args[0].t[d], ty);
      return {p, t};
    }
    if (args.size() == 2 && (f == "max" || f == "min")) {
      // The tangent of the argument that is the result (the first on ties).
      TypePtr bt = prim_type(Prim::Bool);
      ExprPtr first = atom(bin(f == "max" ? ">=" : "<=", n->list[0], n->list[1], bt));
      for (int d = 0; d < ndirs; ++d) {
        if (!args[0].t[d] && !args[1].t[d]) continue;
        t[d] = atom(iff(first, args[0].t[d] ? args[0].t[d] : lit(0, ty), args[1].t[d] ? args[1].t[d] : lit(0, ty), ty));
      }
      return {p, t};
    }
    throw Unsupported(fmt::format("the derivative of {} (at {})", shown, e->loc.str()));
  }
};

// What a generated closure keeps alive: its parameters and body.
struct Generated {
  std::vector<PatternPtr> params;
  ExprPtr body;
  // What the source closure kept alive beyond its AST (a generated source:
  // an operator section's closure), since the generated body points into it.
  std::shared_ptr<const void> source;
  // vjp: the captured array each gather site reads (in output order).
  std::vector<std::string> site_arrays;
};

PatternPtr id_pattern(const std::string& name, const TypePtr& type, const Loc& loc);
Value make_closure(const Callable& f, std::shared_ptr<Generated> g, EnvPtr env);
// Checks the shape of f and returns its parameters' Id patterns, tuple
// parameters flattened (the caller passes one scalar per Id).
std::vector<const Pattern*> scalar_params(const Callable& f);
// f's body as a shared pointer that generated nodes can point at.
ExprPtr body_ptr(const Callable& f);
ExprPtr tuple_of(Gen& g, std::vector<ExprPtr> elems);
// Gives the generated function f's scalar parameters ps (appended to
// gen.params) and seeds their tangents for reverse mode: active parameter j
// is the next direction, with tangent 1 there and zero elsewhere. Returns
// the number of directions used.
int seed_params(Gen& g, Generated& gen, const std::vector<const Pattern*>& ps, const std::vector<bool>& active,
                const Loc& loc);
// Generated code, memoised per source function and variant (ad_lambda.cpp).
std::shared_ptr<Generated> memoised(const std::string& key, const Callable* f,
                                    const std::function<std::shared_ptr<Generated>()>& make);
std::string variant_key(const char* mode, const Callable& f, const std::vector<bool>& active,
                        const std::vector<FreeActive>& free, bool tangent_only);

}  // namespace thorn::eval::ad::detail
