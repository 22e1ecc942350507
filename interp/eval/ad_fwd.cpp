// Forward-mode transformation of element functions over arrays (ad_fwd.hpp).
//
// Naming. The generated body re-binds every name the source binds under its
// own name, in source order (so source subexpressions emitted verbatim mean
// what they meant), and binds each active value's tangent under a fresh
// name `__adfN` (its tangent twin), which nothing shadows. A lambda or a
// branch saves and restores the map from source names to twins.
#include "interp/eval/ad_fwd.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "interp/eval/ad_lambda_gen.hpp"
#include "interp/eval/ad_nest_util.hpp"
#include "interp/eval/env.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/eval/scalar_ops.hpp"
#include "interp/syntax/print.hpp"
#include "interp/types/type.hpp"

namespace thorn::eval::ad {

using namespace detail;
using namespace nest;

namespace {

thread_local int fwd_depth = 0;

struct Generated3 {
  std::vector<PatternPtr> params;
  ExprPtr body;
  std::vector<std::pair<std::string, Value>> helpers;  // values the body names (generated jvps, rules)
  std::vector<ExprPtr> keep;                             // synthesised source AST
  std::shared_ptr<const void> source;                    // what the source closure kept alive
  // The functions the body's names resolved to in the source closure's
  // environment (as ad_rev.cpp's Generated2::lookups): memoised code is
  // reused only for an environment that gives the same ones.
  std::vector<std::pair<QualName, CallablePtr>> lookups;
};

class Fwd {
 public:
  Fwd(Evaluator& ev, EnvPtr env, Loc loc, Generated3& out) : ev(ev), env(std::move(env)), loc(loc), out(out), g(ev, this->env, 0, loc) {}

  // The body of the tangent function of (ps, body): `params` gets, in
  // order, the tangents of free_active, then per group (the first nlead
  // parameters, then the rest) the group's parameters and the tangents of
  // its active ones. `outer` maps captured names to their twins (a lambda
  // inside a generated function).
  ExprPtr function(const std::vector<PatternPtr>& ps, const ExprPtr& body, const std::vector<bool>& act,
                   const std::vector<std::string>& free_active, size_t nlead, std::vector<PatternPtr>& params,
                   const std::map<std::string, ExprPtr>& outer) {
    tan = outer;
    for (const auto& n : free_active) {
      const Expr* v = find_var(*body, n);
      if (!v || !v->type) throw Unsupported(fmt::format("a captured variable {} whose type is not known here", n));
      std::string t = fresh();
      params.push_back(id_pattern(t, v->type, loc));
      tan[n] = var(t, v->type);
    }
    // An active parameter's tangent twin: a variable, or for a tuple
    // parameter (`(a1: f32, b1: f32)`) a tuple pattern of one per component.
    auto twin = [&](const Pattern& id, const TypePtr& t0) {
      TypePtr t = id.type ? id.type : t0;
      rank_of(t);
      std::string tn = fresh();
      tan[id.name] = var(tn, t);
      return id_pattern(tn, t, loc);
    };
    auto group = [&](size_t from, size_t to) {
      std::vector<PatternPtr> tans;
      for (size_t j = from; j < to; ++j) {
        params.push_back(ps[j]);
        const Pattern* id = param_id(*ps[j]);
        if (!id) {
          const Pattern* tup = ps[j].get();
          while (tup->kind == Pattern::Kind::Ascribed && tup->inner) tup = tup->inner.get();
          if (act[j] && tup->kind == Pattern::Kind::Tuple) {
            auto pat = std::make_shared<Pattern>();
            pat->kind = Pattern::Kind::Tuple;
            pat->loc = loc;
            pat->type = tup->type ? tup->type : ps[j]->type;
            for (const auto& e : tup->elems) {
              const Pattern* c = param_id(*e);
              if (!c) throw Unsupported("a mapped function with a nested pattern parameter that carries a derivative");
              locals.insert(c->name);
              pat->elems.push_back(twin(*c, e->type));
            }
            tans.push_back(pat);
            continue;
          }
          if (act[j]) throw Unsupported("a mapped function with a pattern parameter that carries a derivative");
          forget(*ps[j]);
          continue;
        }
        locals.insert(id->name);
        tan.erase(id->name);
        if (!act[j]) continue;
        tans.push_back(twin(*id, ps[j]->type));
      }
      for (const auto& p : tans) params.push_back(p);
    };
    group(0, nlead);
    group(nlead, ps.size());
    result_tail_ = true;
    auto [p, t] = norm(body);
    if (p->kind == Expr::Kind::Tuple) return wrap(chain, t);  // a tuple result: tuple_result's tangents
    rank_of(body->type);
    if (!t) t = zeros(p);
    return wrap(chain, t);
  }

