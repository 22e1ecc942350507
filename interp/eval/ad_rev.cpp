// Reverse-mode transformation of element functions over arrays (ad_rev.hpp).
//
// Naming. The forward sweep re-binds every name the source binds under its
// own name (so source subexpressions emitted verbatim resolve as they did)
// and also under a fresh alias `__adrN`; the return sweep, emitted after
// the whole forward sweep, names values only by aliases, which nothing
// shadows. A free variable gets its alias where it is first used.
#include "interp/eval/ad_rev.hpp"

#include <fmt/format.h>

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
#include "interp/types/type.hpp"

namespace thorn::eval::ad {

using namespace detail;
using namespace nest;

namespace {

thread_local int rev_depth = 0;

struct Generated2 {
  std::vector<PatternPtr> params;
  ExprPtr body;
  std::vector<std::pair<std::string, Value>> helpers;  // values the body names (generated vjps)
  std::vector<ExprPtr> keep;                             // synthesised source AST
  std::shared_ptr<const void> source;                    // what the source closure kept alive
  // The functions the body's names resolved to in the source closure's
  // environment when it was generated: the body calls their generated
  // vjps, so the memoised code is good for another closure over the same
  // code only if its environment gives the same functions (a lambda
  // capturing an operator parameter, made once per operator).
  std::vector<std::pair<QualName, CallablePtr>> lookups;
};

class Rev {
 public:
  Rev(Evaluator& ev, EnvPtr env, Loc loc, Generated2& out) : ev(ev), env(std::move(env)), loc(loc), out(out), g(ev, this->env, 0, loc) {}

  // The generated function's body; `params` gets f's parameters and ȳ.
  ExprPtr function(const std::vector<PatternPtr>& ps, const ExprPtr& body, const std::vector<bool>& act,
                   const std::vector<std::string>& free_active, std::vector<PatternPtr>& params) {
    // Each parameter's aliases: one, or one per component of a tuple
    // parameter (`(a1: f32, b1: f32)`), whose adjoint is then a tuple.
    std::vector<std::vector<std::string>> param_alias;
    auto bind_param = [&](const Pattern& id, bool a_) {
      free_src.erase(id.name);
      std::string a = bind_value(var(id.name, id.type), a_);
      cur[id.name] = a;
      set_active_src(id.name, a_);
      return a;
    };
    for (size_t j = 0; j < ps.size(); ++j) {
      params.push_back(ps[j]);
      if (const Pattern* id = param_id(*ps[j])) {
        param_alias.push_back({bind_param(*id, act[j])});
        continue;
      }
      const Pattern* tup = ps[j].get();
      while (tup->kind == Pattern::Kind::Ascribed && tup->inner) tup = tup->inner.get();
      std::vector<std::string> parts;
      if (act[j] && tup->kind == Pattern::Kind::Tuple) {
        for (const auto& e : tup->elems) {
          const Pattern* id = param_id(*e);
          if (!id) throw Unsupported("a mapped function with a nested pattern parameter that carries a derivative");
          parts.push_back(bind_param(*id, true));
        }
        param_alias.push_back(parts);
        continue;
      }
      if (act[j]) throw Unsupported("a mapped function with a pattern parameter that carries a derivative");
      forget_pattern(*ps[j]);
      param_alias.push_back({});
    }
    for (const auto& n : free_active)
      if (!cur.count(n)) free_src.insert(n), active_src.insert(n);
    result_tail_ = true;
    ExprPtr r = norm(body);
    if (r->kind == Expr::Kind::Tuple) {
      // A tuple result: ȳ is a tuple, each component the adjoint of the
      // result's component (an atom the forward sweep bound).
      auto pat = std::make_shared<Pattern>();
      pat->kind = Pattern::Kind::Tuple;
      pat->loc = loc;
      pat->type = body->type;
      std::vector<std::pair<std::string, ExprPtr>> bars;
      for (const ExprPtr& x : r->list) {
        rank_of(x->type);
        std::string yk = fresh();
        pat->elems.push_back(id_pattern(yk, x->type, loc));
        if (is_active(x)) bars.push_back({x->name.name, var(yk, x->type)});
      }
      params.push_back(pat);
      for (const auto& [a, bar] : bars) accumulate(a, bar);
    } else {
      rank_of(body->type);
      std::string yb = fresh();
      params.push_back(id_pattern(yb, body->type, loc));
      if (r->kind == Expr::Kind::Var && active.count(r->name.name)) adj[r->name.name] = var(yb, body->type);
    }
    for (size_t k = tape.size(); k-- > 0;)
      if (auto it = adj.find(tape[k].out); it != adj.end()) tape[k].back(it->second);
    std::vector<ExprPtr> results;
    auto result = [&](const std::string& a, const ExprPtr& primal) {
      if (auto it = adj.find(a); it != adj.end()) return results.push_back(it->second);
      results.push_back(zeros(primal));
    };
    for (size_t j = 0; j < ps.size(); ++j) {
      if (!act[j]) continue;
      if (const Pattern* id = param_id(*ps[j]); id) {
        result(param_alias[j][0], var(param_alias[j][0], types[param_alias[j][0]]));
        continue;
      }
      std::vector<ExprPtr> parts;  // a tuple parameter's adjoint, component by component
      std::swap(parts, results);
      for (const std::string& a : param_alias[j]) result(a, var(a, types[a]));
      std::swap(parts, results);
      results.push_back(tuple_of(g, parts));
    }
    for (const auto& n : free_active) {
      auto it = free_alias.find(n);
      if (it != free_alias.end()) result(it->second, var(it->second, types[it->second]));
      else results.push_back(zeros(named(*body, n)));  // not used
    }
    if (results.empty()) throw Unsupported("a mapped function with nothing to differentiate");
    return close(tuple_of(g, results));
  }

