// The array-level AD's walk over the differentiated function (ad_sweep.hpp):
// expressions, bindings, calls, and the jvp2/vjp2 entry points.
#include "interp/eval/ad_sweep.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "interp/eval/ad_sweep_impl.hpp"
#include "interp/eval/value_ops.hpp"
#include "interp/exec/host_backend.hpp"
#include "interp/util/error.hpp"

namespace thorn::eval::ad {

bool AV::active() const {
  if (is_tuple) {
    for (const auto& p : parts)
      if (p.active()) return true;
    return false;
  }
  return id >= 0 || dot.has_value() || captures;
}

namespace {

using Frame = std::vector<std::pair<std::string, Binding>>;

// Whether values of this type can carry a derivative (floats somewhere in
// it, or a type only known at run time).
bool differentiable_type(const TypePtr& t) {
  // A function is not: a closure's free variables are looked at where it is mapped.
  return !t || any_part(t, [](const Type& x) {
           return (x.kind == Type::Kind::Prim && is_float(x.prim)) || x.kind == Type::Kind::Sum ||
                  x.kind == Type::Kind::Param;
         });
}

bool mentions_active(const Expr& e, const Scope& s) {
  for (const auto& [name, av] : s.active)
    if (mentions_name(e, name)) return true;
  return false;
}

Value primal_of(const AV& a) {
  if (!a.is_tuple) return a.v;
  std::vector<Value> elems;
  for (const auto& p : a.parts) elems.push_back(primal_of(p));
  return Value::tuple(std::move(elems));
}

}  // namespace

int Sweep::new_node(std::function<void(const Value&)> back) {
  nodes.push_back(Node{std::move(back)});
  adj.emplace_back();
  return int(nodes.size()) - 1;
}

void Sweep::accumulate(int id, const Value& contribution) {
  if (id < 0) return;
  auto& a = adj[size_t(id)];
  a = a ? add_values(*a, contribution) : contribution;
}

void Sweep::run_backward(int keep_below, bool last) {
  // Every node comes after its operands, so its adjoint is complete when
  // reached; it is dropped once propagated (memory: one adjoint per live
  // value, as the primal).
  for (int i = int(nodes.size()) - 1; i >= 0; --i) {
    if (adj[size_t(i)] && nodes[size_t(i)].back) nodes[size_t(i)].back(*adj[size_t(i)]);
    if (last) nodes[size_t(i)].back = nullptr;
    if (i >= keep_below) adj[size_t(i)].reset();
  }
}

void Sweep::bind(const Pattern& p, const AV& v, Scope& s, Frame& frame) {
  switch (p.kind) {
    case Pattern::Kind::Id: {
      Binding b;
      b.value = primal_of(v);
      frame.push_back({p.name, b});
      if (v.active()) s.active[p.name] = v;
      else s.active.erase(p.name);
      return;
    }
    case Pattern::Kind::Wildcard: return;
    case Pattern::Kind::Ascribed: bind(*p.inner, v, s, frame); return;
    case Pattern::Kind::Tuple: {
      if (v.is_tuple && v.parts.size() == p.elems.size()) {
        for (size_t k = 0; k < p.elems.size(); ++k) bind(*p.elems[k], v.parts[k], s, frame);
        return;
      }
      if (!v.active() && v.v.kind == Value::Kind::Tuple && v.v.elems->size() == p.elems.size()) {
        for (size_t k = 0; k < p.elems.size(); ++k) bind(*p.elems[k], constant((*v.v.elems)[k]), s, frame);
        return;
      }
      break;
    }
    default: break;
  }
  throw Unsupported(fmt::format("a pattern of this kind (at {}) binding a value that carries a derivative", p.loc.str()));
}

AV Sweep::eval(const ExprPtr& e, Scope& s) {
  Ctx ctx{s.env, s.tenv};
  // Whatever does not depend on the input, and whatever cannot carry a
  // derivative (integers, booleans, functions), is the primal evaluation:
  // active names are bound to their primal values in s.env.
  if (!mentions_active(*e, s)) return constant(ev.eval(*e, ctx));
  if (e->type && e->type->kind == Type::Kind::Function) {
    if (e->kind == Expr::Kind::Var && e->name.qualifiers.empty())  // a section bound by a let
      if (auto it = s.active.find(e->name.name); it != s.active.end() && it->second.section_operand) return it->second;
    AV f = constant(ev.eval(*e, ctx));
    f.captures = true;
    if (e->kind == Expr::Kind::Apply) {
      auto pa = std::make_shared<std::vector<AV>>();
      for (const auto& x : e->list) pa->push_back(eval(x, s));
      f.partial_args = pa;
    }
    if (e->kind == Expr::Kind::OpSection && (e->a == nullptr) != (e->b == nullptr)) {
      AV operand = eval(e->a ? e->a : e->b, s);
      if (!operand.is_tuple && operand.v.kind == Value::Kind::Scalar) f.section_operand = std::make_shared<AV>(operand);
    }
    return f;
  }
  if (!differentiable_type(e->type)) return constant(ev.eval(*e, ctx));
  switch (e->kind) {
    case Expr::Kind::Var: {
      if (e->name.qualifiers.empty())
        if (auto it = s.active.find(e->name.name); it != s.active.end()) return it->second;
      return constant(ev.eval(*e, ctx));
    }
    case Expr::Kind::Attr:
    case Expr::Kind::Ascribe:
    case Expr::Kind::Coerce: return eval(e->a, s);
    case Expr::Kind::Let: {
      AV v = eval(e->a, s);
      Frame frame;
      Scope inner = s;
      if (!v.active()) {
        // Evaluator's own binding: size parameters, every pattern kind.
        Evaluator::SizeScope sizes;
        sizes.frame = &frame;
        for (const auto& tp : e->type_params)
          if (tp.is_size) sizes.to_bind.push_back(tp.name);
        ev.bind_pattern(*e->pattern, v.v, frame, &sizes, ctx);
        for (const auto& [name, b] : frame) inner.active.erase(name);
      } else {
        if (!e->type_params.empty()) throw Unsupported(fmt::format("a let with size parameters (at {})", e->loc.str()));
        bind(*e->pattern, v, inner, frame);
      }
      inner.env = extend(s.env, std::move(frame));
      return eval(e->b, inner);
    }
    case Expr::Kind::If: {
      Value c = ev.eval(*e->a, ctx);
      return eval(c.scalar.b ? e->b : e->c, s);
    }
    case Expr::Kind::Tuple: {
      AV r;
      r.is_tuple = true;
      for (const auto& x : e->list) r.parts.push_back(eval(x, s));
      r.v = primal_of(r);
      return r;
    }
    case Expr::Kind::Project: {
      AV t = eval(e->a, s);
      if (t.is_tuple && e->field_path.size() == 1) {
        const std::string& f = e->field_path[0];
        size_t k = f.empty() || f.find_first_not_of("0123456789") != std::string::npos ? t.parts.size() : std::stoul(f);
        if (k < t.parts.size()) return t.parts[k];
      }
      break;
    }
    case Expr::Kind::Apply: {
      if (mentions_active(*e->a, s)) break;
      Value fn = ev.eval(*e->a, ctx);
      std::vector<AV> args;
      for (const auto& x : e->list) args.push_back(eval(x, s));
      return call(fn, std::move(args), s, e->loc);
    }
    case Expr::Kind::BinOp: {
      const Binding* b = lookup_value(s.env, e->name);
      if (b && !(b->value.kind == Value::Kind::Function && b->value.fn->kind == Callable::Kind::Operator)) {
        std::vector<AV> args{eval(e->a, s), eval(e->b, s)};
        return call(b->value, std::move(args), s, e->loc);
      }
      std::vector<AV> args{eval(e->a, s), eval(e->b, s)};
      Value y = ev.eval(*e, ctx);  // the primal, from the bound primal values
      return scalar_rule(e->name.name, y, args);
    }
    case Expr::Kind::Negate: {
      std::vector<AV> args{eval(e->a, s)};
      return scalar_rule("neg", ev.eval(*e, ctx), args);
    }
    case Expr::Kind::Loop: return loop(e, s);
    case Expr::Kind::ArrayLit: {
      // Linear in its elements: the tangent is the literal of the elements'
      // tangents; the adjoint's rows are the elements' adjoints.
      if (e->list.empty()) break;
      std::vector<AV> xs;
      for (const auto& x : e->list) {
        xs.push_back(eval(x, s));
        if (xs.back().is_tuple || xs.back().captures) throw Unsupported(fmt::format("an array literal of tuples (at {}) carrying derivatives", e->loc.str()));
      }
      std::vector<Value> ps;
      for (const auto& x : xs) ps.push_back(x.v);
      AV r = constant(array_from_rows(ps));
      if (reverse) {
        std::vector<int> ids;
        for (const auto& x : xs) ids.push_back(x.id);
        r.id = new_node([this, ids](const Value& ybar) {
          for (size_t k = 0; k < ids.size(); ++k) {
            if (ids[k] < 0) continue;
            IndexValue iv;
            iv.index = int64_t(k);
            accumulate(ids[k], index_array(*ybar.array, {iv}));
          }
        });
        return r;
      }
      std::vector<Value> ts;
      for (const auto& x : xs) ts.push_back(x.dot ? *x.dot : zeros_like(x.v));
      r.dot = array_from_rows(ts);
      return r;
    }
    case Expr::Kind::Index: {
      AV xs = eval(e->a, s);
      if (e->indices.size() == 1 && !e->indices[0].is_slice && !mentions_active(*e->indices[0].index, s)) {
        Value i = ev.eval(*e->indices[0].index, ctx);
        return index_rule(xs, i.scalar.as_i64(), ev.eval(*e, ctx));
      }
      break;
    }
    default: break;
  }
  throw Unsupported(fmt::format("this kind of expression (at {}) depending on the differentiated input", e->loc.str()));
}

// A loop is run iteration by iteration, each iteration's body walked like
// straight-line code: the array-level tape records every iteration's
// operations, so the loop-carried values each one needs are kept (Futhark's
// default; no checkpointing of long loops yet).
AV Sweep::loop(const ExprPtr& e, Scope& s) {
  if (!e->type_params.empty() || !e->a || e->params.empty())
    throw Unsupported(fmt::format("a loop of this form (at {})", e->loc.str()));
  const Pattern& pat = *e->params[0];
  AV acc = eval(e->a, s);
  Ctx ctx{s.env, s.tenv};
  // The body's scope: the loop's variables (and the loop index or element).
  auto scope_for = [&](Frame extra, Scope& inner) {
    inner = s;
    for (const auto& [name, b] : extra) inner.active.erase(name);
    bind(pat, acc, inner, extra);
    inner.env = extend(s.env, std::move(extra));
  };
  switch (e->loop_form) {
    case Expr::LoopForm::For: {
      Value bound = ev.eval(*e->c, ctx);
      int64_t n = bound.scalar.as_i64();
      for (int64_t i = 0; i < n; ++i) {
        check_interrupt(e->loc);
        Binding b;
        b.value = Value(Scalar::signed_int(bound.scalar.type, i));
        Scope inner;
        scope_for({{e->loop_var, b}}, inner);
        acc = eval(e->b, inner);
      }
      return acc;
    }
    case Expr::LoopForm::While: {
      for (;;) {
        check_interrupt(e->loc);
        Scope inner;
        scope_for({}, inner);
        if (!ev.eval(*e->c, Ctx{inner.env, inner.tenv}).scalar.b) return acc;
        acc = eval(e->b, inner);
      }
    }
    case Expr::LoopForm::ForIn: {
      if (mentions_active(*e->c, s)) throw Unsupported(fmt::format("a for-in loop over an array that carries a derivative (at {})", e->loc.str()));
      Value xs = ev.eval(*e->c, ctx);
      int64_t n = xs.array->shape.at(0);
      for (int64_t k = 0; k < n; ++k) {
        check_interrupt(e->loc);
        IndexValue iv;
        iv.index = k;
        Frame elem;
        Evaluator::SizeScope sizes;
        sizes.frame = &elem;
        ev.bind_pattern(*e->pattern, index_array(*xs.array, {iv}), elem, &sizes, ctx);
        Scope inner;
        scope_for(std::move(elem), inner);
        acc = eval(e->b, inner);
      }
      return acc;
    }
  }
  return acc;
}

AV Sweep::call(const Value& fn, std::vector<AV> args, Scope& s, const Loc& at) {
  bool any = false;
  for (const auto& a : args) any = any || a.active();
  if (!any) {
    std::vector<Value> vs;
    for (const auto& a : args) vs.push_back(primal_of(a));
    return constant(ev.apply(fn, std::move(vs), at));
  }
  if (fn.kind != Value::Kind::Function) throw Unsupported("applying a value that is not a function");
  const Callable& c = *fn.fn;
  switch (c.kind) {
    case Callable::Kind::Partial: {
      std::vector<AV> all;
      for (const auto& a : c.args) all.push_back(constant(a));
      for (auto& a : args) all.push_back(std::move(a));
      return call(Value::function(c.fn), std::move(all), s, at);
    }
    case Callable::Kind::Operator: {
      if (args.size() != 2) break;
      Value y = ev.apply(fn, {primal_of(args[0]), primal_of(args[1])}, at);
      return scalar_rule(c.name, y, args);
    }
    case Callable::Kind::Closure: {
      size_t n = c.params ? c.params->size() : 0;
      if (args.size() != n)
        throw Unsupported(fmt::format("{} applied to {} arguments of {} with a derivative", c.describe(), args.size(), n));
      if (auto alias = c.intrinsic_alias()) return intrinsic_rule(*alias, fn, args, s, at);
      // Inline the function: its body is differentiated in its own scope.
      if (++inline_depth > 64) throw Unsupported("recursion");
      struct Depth {
        int& d;
        ~Depth() { --d; }
      } depth{inline_depth};
      Frame frame;
      Evaluator::SizeScope sizes;
      sizes.frame = &frame;
      if (c.type_params)
        for (const auto& tp : *c.type_params)
          if (tp.is_size) sizes.to_bind.push_back(tp.name);
      if (auto self = c.self.lock()) {
        Binding b;
        b.value = Value::function(self);
        frame.push_back({c.name, b});
      }
      Ctx cctx{c.env, c.tenv};
      Scope inner{c.env, c.tenv, {}, &s};
      for (size_t k = 0; k < n; ++k) {
        Frame pf;
        ev.bind_pattern(*(*c.params)[k], primal_of(args[k]), pf, &sizes, cctx);
        Frame ignored;
        if (args[k].active()) bind(*(*c.params)[k], args[k], inner, ignored);
        for (auto& b : pf) frame.push_back(std::move(b));
      }
      inner.env = extend(c.env, std::move(frame));
      ExprPtr body(std::shared_ptr<Expr>{}, const_cast<Expr*>(c.body));
      return eval(body, inner);
    }
    default: break;
  }
  throw Unsupported(fmt::format("a call of {} with an argument that carries a derivative", c.describe()));
}

namespace {

void log_fallback(Evaluator& ev, const char* what, const Loc& loc, const std::string& why) {
  std::string text = fmt::format("{} at {}: runs on the reference tape: {}\n", what, loc.str(), why);
  if (ev.on_plan) ev.on_plan(text);
  else if (exec::host_backend::log_plans()) std::fprintf(stderr, "%s", text.c_str());
}

// The input as values of the walk: one per tuple component (one level), so
// a function of a pair gets one adjoint/tangent per component.
template <class Make>
AV input_of(const Value& x, Make make) {
  if (x.kind == Value::Kind::Tuple) {
    AV r;
    r.is_tuple = true;
    for (size_t k = 0; k < x.elems->size(); ++k) r.parts.push_back(make((*x.elems)[k], k));
    r.v = x;
    return r;
  }
  return make(x, size_t(-1));
}

// Calls the function being differentiated on the walk's input.
AV run_function(Sweep& sw, const Value& f, AV input, const Loc& loc) {
  if (f.kind != Value::Kind::Function) throw Unsupported("differentiating a value that is not a function");
  Scope top;
  return sw.call(f, {std::move(input)}, top, loc);
}

// Floats, arrays of floats (or of tuples of floats) and tuples of those, without AD values of an
// enclosing jvp/vjp. (Integers carry derivatives in Futhark, and wrap; the
// walk treats integer values as constants, so such inputs go to the tape.)
bool plain(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Array:
      // Arrays of tuples of floats too (struct of arrays: one per component).
      if (v.array->elem.kind == ElemShape::Kind::Tuple) {
        for (const auto& c : v.array->components)
          if (!plain(Value::make_array(c))) return false;
        return true;
      }
      return v.array->elem.kind == ElemShape::Kind::Prim && is_float(v.array->elem.prim);
    case Value::Kind::Tuple:
      for (const auto& e : *v.elems)
        if (!plain(e)) return false;
      return true;
    case Value::Kind::Scalar: return is_float(v.scalar.type);
    default: return false;
  }
}

}  // namespace