 private:
  Evaluator& ev;
  EnvPtr env;
  Loc loc;
  Generated3& out;
  Gen g;
  Bindings chain;                       // the bindings, in order
  std::map<std::string, ExprPtr> tan;   // source name -> its tangent twin (a variable)
  std::set<std::string> locals;         // names the generated function binds

  using Dual1 = std::pair<ExprPtr, ExprPtr>;  // primal atom, tangent variable (null: zero)

  std::string fresh() {
    static std::mutex mu;
    static int counter = 0;
    std::lock_guard<std::mutex> l(mu);
    return fmt::format("__adf{}", counter++);
  }
  ExprPtr var(const std::string& n, const TypePtr& t) { return g.var(n, t); }

  void forget(const Pattern& p) {
    std::vector<std::string> ns;
    bound(p, ns);
    for (const auto& n : ns) tan.erase(n), locals.insert(n);
  }
  void emit(PatternPtr p, ExprPtr e) { chain.push_back({std::move(p), std::move(e)}); }
  ExprPtr bind(ExprPtr e, TypePtr t = nullptr) {
    if (!t) t = e->type;
    if (e->kind == Expr::Kind::Var && e->name.qualifiers.empty() && (locals.count(e->name.name) || e->name.name.rfind("__adf", 0) == 0))
      return e;
    std::string a = fresh();
    emit(id_pattern(a, t, loc), std::move(e));
    locals.insert(a);
    return var(a, t);
  }

  ExprPtr wrap(const Bindings& bindings, ExprPtr result) { return wrap_live(bindings, std::move(result), loc); }
  ExprPtr wrap(const std::vector<std::pair<std::string, ExprPtr>>& lets, ExprPtr result) {
    Bindings bs;
    for (const auto& [n, e] : lets) bs.push_back({id_pattern(n, e->type, loc), e});
    return wrap(bs, std::move(result));
  }

  bool mentions_active(const Expr& e) const {
    for (const auto& [n, t] : tan)
      if (mentions_name(e, n)) return true;
    return false;
  }
  ExprPtr tangent_of(const ExprPtr& atom) const {
    if (atom->kind != Expr::Kind::Var || !atom->name.qualifiers.empty()) return nullptr;
    auto it = tan.find(atom->name.name);
    return it == tan.end() ? nullptr : it->second;
  }

  ExprPtr rules(Prim p, const std::string& name) {
    if (p != Prim::F32 && p != Prim::F64) throw Unsupported("derivatives of f16 arrays");
    QualName q;
    q.qualifiers = {p == Prim::F32 ? "ad_rules_f32" : "ad_rules_f64"};
    q.name = name;
    std::string h = fmt::format("__adf_{}_{}", q.qualifiers[0], name);
    bool have = false;
    for (const auto& [n, v] : out.helpers) have = have || n == h;
    if (!have) {
      const Binding* b = lookup_value(ev.prelude_env, q);
      if (!b) throw Unsupported(fmt::format("the prelude has no rule {}", q.str()));
      out.helpers.push_back({h, b->value});
    }
    return var(h, nullptr);
  }
  ExprPtr call(ExprPtr fn, std::vector<ExprPtr> args, TypePtr t) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::Apply;
    e->loc = loc;
    e->a = std::move(fn);
    e->list = std::move(args);
    e->type = std::move(t);
    return e;
  }
  ExprPtr zeros(const ExprPtr& like) {
    int r = rank_of(like->type);
    if (r == 0) return g.lit(0, like->type);
    return bind(call(rules(prim_of(like->type), fmt::format("zeros{}", r)), {like}, like->type));
  }