 private:
  Evaluator& ev;
  EnvPtr env;
  Loc loc;
  Generated2& out;
  Gen g;  // AST construction helpers (var, lit, bin, intr)
  std::vector<std::pair<PatternPtr, ExprPtr>> chain;  // the bindings, in order
  std::map<std::string, std::string> cur;             // source name -> alias
  std::map<std::string, std::string> free_alias;      // free variable -> its alias
  std::map<std::string, TypePtr> types;               // alias -> type
  std::set<std::string> active;                       // aliases that carry derivatives
  std::set<std::string> active_src;                   // source names that do
  std::set<std::string> free_src;                     // free variables that do, not yet aliased
  struct Entry {
    std::string out;
    std::function<void(const ExprPtr&)> back;
  };
  std::vector<Entry> tape;
  std::map<std::string, ExprPtr> adj;  // alias -> adjoint (a variable)
  std::map<std::string, std::string> same_length;  // a map's result -> its first input

  static inline int counter = 0;
  std::string fresh() {
    static std::mutex mu;
    std::lock_guard<std::mutex> l(mu);
    return fmt::format("__adr{}", counter++);
  }
  ExprPtr var(const std::string& n, const TypePtr& t) { return g.var(n, t); }

  void set_active_src(const std::string& n, bool a) {
    if (a) active_src.insert(n);
    else active_src.erase(n);
  }
  void forget_pattern(const Pattern& p) {
    if (p.kind == Pattern::Kind::Id) {
      cur.erase(p.name);
      active_src.erase(p.name);
      free_src.erase(p.name);
    }
    if (p.inner) forget_pattern(*p.inner);
    for (const auto& e : p.elems) forget_pattern(*e);
    for (const auto& [f, e] : p.fields) forget_pattern(*e);
  }

  void emit(PatternPtr p, ExprPtr e) { chain.push_back({std::move(p), std::move(e)}); }
  std::string bind_value(ExprPtr e, bool act, TypePtr t = nullptr) {
    if (!t) t = e->type;
    std::string a = fresh();
    emit(id_pattern(a, t, loc), std::move(e));
    types[a] = t;
    if (act) active.insert(a);
    return a;
  }
  ExprPtr bind(ExprPtr e, bool act, TypePtr t = nullptr) {
    if (!t) t = e->type;
    return var(bind_value(std::move(e), act, t), t);
  }
  ExprPtr close(ExprPtr result) { return wrap(chain, std::move(result)); }

  ExprPtr wrap(const Bindings& bindings, ExprPtr result) { return wrap_live(bindings, std::move(result), loc); }
  ExprPtr wrap(const std::vector<std::pair<std::string, ExprPtr>>& lets, ExprPtr result) {
    std::vector<std::pair<PatternPtr, ExprPtr>> bs;
    for (const auto& [n, e] : lets) bs.push_back({id_pattern(n, e->type, loc), e});
    return wrap(bs, std::move(result));
  }