std::optional<Value> sweep_jvp2(Evaluator& ev, const Value& f, const Value& x, const Value& x_tangent,
                                const Loc& loc, std::string& why) {
  try {
    if (!plain(x) || !plain(x_tangent)) throw Unsupported("an input that is not made of floats (integers, records, sums, nested jvp/vjp values)");
    Sweep sw(ev, false, loc);
    AV input = input_of(x, [&](const Value& v, size_t k) {
      return sw.dual(v, k == size_t(-1) ? x_tangent : (*x_tangent.elems)[k]);
    });
    AV y = run_function(sw, f, std::move(input), loc);
    if (!plain(primal_of(y))) throw Unsupported("a result that is not made of floats (integers carry derivatives in Futhark)");
    auto tangent = [&](const AV& a) { return a.dot ? *a.dot : sw.zeros_like(a.v); };
    Value ydot;
    if (y.is_tuple) {
      std::vector<Value> ts;
      for (const auto& p : y.parts) {
        if (p.is_tuple) throw Unsupported("a result of nested tuples");
        ts.push_back(tangent(p));
      }
      ydot = Value::tuple(std::move(ts));
    } else {
      ydot = tangent(y);
    }
    return Value::tuple({primal_of(y), ydot});
  } catch (const Unsupported& u) {
    why = u.what();
    log_fallback(ev, "jvp", loc, why);
    return std::nullopt;
  }
}