  // The function's result (the body, through lets and ascriptions) may be
  // a tuple; anywhere else a tuple stays unsupported.
  bool result_tail_ = false;

  // A tuple result: the tuple of the components' primals, and of their
  // tangents (zeros for those without).
  Dual1 tuple_result(const ExprPtr& e) {
    auto p = std::make_shared<Expr>(*e);
    std::vector<ExprPtr> ts;
    for (auto& x : p->list) {
      rank_of(x->type);
      auto [xp, xt] = norm(x);
      x = xp;
      ts.push_back(xt ? xt : zeros(xp));
    }
    return {p, tuple_of(g, ts)};
  }

  // ---- the walk: each expression's primal (an atom) and tangent twin
  Dual1 norm(const ExprPtr& e) {
    const bool tail = std::exchange(result_tail_, false);
    if (literal(*e)) return {e, nullptr};
    if (tail && e->kind == Expr::Kind::Tuple) return tuple_result(e);
    if (!mentions_active(*e)) {
      if (e->kind == Expr::Kind::Let) return let(*e, tail);
      if (e->kind == Expr::Kind::Var) return {e, nullptr};
      return {bind(e), nullptr};
    }
    if (pure(*e)) return scalar(e);
    switch (e->kind) {
      case Expr::Kind::Var: return {e, tangent_of(e)};
      case Expr::Kind::Attr:
      case Expr::Kind::Ascribe: result_tail_ = tail; return norm(e->a);
      case Expr::Kind::Let: return let(*e, tail);
      case Expr::Kind::Apply: return apply(e);
      case Expr::Kind::Intrinsic: return intrinsic(e->text, e->list, e);
      case Expr::Kind::Index: return index(e);
      case Expr::Kind::ArrayLit: return array_lit(e);
      case Expr::Kind::Loop: return loop(e);
      default: return scalar(e);
    }
  }

  // `loop x = x0 for i < n do body` (or `while c`) becomes
  // `loop (x, ẋ) = (x0, ẋ0) for i < n do (body, its tangent)`: the body is
  // walked by a walker of its own (its bindings stay inside the loop) with
  // x's twin the loop's second variable. The loop variable is taken to
  // carry a derivative from the start (zeros when x0 has none), since the
  // body may give it one.
  Dual1 loop(const ExprPtr& e) {
    const Pattern* id = e->params.empty() ? nullptr : param_id(*e->params[0]);
    if (!e->type_params.empty() || !e->a || !id || e->loop_form == Expr::LoopForm::ForIn)
      throw Unsupported(fmt::format("a loop of this form (at {}) in a mapped function over arrays (one variable, for or while)", e->loc.str()));
    TypePtr t = id->type ? id->type : e->params[0]->type;
    rank_of(t);
    auto [ip, it] = norm(e->a);
    if (!it) it = zeros(ip);
    auto n = std::make_shared<Expr>(*e);
    if (e->loop_form == Expr::LoopForm::For) n->c = norm(e->c).first;  // the bound: an integer
    Fwd sub(ev, env, loc, out);
    sub.locals = locals;
    sub.tan = tan;
    sub.locals.insert(id->name);
    if (e->loop_form == Expr::LoopForm::For) sub.locals.insert(e->loop_var), sub.tan.erase(e->loop_var);
    std::string tn = fresh();
    sub.tan[id->name] = var(tn, t);
    auto [bp, bt] = sub.norm(e->b);
    if (!bt) bt = sub.zeros(bp);
    n->b = sub.wrap(sub.chain, tuple_of(g, {bp, bt}));
    auto pat = std::make_shared<Pattern>();
    pat->kind = Pattern::Kind::Tuple;
    pat->loc = loc;
    pat->elems = {e->params[0], id_pattern(tn, t, loc)};
    pat->type = tuple_type({t, t});
    n->params = {pat};
    n->a = tuple_of(g, {ip, it});
    n->type = tuple_type({e->type, e->type});
    out.keep.push_back(n);
    std::string p = fresh(), q = fresh();
    auto res = std::make_shared<Pattern>();
    res->kind = Pattern::Kind::Tuple;
    res->loc = loc;
    res->elems = {id_pattern(p, e->type, loc), id_pattern(q, e->type, loc)};
    res->type = n->type;
    emit(res, n);
    locals.insert(p);
    locals.insert(q);
    return {var(p, e->type), var(q, e->type)};
  }