  bool is_active(const ExprPtr& atom) const {
    return atom->kind == Expr::Kind::Var && atom->name.qualifiers.empty() && active.count(atom->name.name);
  }
  // The alias of a source name (a free variable gets one here).
  ExprPtr alias(const Expr& e) {
    const std::string& n = e.name.name;
    if (!e.name.qualifiers.empty()) return bind(std::make_shared<Expr>(e), false);
    if (auto it = cur.find(n); it != cur.end()) return var(it->second, types[it->second]);
    bool act = free_src.count(n) > 0;
    std::string a = bind_value(std::make_shared<Expr>(e), act);
    cur[n] = a;
    if (act) free_alias[n] = a, free_src.erase(n);
    return var(a, e.type);
  }
  // A variable `n` as `in` uses it (with its type).
  ExprPtr named(const Expr& in, const std::string& n) {
    if (const Expr* v = find_var(in, n)) return std::make_shared<Expr>(*v);
    throw Unsupported(fmt::format("a captured variable {} whose type is not known here", n));
  }
  bool mentions_active(const Expr& e) const {
    for (const auto& n : active_src)
      if (mentions_name(e, n)) return true;
    for (const auto& n : active)
      if (mentions_name(e, n)) return true;
    return false;
  }

  // ---- adjoint arithmetic
  ExprPtr rules(Prim p, const std::string& name) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::Var;
    e->loc = loc;
    e->name.qualifiers = {p == Prim::F32 ? "ad_rules_f32" : "ad_rules_f64"};
    e->name.name = name;
    if (p != Prim::F32 && p != Prim::F64) throw Unsupported("derivatives of f16 arrays");
    // Bound in the generated closure's environment under a name of its
    // own (a program's environment need not see the prelude's modules).
    std::string h = fmt::format("__adr_{}_{}", e->name.qualifiers[0], name);
    bool have = false;
    for (const auto& [n, v] : out.helpers) have = have || n == h;
    if (!have) {
      const Binding* b = lookup_value(ev.prelude_env, e->name);
      if (!b) throw Unsupported(fmt::format("the prelude has no rule {}", e->name.str()));
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
    if (!like->type) throw Unsupported("an unused captured variable in a mapped function");
    int r = rank_of(like->type);
    if (r == 0) return g.lit(0, like->type);
    return call(rules(prim_of(like->type), fmt::format("zeros{}", r)), {like}, like->type);
  }
  void accumulate(const std::string& a, ExprPtr contrib) {
    const TypePtr& t = types.at(a);
    auto it = adj.find(a);
    if (it == adj.end()) {
      adj[a] = contrib->kind == Expr::Kind::Var ? contrib : bind(contrib, false, t);
      return;
    }
    int r = rank_of(t);
    ExprPtr sum = r == 0 ? g.bin("+", it->second, contrib, t)
                         : call(rules(prim_of(t), r == 1 ? "vadd" : fmt::format("vadd{}", r)), {it->second, contrib}, t);
    it->second = bind(sum, false, t);
  }
  // Per-row contributions `rows` to a value of type t, summed over the rows.
  ExprPtr sum_rows(const ExprPtr& rows, const TypePtr& t) {
    int r = rank_of(t);
    if (r > 2) throw Unsupported("a captured array of more than two dimensions in a mapped function");
    const char* f = r == 0 ? "sum" : r == 1 ? "sum_rows_v" : "sum_rows2";
    return call(rules(prim_of(t), f), {rows}, t);
  }

  // ---- the forward sweep
  // The function's result (the body, through lets and ascriptions) may be
  // a tuple of atoms; anywhere else a tuple stays unsupported.
  bool result_tail_ = false;

  ExprPtr norm(const ExprPtr& e) {
    const bool tail = std::exchange(result_tail_, false);
    if (literal(*e)) return e;
    if (!mentions_active(*e)) {
      if (e->kind == Expr::Kind::Var) return alias(*e);
      if (e->kind == Expr::Kind::Let) return let(*e, tail);
      return bind(e, false);
    }
    if (pure(*e)) return scalar(e);
    switch (e->kind) {
      case Expr::Kind::Var: return alias(*e);
      case Expr::Kind::Attr:
      case Expr::Kind::Ascribe: result_tail_ = tail; return norm(e->a);
      case Expr::Kind::Let: return let(*e, tail);
      case Expr::Kind::Tuple:
        if (tail) {
          auto n = std::make_shared<Expr>(*e);
          for (auto& x : n->list) x = norm(x);
          return n;
        }
        return scalar(e);
      case Expr::Kind::Apply: return apply(e);
      case Expr::Kind::Intrinsic: return intrinsic(e->text, e->list, *e);
      case Expr::Kind::Index: return index(e);
      case Expr::Kind::ArrayLit: return array_lit(e);
      default: return scalar(e);
    }
  }