std::optional<std::pair<Value, std::vector<Value>>> sweep_mjp2(Evaluator& ev, const Value& f, const Value& x,
                                                               const std::vector<Value>& y_adjoints,
                                                               const Loc& loc, std::string& why) {
  try {
    if (!plain(x)) throw Unsupported("an input that is not made of floats (integers, records, sums, nested jvp/vjp values)");
    for (const auto& s : y_adjoints)
      if (!plain(s)) throw Unsupported("an adjoint that is not made of floats");
    Sweep sw(ev, true, loc);
    std::vector<int> inputs;
    AV input = input_of(x, [&](const Value& v, size_t) {
      AV a = sw.constant(v);
      a.id = sw.new_node(nullptr);
      inputs.push_back(a.id);
      return a;
    });
    AV y = run_function(sw, f, std::move(input), loc);
    if (!plain(primal_of(y))) throw Unsupported("a result that is not made of floats (integers carry derivatives in Futhark)");
    std::vector<Value> xbars;
    for (size_t s = 0; s < y_adjoints.size(); ++s) {
      const Value& y_adjoint = y_adjoints[s];
      for (auto& a : sw.adj) a.reset();
      // Seed the result's adjoint.
      if (y.is_tuple) {
        if (y_adjoint.kind != Value::Kind::Tuple || y_adjoint.elems->size() != y.parts.size())
          throw Unsupported("an adjoint that does not match the result's structure");
        for (size_t k = 0; k < y.parts.size(); ++k) {
          if (y.parts[k].is_tuple) throw Unsupported("a result of nested tuples");
          sw.accumulate(y.parts[k].id, (*y_adjoint.elems)[k]);
        }
      } else {
        sw.accumulate(y.id, y_adjoint);
      }
      sw.run_backward(int(inputs.size()), s + 1 == y_adjoints.size());
      auto adjoint = [&](size_t k, const Value& v) {
        const auto& a = sw.adj[size_t(inputs[k])];
        return a ? *a : sw.zeros_like(v);
      };
      if (x.kind == Value::Kind::Tuple) {
        std::vector<Value> parts;
        for (size_t k = 0; k < x.elems->size(); ++k) parts.push_back(adjoint(k, (*x.elems)[k]));
        xbars.push_back(Value::tuple(std::move(parts)));
      } else {
        xbars.push_back(adjoint(0, x));
      }
    }
    return std::make_pair(primal_of(y), std::move(xbars));
  } catch (const Unsupported& u) {
    why = u.what();
    log_fallback(ev, "vjp", loc, why);
    return std::nullopt;
  }
}

std::optional<Value> sweep_vjp2(Evaluator& ev, const Value& f, const Value& x, const Value& y_adjoint,
                                const Loc& loc, std::string& why) {
  auto r = sweep_mjp2(ev, f, x, {y_adjoint}, loc, why);
  if (!r) return std::nullopt;
  return Value::tuple({r->first, r->second[0]});
}

}  // namespace thorn::eval::ad