  // `[a, b]` is linear in its elements: its tangent is `[ȧ, ḃ]`, zeros for
  // the elements that carry no derivative.
  Dual1 array_lit(const ExprPtr& e) {
    std::vector<Dual1> xs;
    for (const auto& x : e->list) xs.push_back(norm(x));
    auto p = std::make_shared<Expr>(*e);
    auto t = std::make_shared<Expr>(*e);
    bool any = false;
    for (size_t k = 0; k < xs.size(); ++k) {
      p->list[k] = xs[k].first;
      any = any || xs[k].second;
    }
    ExprPtr pv = bind(p, e->type);
    if (!any) return {pv, nullptr};
    rank_of(e->type);  // arrays of floats only (a tangent of every element)
    for (size_t k = 0; k < xs.size(); ++k) t->list[k] = xs[k].second ? xs[k].second : zeros(xs[k].first);
    return {pv, bind(t, e->type)};
  }

  Dual1 let(const Expr& e, bool tail) {
    if (!e.type_params.empty()) throw Unsupported(fmt::format("a size-binding let (at {}) in a mapped function", e.loc.str()));
    const Pattern* id = e.pattern ? param_id(*e.pattern) : nullptr;
    if (id) {
      auto [p, t] = norm(e.a);
      emit(e.pattern, p);
      locals.insert(id->name);
      if (t) tan[id->name] = t;
      else tan.erase(id->name);
    } else if (e.pattern && e.pattern->kind == Pattern::Kind::Wildcard) {
      norm(e.a);
    } else {
      if (mentions_active(*e.a))
        throw Unsupported(fmt::format("a let with a pattern (at {}) binding values that carry derivatives in a mapped function", e.loc.str()));
      emit(e.pattern, e.a);
      forget(*e.pattern);
    }
    result_tail_ = tail;
    return norm(e.b);
  }

  // A scalar expression of scalars and of gathers by one index.
  bool pure(const Expr& e) const {
    auto prim = [](const TypePtr& t) { return t && t->kind == Type::Kind::Prim; };
    switch (e.kind) {
      case Expr::Kind::IntLit:
      case Expr::Kind::FloatLit:
      case Expr::Kind::BoolLit: return true;
      case Expr::Kind::Var: return prim(e.type);
      case Expr::Kind::Attr:
      case Expr::Kind::Ascribe:
      case Expr::Kind::Negate: return pure(*e.a);
      case Expr::Kind::BinOp: return prim(e.type) && pure(*e.a) && pure(*e.b);
      case Expr::Kind::If: return prim(e.type) && pure(*e.a) && pure(*e.b) && pure(*e.c);
      case Expr::Kind::Let: return e.pattern && param_id(*e.pattern) && pure(*e.a) && pure(*e.b);
      case Expr::Kind::Intrinsic:
      case Expr::Kind::Apply: {
        if (!prim(e.type)) return false;
        if (e.kind == Expr::Kind::Apply) {
          if (!e.a || e.a->kind != Expr::Kind::Var) return false;
          if (e.a->name.qualifiers.empty() && locals.count(e.a->name.name)) return false;
          const Binding* b = lookup_value(env, e.a->name);
          if (!b || b->value.kind != Value::Kind::Function) return false;
          out.lookups.push_back({e.a->name, b->value.fn});
          const Callable& c = *b->value.fn;
          if (c.kind == Callable::Kind::Closure && !c.intrinsic_alias()) return false;  // a named function
        }
        for (const auto& x : e.list)
          if (!pure(*x)) return false;
        return true;
      }
      case Expr::Kind::Index: {
        if (!prim(e.type) || !e.a || e.a->kind != Expr::Kind::Var || e.indices.size() != 1) return false;
        for (const auto& ix : e.indices)
          if (ix.is_slice || !pure(*ix.index)) return false;
        return true;
      }
      default: return false;
    }
  }