  ExprPtr let(const Expr& e, bool tail) {
    const Pattern* id = e.pattern ? param_id(*e.pattern) : nullptr;
    if (!e.type_params.empty()) throw Unsupported(fmt::format("a size-binding let (at {}) in a mapped function", e.loc.str()));
    if (id) {
      ExprPtr r = norm(e.a);
      bool act = is_active(r);
      std::string a = r->kind == Expr::Kind::Var && r->name.qualifiers.empty() && types.count(r->name.name)
                          ? r->name.name
                          : bind_value(r, false, e.a->type);
      emit(e.pattern, var(a, types[a]));
      free_src.erase(id->name);
      cur[id->name] = a;
      set_active_src(id->name, act);
    } else if (e.pattern && e.pattern->kind == Pattern::Kind::Wildcard) {
      norm(e.a);
    } else {
      if (mentions_active(*e.a))
        throw Unsupported(fmt::format("a let with a pattern (at {}) binding values that carry derivatives in a mapped function", e.loc.str()));
      emit(e.pattern, e.a);
      forget_pattern(*e.pattern);
    }
    result_tail_ = tail;
    return norm(e.b);
  }

  // A scalar expression of scalars (the prelude's scalar functions, gathers
  // from arrays that carry no derivative).
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
          if (e.a->name.qualifiers.empty() && cur.count(e.a->name.name)) return false;
          // A user function (not one of the prelude's intrinsics): its
          // generated vjp is called (call_closure), the dual numbers of
          // scalar expressions do not see into it.
          if (const Value* fv = global(*e.a); fv && fv->fn->kind == Callable::Kind::Closure && !fv->fn->intrinsic_alias())
            return false;
        }
        for (const auto& x : e.list)
          if (!pure(*x)) return false;
        return true;
      }
      case Expr::Kind::Index: {
        if (!prim(e.type) || !e.a || e.a->kind != Expr::Kind::Var) return false;
        const std::string& n = e.a->name.name;
        if (e.a->name.qualifiers.empty() && (active_src.count(n) || active.count(n))) return false;
        for (const auto& ix : e.indices)
          if (ix.is_slice || !pure(*ix.index)) return false;
        return true;
      }
      default: return false;
    }
  }

  // Scalar expressions: children that are not pure are bound first; the
  // partials come from ad_lambda's dual numbers, one direction per active
  // scalar the expression names.
  ExprPtr scalar(const ExprPtr& e0) {
    ExprPtr e = e0;
    if (!pure(*e)) {
      auto n = std::make_shared<Expr>(*e);
      switch (e->kind) {
        case Expr::Kind::BinOp:
          n->a = norm(e->a);
          n->b = norm(e->b);
          break;
        case Expr::Kind::Negate: n->a = norm(e->a); break;
        case Expr::Kind::Apply:
        case Expr::Kind::Intrinsic:
          for (auto& x : n->list) x = norm(x);
          break;
        default: break;
      }
      e = n;
      if (!pure(*e) || !e->type || e->type->kind != Type::Kind::Prim)
        throw Unsupported(fmt::format("this kind of expression (at {}) in a mapped function over arrays", e0->loc.str()));
    }
    std::vector<std::string> names, targets;
    for (const auto& n : active_src)
      if (mentions_name(*e, n)) names.push_back(n);
    for (const auto& n : active)
      if (mentions_name(*e, n)) names.push_back(n);
    for (const auto& n : names) {
      if (active.count(n)) targets.push_back(n);
      else targets.push_back(alias(*named(*e, n))->name.name);
    }
    if (names.empty() || !float_type(e->type)) return bind(e, false);
    Gen d(ev, env, int(names.size()), loc);
    for (size_t k = 0; k < names.size(); ++k) {
      Tans t = d.zeros();
      t[k] = d.lit(1, types[targets[k]]);
      d.tan[names[k]] = t;
      d.locals.insert(names[k]);
    }
    Dual r = d.go(e);
    std::vector<ExprPtr> outs{r.p};
    std::vector<size_t> which;
    for (size_t k = 0; k < names.size(); ++k)
      if (r.t[k]) outs.push_back(r.t[k]), which.push_back(k);
    // The primal and the partials as separate blocks, each with only the
    // bindings it needs: the return sweep needs the partials alone, so the
    // primal (and what only it uses, an inner call's result) can be dropped.
    if (which.empty()) return bind(wrap(d.lets, r.p), false, e->type);
    std::vector<std::string> vs{bind_value(wrap(d.lets, r.p), false, e->type)};
    std::vector<ExprPtr> partials(outs.begin() + 1, outs.end());
    auto pat = std::make_shared<Pattern>();
    pat->kind = Pattern::Kind::Tuple;
    pat->loc = loc;
    for (size_t k = 0; k < partials.size(); ++k) {
      vs.push_back(fresh());
      types[vs.back()] = e->type;
      pat->elems.push_back(id_pattern(vs.back(), e->type, loc));
    }
    ExprPtr block = wrap(d.lets, tuple_of(d, partials));
    if (partials.size() == 1) emit(id_pattern(vs[1], e->type, loc), block);
    else {
      pat->type = block->type;
      emit(pat, block);
    }
    active.insert(vs[0]);
    std::vector<std::pair<std::string, std::string>> parts;  // target alias, partial
    for (size_t q = 0; q < which.size(); ++q) parts.push_back({targets[which[q]], vs[q + 1]});
    TypePtr t = e->type;
    tape.push_back({vs[0], [this, parts, t](const ExprPtr& bar) {
                      for (const auto& [target, partial] : parts)
                        accumulate(target, g.bin("*", bar, var(partial, t), t));
                    }});
    return var(vs[0], t);
  }

  // `[a, b]`: each element's adjoint is the literal's adjoint at its position.
  ExprPtr array_lit(const ExprPtr& e) {
    rank_of(e->type);  // arrays of floats only
    auto n = std::make_shared<Expr>(*e);
    bool any = false;
    for (auto& x : n->list) {
      x = norm(x);
      any = any || is_active(x);
    }
    ExprPtr r = bind(n, any, e->type);
    if (!any) return r;
    std::vector<ExprPtr> xs = n->list;
    TypePtr row = elem_type(r);
    tape.push_back({r->name.name, [this, xs, row](const ExprPtr& bar) {
                      for (size_t k = 0; k < xs.size(); ++k) {
                        if (!is_active(xs[k])) continue;
                        auto at = std::make_shared<Expr>();
                        at->kind = Expr::Kind::IntLit;
                        at->loc = loc;
                        at->int_value = k;
                        at->prim = Prim::I64;
                        at->suffix = Prim::I64;
                        at->type = prim_type(Prim::I64);
                        auto ix = std::make_shared<Expr>();
                        ix->kind = Expr::Kind::Index;
                        ix->loc = loc;
                        ix->a = bar;
                        ix->indices.push_back(IndexArg{false, at, nullptr, nullptr, nullptr});
                        ix->type = row;
                        accumulate(xs[k]->name.name, ix);
                      }
                    }});
    return r;
  }

  ExprPtr index(const ExprPtr& e) {
    if (!e->a || e->a->kind != Expr::Kind::Var || e->indices.size() != 1 || e->indices[0].is_slice)
      throw Unsupported(fmt::format("a slice or multi-dimensional index (at {}) of an array that carries a derivative", e->loc.str()));
    ExprPtr x = norm(e->a);
    ExprPtr i = norm(e->indices[0].index);
    if (rank_of(x->type) != 1) throw Unsupported("an index of a multi-dimensional array that carries a derivative");
    // The one-hot rule takes an i64 position; a literal index (`x[1]`) may
    // have been given another integer type.
    if (i->type && i->type->kind == Type::Kind::Prim && i->type->prim != Prim::I64) {
      if (i->kind != Expr::Kind::IntLit) throw Unsupported("an index that is not an i64 of an array that carries a derivative");
      auto wide = std::make_shared<Expr>(*i);
      wide->type = std::make_shared<Type>(*i->type);
      const_cast<Type&>(*wide->type).prim = Prim::I64;
      wide->prim = Prim::I64;
      wide->suffix = Prim::I64;
      i = wide;
    }
    auto n = std::make_shared<Expr>(*e);
    n->a = x;
    n->indices[0].index = i;
    ExprPtr r = bind(n, true, e->type);
    std::string xa = x->name.name;
    TypePtr xt = x->type;
    tape.push_back({r->name.name, [this, xa, xt, i](const ExprPtr& bar) {
                      accumulate(xa, call(rules(prim_of(xt), "onehot_like"), {var(xa, xt), i, bar}, xt));
                    }});
    return r;
  }

  // A function value named where the element function was written.
  const Value* global(const Expr& f) const {
    if (f.kind != Expr::Kind::Var && f.kind != Expr::Kind::OpSection) return nullptr;
    if (f.name.qualifiers.empty() && (cur.count(f.name.name) || active_src.count(f.name.name))) return nullptr;
    const Binding* b = lookup_value(env, f.name);
    if (!b || b->value.kind != Value::Kind::Function) return nullptr;
    out.lookups.push_back({f.name, b->value.fn});
    return &b->value;
  }

  // `(op)`, `(op x)`, `(x op)` of a built-in operator (one the program has
  // not redefined: built-in operators are not bound in environments).
  bool builtin_operator(const Expr& f) const {
    if (f.kind != Expr::Kind::OpSection && !(f.kind == Expr::Kind::Var && is_symbolic(f.name.name))) return false;
    if (!builtin_op_from_name(f.name.name)) return false;
    const Binding* b = lookup_value(env, f.name);
    return !b || (b->value.kind == Value::Kind::Function && b->value.fn->kind == Callable::Kind::Operator);
  }

  ExprPtr apply(const ExprPtr& e) {
    const Value* fv = e->a ? global(strip(*e->a)) : nullptr;
    if (!fv) throw Unsupported(fmt::format("a call of a local or computed function (at {}) in a mapped function", e->loc.str()));
    const Callable& c = *fv->fn;
    if (c.kind == Callable::Kind::Closure) {
      if (auto alias_name = c.intrinsic_alias()) {
        // A scalar function of scalars (`f64.sqrt x[1]`, with x active: not
        // pure, as the gather has a rule of its own) has dual-number partials.
        bool scalars = e->type && e->type->kind == Type::Kind::Prim;
        for (const auto& x : e->list) scalars = scalars && x->type && x->type->kind == Type::Kind::Prim;
        if (scalars) return scalar(e);
        return intrinsic(*alias_name, e->list, *e);
      }
      if (c.params && c.params->size() == e->list.size()) return call_closure(c, e);
    }
    throw Unsupported(fmt::format("a call of {} (at {}) in a mapped function over arrays", c.describe(), e->loc.str()));
  }

  // The generated vjp of a named function, bound under a fresh name.
  ExprPtr vjp_of(const Callable& c, const std::vector<bool>& mask) {
    std::string h = fresh();
    out.helpers.push_back({h, rev_lambda(ev, c, mask, {})});
    return var(h, nullptr);
  }

  // The outputs of a generated vjp call or map: one binding per output.
  std::vector<ExprPtr> outputs(ExprPtr r, const std::vector<TypePtr>& ts) {
    if (ts.size() == 1) return {bind(r, false, ts[0])};
    auto pat = std::make_shared<Pattern>();
    pat->kind = Pattern::Kind::Tuple;
    pat->loc = loc;
    std::vector<ExprPtr> vs;
    for (const auto& t : ts) {
      std::string n = fresh();
      types[n] = t;
      pat->elems.push_back(id_pattern(n, t, loc));
      vs.push_back(var(n, t));
    }
    emit(pat, std::move(r));
    return vs;
  }

  ExprPtr call_closure(const Callable& c, const ExprPtr& e) {
    std::vector<ExprPtr> as;
    std::vector<bool> mask;
    std::vector<std::string> targets;
    for (const auto& x : e->list) {
      as.push_back(norm(x));
      mask.push_back(is_active(as.back()));
      if (mask.back()) targets.push_back(as.back()->name.name);
    }
    auto fwd = std::make_shared<Expr>(*e);
    fwd->list = as;
    if (targets.empty()) return bind(fwd, false);
    rank_of(e->type);
    ExprPtr vf = vjp_of(c, mask);
    ExprPtr r = bind(fwd, true);
    tape.push_back({r->name.name, [this, vf, as, targets](const ExprPtr& bar) {
                      std::vector<ExprPtr> args = as;
                      args.push_back(bar);
                      std::vector<TypePtr> ts;
                      for (const auto& t : targets) ts.push_back(types[t]);
                      auto outs = outputs(call(vf, args, nullptr), ts);
                      for (size_t k = 0; k < targets.size(); ++k) accumulate(targets[k], outs[k]);
                    }});
    return r;
  }

  ExprPtr intrinsic(const std::string& name, const std::vector<ExprPtr>& args, const Expr& e) {
    if (name == "map" && args.size() >= 2) return map(args, e);
    if ((name == "reduce" || name == "reduce_comm") && args.size() == 3) {
      const Expr& op = strip(*args[0]);
      const Expr& ne = strip(*args[1]);
      bool plus = builtin_operator(op) && op.name.name == "+" && !op.a && !op.b;
      bool zero = (ne.kind == Expr::Kind::FloatLit && ne.float_value == 0) || (ne.kind == Expr::Kind::IntLit && ne.int_value == 0);
      if (!plus || !zero || mentions_active(*args[1]))
        throw Unsupported(fmt::format("a reduction (at {}) other than reduce (+) 0 in a mapped function over arrays", e.loc.str()));
      ExprPtr xs = norm(args[2]);
      if (rank_of(xs->type) != 1) throw Unsupported("a reduction over rows in a mapped function");
      ExprPtr r = bind(g.intr(name.c_str(), {args[0], args[1], xs}, e.type), is_active(xs), e.type);
      if (!is_active(xs)) return r;
      std::string xa = xs->name.name;
      TypePtr xt = xs->type;
      // The broadcast's length from an array as long as xs that the
      // return sweep keeps anyway (the input of the map that made xs), so
      // the map itself can be dropped when nothing else needs it.
      std::string like = xa;
      for (auto it = same_length.find(like); it != same_length.end(); it = same_length.find(like)) like = it->second;
      TypePtr lt = types.count(like) ? types[like] : xt;
      tape.push_back({r->name.name, [this, xa, xt, like, lt](const ExprPtr& bar) {
                        accumulate(xa, call(rules(prim_of(xt), "bcast"), {var(like, lt), bar}, xt));
                      }});
      return r;
    }
    if (name == "transpose" && args.size() == 1) {
      ExprPtr xs = norm(args[0]);
      ExprPtr r = bind(g.intr("transpose", {xs}, e.type), is_active(xs), e.type);
      if (!is_active(xs)) return r;
      std::string xa = xs->name.name;
      TypePtr xt = xs->type;
      tape.push_back({r->name.name, [this, xa, xt](const ExprPtr& bar) {
                        accumulate(xa, g.intr("transpose", {bar}, xt));
                      }});
      return r;
    }
    throw Unsupported(fmt::format("{} (at {}) in a mapped function over arrays", name, e.loc.str()));
  }

  // `(op)`, `(op x)`, `(x op)` as a lambda over scalars of type t.
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
      lam->params = {id_pattern(b, tb, loc)};
      op->a = f.a, op->b = var(b, tb);
      op->type = tb;
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

  ExprPtr map(const std::vector<ExprPtr>& args, const Expr& e) {
    std::vector<ExprPtr> as;
    for (size_t j = 1; j < args.size(); ++j) as.push_back(norm(args[j]));
    ExprPtr fexpr = args[0];
    const Expr& f = strip(*fexpr);
    ExprPtr lam;
    const Callable* callee = nullptr;
    std::vector<ExprPtr> lead;
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
        for (const auto& x : f.list) lead.push_back(norm(x));
      }
    }
    if (!lam && !callee) throw Unsupported(fmt::format("mapping this kind of function (at {}) over arrays", f.loc.str()));
    // What carries a derivative: leading arguments, mapped arrays, captures.
    std::vector<bool> mask;
    std::vector<std::string> targets;  // alias each output accumulates into
    std::vector<bool> summed;          // whether that output is summed over the rows
    for (const auto& x : lead) {
      mask.push_back(is_active(x));
      if (mask.back()) targets.push_back(x->name.name), summed.push_back(true);
    }
    for (const auto& x : as) {
      mask.push_back(is_active(x));
      if (mask.back()) targets.push_back(x->name.name), summed.push_back(false);
    }
    std::vector<std::string> free;
    if (lam) {
      std::set<std::string> bound;
      for (const auto& p : lam->params)
        if (const Pattern* id = param_id(*p)) bound.insert(id->name);
      auto consider = [&](const std::string& n) {
        if (bound.count(n) || !mentions_name(*lam->a, n)) return;
        for (const auto& x : free)
          if (x == n) return;
        free.push_back(n);
      };
      for (const auto& n : active_src) consider(n);
      for (const auto& n : active) consider(n);
      for (const auto& n : free) {
        std::string a = active.count(n) ? n : alias(*named(*lam->a, n))->name.name;
        targets.push_back(a), summed.push_back(true);
      }
    }
    std::vector<ExprPtr> fl{fexpr};
    for (const auto& x : as) fl.push_back(x);
    ExprPtr fwd = g.intr("map", fl, e.type);
    if (targets.empty()) return bind(fwd, false);
    rank_of(e.type);
    // The element vjp, bound where the function was written (its free
    // variables mean what they meant there).
    ExprPtr vf;
    if (lam) {
      if (!lam->type_params.empty()) throw Unsupported("a mapped lambda with size parameters");
      Rev sub(ev, env, loc, out);
      auto vl = std::make_shared<Expr>();
      vl->kind = Expr::Kind::Lambda;
      vl->loc = loc;
      std::vector<bool> pm(mask.begin() + long(lead.size()), mask.end());
      vl->a = sub.function(lam->params, lam->a, pm, free, vl->params);
      vl->type = fexpr->type;
      vf = bind(vl, false, fexpr->type);
    } else {
      ExprPtr h = vjp_of(*callee, mask);
      vf = lead.empty() ? h : bind(call(h, lead, nullptr), false, nullptr);
    }
    ExprPtr r = bind(fwd, true);
    if (!as.empty() && as[0]->kind == Expr::Kind::Var) same_length[r->name.name] = as[0]->name.name;
    std::vector<TypePtr> ts;
    for (size_t k = 0; k < targets.size(); ++k) ts.push_back(summed[k] ? rows_of(types[targets[k]]) : types[targets[k]]);
    tape.push_back({r->name.name, [this, vf, as, targets, summed, ts](const ExprPtr& bar) {
                      std::vector<ExprPtr> margs{vf};
                      for (const auto& x : as) margs.push_back(x);
                      margs.push_back(bar);
                      ExprPtr m = g.intr("map", margs, ts.size() == 1 ? ts[0] : nullptr);
                      std::vector<ExprPtr> outs;
                      if (ts.size() == 1) {
                        outs = {bind(m, false, ts[0])};
                      } else {
                        ExprPtr rows = bind(m, false, nullptr);
                        outs = outputs(g.intr("unzip", {rows}, nullptr), ts);
                      }
                      for (size_t k = 0; k < targets.size(); ++k)
                        accumulate(targets[k], summed[k] ? sum_rows(outs[k], types[targets[k]]) : outs[k]);
                    }});
    return r;
  }
};

}  // namespace