  // Scalar expressions: children that are not pure are bound first; the
  // tangent comes from ad_lambda's dual numbers with one direction, seeded
  // with the twins of the active names the expression uses.
  Dual1 scalar(const ExprPtr& e0) {
    ExprPtr e = e0;
    if (!pure(*e)) {
      auto n = std::make_shared<Expr>(*e);
      // The children's twins join the map (fresh atoms are never shadowed).
      auto atom = [&](const ExprPtr& x) {
        auto [p, t] = norm(x);
        if (t && p->kind == Expr::Kind::Var && p->name.qualifiers.empty()) tan[p->name.name] = t;
        return p;
      };
      switch (e->kind) {
        case Expr::Kind::BinOp:
          n->a = atom(e->a);
          n->b = atom(e->b);
          break;
        case Expr::Kind::Negate: n->a = atom(e->a); break;
        case Expr::Kind::Apply:
        case Expr::Kind::Intrinsic:
          for (auto& x : n->list) x = atom(x);
          break;
        default: break;
      }
      e = n;
      if (!pure(*e) || !e->type || e->type->kind != Type::Kind::Prim)
        throw Unsupported(fmt::format("this kind of expression (at {}) in a mapped function over arrays", e0->loc.str()));
    }
    Gen d(ev, env, 1, loc);
    bool any = false;
    for (const auto& [n, t] : tan) {
      if (!mentions_name(*e, n)) continue;
      any = true;
      if (t->type && t->type->kind == Type::Kind::Prim) d.tan[n] = Tans{t};
      else d.free_array_tans[n] = t->name.name;
    }
    if (!any || !float_type(e->type)) return {bind(e), nullptr};
    Dual r = d.go(e);
    ExprPtr p = bind(wrap(d.lets, r.p), e->type);
    if (!r.t[0]) return {p, nullptr};
    // The tangent as a block of its own with only the bindings it needs.
    ExprPtr t = bind(wrap(d.lets, r.t[0]), e->type);
    return {p, t};
  }

  // Indexing (and slicing) is linear: the tangent is the twin indexed alike.
  Dual1 index(const ExprPtr& e) {
    if (!e->a) throw Unsupported("an index of a computed array in a mapped function");
    auto [x, xt] = norm(e->a);
    auto n = std::make_shared<Expr>(*e);
    n->a = x;
    ExprPtr p = bind(n, e->type);
    if (!xt || !float_valued(e->type)) return {p, nullptr};
    auto t = std::make_shared<Expr>(*e);
    t->a = xt;
    return {p, bind(t, e->type)};
  }

  const Value* global(const Expr& f) const {
    if (f.kind != Expr::Kind::Var && f.kind != Expr::Kind::OpSection) return nullptr;
    if (f.name.qualifiers.empty() && (locals.count(f.name.name) || tan.count(f.name.name))) return nullptr;
    const Binding* b = lookup_value(env, f.name);
    if (!b || b->value.kind != Value::Kind::Function) return nullptr;
    out.lookups.push_back({f.name, b->value.fn});
    return &b->value;
  }
  bool builtin_operator(const Expr& f) const {
    if (f.kind != Expr::Kind::OpSection && !(f.kind == Expr::Kind::Var && is_symbolic(f.name.name))) return false;
    if (!builtin_op_from_name(f.name.name)) return false;
    const Binding* b = lookup_value(env, f.name);
    return !b || (b->value.kind == Value::Kind::Function && b->value.fn->kind == Callable::Kind::Operator);
  }

  Dual1 apply(const ExprPtr& e) {
    const Value* fv = e->a ? global(strip(*e->a)) : nullptr;
    if (!fv) throw Unsupported(fmt::format("a call of a local or computed function (at {}) in a mapped function", e->loc.str()));
    const Callable& c = *fv->fn;
    if (c.kind == Callable::Kind::Closure) {
      if (auto alias_name = c.intrinsic_alias()) return intrinsic(*alias_name, e->list, e);
      if (c.params && c.params->size() == e->list.size()) return call_closure(c, e);
    }
    if (e->type && e->type->kind == Type::Kind::Prim) return scalar(e);
    throw Unsupported(fmt::format("a call of {} (at {}) in a mapped function over arrays", c.describe(), e->loc.str()));
  }

  // The generated tangent function of a named function, bound under a fresh name.
  ExprPtr jvp_of(const Callable& c, const std::vector<bool>& mask, size_t nlead) {
    std::string h = fresh();
    out.helpers.push_back({h, fwd_lambda(ev, c, mask, {}, nlead)});
    return var(h, nullptr);
  }

  Dual1 call_closure(const Callable& c, const ExprPtr& e) {
    std::vector<ExprPtr> as, ts;
    std::vector<bool> mask;
    for (const auto& x : e->list) {
      auto [p, t] = norm(x);
      as.push_back(p);
      mask.push_back(t != nullptr);
      if (t) ts.push_back(t);
    }
    auto fwd = std::make_shared<Expr>(*e);
    fwd->list = as;
    ExprPtr p = bind(fwd);
    if (ts.empty() || !float_valued(e->type)) return {p, nullptr};
    rank_of(e->type);
    std::vector<ExprPtr> args = as;
    args.insert(args.end(), ts.begin(), ts.end());
    return {p, bind(call(jvp_of(c, mask, 0), args, e->type), e->type)};
  }

  Dual1 intrinsic(const std::string& name, const std::vector<ExprPtr>& args, const ExprPtr& e) {
    if (name == "map" && args.size() >= 2) return map(args, *e);
    if ((name == "reduce" || name == "reduce_comm") && args.size() == 3) {
      const Expr& op = strip(*args[0]);
      const Expr& ne = strip(*args[1]);
      bool plus = builtin_operator(op) && op.name.name == "+" && !op.a && !op.b;
      bool zero = (ne.kind == Expr::Kind::FloatLit && ne.float_value == 0) || (ne.kind == Expr::Kind::IntLit && ne.int_value == 0);
      if (!plus || !zero || mentions_active(*args[1]))
        throw Unsupported(fmt::format("a reduction (at {}) other than reduce (+) 0 in a mapped function over arrays", e->loc.str()));
      auto [xs, xt] = norm(args[2]);
      ExprPtr p = bind(g.intr(name.c_str(), {args[0], args[1], xs}, e->type), e->type);
      if (!xt) return {p, nullptr};
      return {p, bind(g.intr(name.c_str(), {args[0], args[1], xt}, e->type), e->type)};
    }
    if ((name == "transpose" || name == "copy") && args.size() == 1) {  // linear
      auto [xs, xt] = norm(args[0]);
      ExprPtr p = bind(g.intr(name.c_str(), {xs}, e->type), e->type);
      if (!xt) return {p, nullptr};
      return {p, bind(g.intr(name.c_str(), {xt}, e->type), e->type)};
    }
    if (e->type && e->type->kind == Type::Kind::Prim && e->kind == Expr::Kind::Apply) return scalar(e);
    throw Unsupported(fmt::format("{} (at {}) in a mapped function over arrays", name, e->loc.str()));
  }