std::shared_ptr<Generated> make_rev(Evaluator& ev, const Callable& f, const std::vector<bool>& active,
                                    const std::vector<std::string>& free_active) {
  auto g2 = std::make_shared<Generated2>();
  g2->source = f.keep;
  Rev r(ev, f.env, f.loc, *g2);
  ExprPtr body = body_ptr(f);
  g2->body = r.function(*f.params, body, active, free_active, g2->params);
  auto gen = std::make_shared<Generated>();
  gen->params = g2->params;
  gen->body = g2->body;
  gen->source = std::shared_ptr<const void>(g2, g2.get());
  return gen;
}

Value rev_lambda(Evaluator& ev, const Callable& f, const std::vector<bool>& active,
                 const std::vector<std::string>& free_active, const std::string& env_key) {
  if (f.kind != Callable::Kind::Closure || !f.params || !f.body) throw Unsupported("a mapped function that is not a closure");
  if (active.size() != f.params->size()) throw Unsupported("a mapped function applied to other than its parameters");
  if (rev_depth > 32) throw Unsupported("recursion in a mapped function");
  ++rev_depth;
  struct Leave {
    ~Leave() { --rev_depth; }
  } leave;
  std::string key = variant_key("rev", f, active, {}, false);
  for (const auto& n : free_active) key += "|" + n;
  key += "|env:" + env_key;
  // The generated code is kept for good (memoised, as ad_lambda's: plan
  // caches name AST by address).
  // Memoised (as ad_lambda's memoised(), whose lock is not re-entrant:
  // generating a vjp generates those of the functions it calls).
  static std::recursive_mutex mu;
  // One key may have several variants: the same code generated against
  // different functions of its environment (Generated2::lookups). None is
  // ever dropped.
  static std::map<std::string, std::vector<std::pair<std::vector<PatternPtr>, std::shared_ptr<Generated>>>> memo;
  std::lock_guard<std::recursive_mutex> lock(mu);
  std::shared_ptr<Generated> gen;
  auto& variants = memo[key];
  for (const auto& [params, g] : variants)
    if (params == *f.params && same_functions(std::static_pointer_cast<const Generated2>(g->source)->lookups, f.env))
      gen = g;
  if (!gen) {
    gen = make_rev(ev, f, active, free_active);
    variants.push_back({*f.params, gen});
  }

  auto g2 = std::static_pointer_cast<const Generated2>(gen->source);
  auto c = std::make_shared<Callable>();
  c->kind = Callable::Kind::Closure;
  c->loc = f.loc;
  c->params = &gen->params;
  c->body = gen->body.get();
  c->type_params = f.type_params;
  c->tenv = f.tenv;
  c->keep = gen;
  std::vector<std::pair<std::string, Binding>> frame;
  for (const auto& [n, v] : g2->helpers) {
    Binding b;
    b.value = v;
    frame.push_back({n, b});
  }
  c->env = frame.empty() ? f.env : extend(f.env, std::move(frame));
  return Value::function(c);
}

}  // namespace thorn::eval::ad