  // `(op)`, `(op x)`, `(x op)` as a lambda over scalars.
  ExprPtr operator_lambda(const Expr& f, const TypePtr& ta, const TypePtr& tb) {
    auto lam = std::make_shared<Expr>();
    lam->kind = Expr::Kind::Lambda;
    lam->loc = loc;
    std::string a = fresh(), b = fresh();
    auto op = std::make_shared<Expr>();
    op->kind = Expr::Kind::BinOp;
    op->loc = loc;
    op->name = f.name;
    if (f.kind == Expr::Kind::OpSection && f.a) {
      lam->params = {id_pattern(b, tb ? tb : ta, loc)};
      op->a = f.a, op->b = var(b, tb ? tb : ta);
      op->type = tb ? tb : ta;
    } else if (f.kind == Expr::Kind::OpSection && f.b) {
      lam->params = {id_pattern(a, ta, loc)};
      op->a = var(a, ta), op->b = f.b;
      op->type = ta;
    } else {
      if (!tb) return nullptr;
      lam->params = {id_pattern(a, ta, loc), id_pattern(b, tb, loc)};
      op->a = var(a, ta), op->b = var(b, tb);
      op->type = ta;
    }
    lam->a = op;
    out.keep.push_back(lam);
    return lam;
  }

  TypePtr elem_type(const ExprPtr& arr) {
    const TypePtr& t = arr->type;
    if (!t || t->kind != Type::Kind::Array) throw Unsupported("mapping over a value that is not an array");
    if (t->dims.size() == 1) return t->elem;
    auto r = std::make_shared<Type>(*t);
    r->dims.erase(r->dims.begin());
    return r;
  }

  Dual1 map(const std::vector<ExprPtr>& args, const Expr& e) {
    std::vector<ExprPtr> as, ats;
    std::vector<bool> amask;
    for (size_t j = 1; j < args.size(); ++j) {
      auto [p, t] = norm(args[j]);
      as.push_back(p);
      amask.push_back(t != nullptr);
      if (t) ats.push_back(t);
    }
    ExprPtr fexpr = args[0];
    const Expr& f = strip(*fexpr);
    ExprPtr lam;
    const Callable* callee = nullptr;
    std::vector<ExprPtr> lead, leadt;
    std::vector<bool> lmask;
    if (f.kind == Expr::Kind::Lambda) {
      lam = ExprPtr(std::shared_ptr<Expr>{}, const_cast<Expr*>(&f));
    } else if (builtin_operator(f)) {
      lam = operator_lambda(f, elem_type(as[0]), as.size() > 1 ? elem_type(as[1]) : nullptr);
    } else if (const Value* v = global(f)) {
      if (v->fn->kind == Callable::Kind::Closure) callee = v->fn.get();
    } else if (f.kind == Expr::Kind::Apply && f.a && global(strip(*f.a))) {
      const Value* v = global(strip(*f.a));
      if (v->fn->kind == Callable::Kind::Closure && v->fn->params && v->fn->params->size() > f.list.size()) {
        callee = v->fn.get();
        for (const auto& x : f.list) {
          auto [p, t] = norm(x);
          lead.push_back(p);
          lmask.push_back(t != nullptr);
          if (t) leadt.push_back(t);
        }
      }
    }
    if (!lam && !callee) throw Unsupported(fmt::format("mapping this kind of function (at {}) over arrays", f.loc.str()));
    std::vector<ExprPtr> fl{fexpr};
    for (const auto& x : as) fl.push_back(x);
    ExprPtr p = bind(g.intr("map", fl, e.type), e.type);
    if (!float_valued(e.type)) return {p, nullptr};
    ExprPtr tf;  // the tangent function mapped over as and their twins
    if (lam) {
      if (!lam->type_params.empty()) throw Unsupported("a mapped lambda with size parameters");
      bool captures = false;
      for (const auto& [n, t] : tan) captures = captures || mentions_name(*lam->a, n);
      bool any = captures;
      for (bool m : amask) any = any || m;
      if (!any) return {p, nullptr};
      rank_of(e.type);
      Fwd sub(ev, env, loc, out);
      sub.locals = locals;
      auto tl = std::make_shared<Expr>();
      tl->kind = Expr::Kind::Lambda;
      tl->loc = loc;
      tl->a = sub.function(lam->params, lam->a, amask, {}, 0, tl->params, tan);
      out.keep.push_back(tl);
      tf = tl;
    } else {
      bool any = false;
      for (bool m : amask) any = any || m;
      for (bool m : lmask) any = any || m;
      if (!any) return {p, nullptr};
      rank_of(e.type);
      std::vector<bool> mask = lmask;
      mask.insert(mask.end(), amask.begin(), amask.end());
      ExprPtr h = jvp_of(*callee, mask, lead.size());
      if (lead.empty()) tf = h;
      else {
        std::vector<ExprPtr> la = lead;
        la.insert(la.end(), leadt.begin(), leadt.end());
        tf = bind(call(h, la, nullptr), nullptr);
      }
    }
    std::vector<ExprPtr> margs{tf};
    margs.insert(margs.end(), as.begin(), as.end());
    margs.insert(margs.end(), ats.begin(), ats.end());
    return {p, bind(g.intr("map", margs, e.type), e.type)};
  }
};

}  // namespace

namespace {
thread_local Evaluator* planning = nullptr;
}
Evaluator* planning_evaluator() { return planning; }
PlanningEvaluator::PlanningEvaluator(Evaluator& ev) : prev(planning) { planning = &ev; }
PlanningEvaluator::~PlanningEvaluator() { planning = prev; }

Value fwd_lambda(Evaluator& ev, const Callable& f, const std::vector<bool>& active,
                 const std::vector<std::string>& free_active, size_t nlead, const std::string& env_key) {
  if (f.kind != Callable::Kind::Closure || !f.params || !f.body) throw Unsupported("a mapped function that is not a closure");
  if (active.size() != f.params->size() || nlead > active.size())
    throw Unsupported("a mapped function applied to other than its parameters");
  if (fwd_depth > 32) throw Unsupported("recursion in a mapped function");
  ++fwd_depth;
  struct Leave {
    ~Leave() { --fwd_depth; }
  } leave;
  std::string key = variant_key("fwdnest", f, active, {}, false) + fmt::format("|{}", nlead);
  for (const auto& n : free_active) key += "|" + n;
  key += "|env:" + env_key;
  // Memoised and kept for good (plan caches name AST by address); the lock
  // is re-entrant since generating one function generates its callees'.
  static std::recursive_mutex mu;
  // Variants of one key: the same code generated against different
  // functions of its environment (Generated3::lookups); none is dropped.
  static std::map<std::string, std::vector<std::pair<std::vector<PatternPtr>, std::shared_ptr<Generated3>>>> memo;
  std::lock_guard<std::recursive_mutex> lock(mu);
  std::shared_ptr<Generated3> gen;
  auto& variants = memo[key];
  for (const auto& [params, g] : variants)
    if (params == *f.params && same_functions(g->lookups, f.env)) gen = g;
  if (!gen) {
    auto g3 = std::make_shared<Generated3>();
    g3->source = f.keep;
    Fwd w(ev, f.env, f.loc, *g3);
    g3->body = w.function(*f.params, body_ptr(f), active, free_active, nlead, g3->params, {});
    if (std::getenv("THORN_AD_DUMP")) {
      std::string ps;
      for (const auto& p : g3->params) ps += " " + (p->kind == Pattern::Kind::Id ? p->name : std::string("<pat>"));
      fmt::print(stderr, "jvp of {}:{} ->\n{}\n", f.loc.str(), ps, to_string(*g3->body));
    }
    variants.push_back({*f.params, g3});
    gen = g3;
  }
  auto c = std::make_shared<Callable>();
  c->kind = Callable::Kind::Closure;
  c->loc = f.loc;
  c->params = &gen->params;
  c->body = gen->body.get();
  c->type_params = f.type_params;
  c->tenv = f.tenv;
  c->keep = std::shared_ptr<const void>(gen, gen.get());
  std::vector<std::pair<std::string, Binding>> frame;
  for (const auto& [n, v] : gen->helpers) {
    Binding b;
    b.value = v;
    frame.push_back({n, b});
  }
  c->env = frame.empty() ? f.env : extend(f.env, std::move(frame));
  return Value::function(c);
}

}  // namespace thorn::eval::ad
