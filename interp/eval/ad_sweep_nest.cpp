// The map rule for element functions over arrays (notes-ad.md §2, Futhark's
// map rule): `map f xs` whose f takes rows, builds arrays or contains SOACs,
// or is a partial application of a named function to values that carry
// derivatives (`map (matvec m) xss`). The adjoint is a map of f's generated
// vjp (ad_rev.hpp) over the rows and the result's adjoint rows; what f
// captures or is partially applied to gets its per-row contributions summed
// over the rows (a column sum for a captured array).
#include <fmt/format.h>

#include <functional>

#include "interp/eval/ad_fwd.hpp"
#include "interp/eval/ad_rev.hpp"
#include "interp/eval/ad_sweep_impl.hpp"

namespace thorn::eval::ad {

namespace {

Value row_component(const Value& v, size_t k) {
  if (v.kind != Value::Kind::Array || v.array->components.size() <= k)
    throw Unsupported("a map result of an unexpected structure");
  return Value::make_array(v.array->components[k]);
}

size_t rank_of_value(const Value& v) {
  if (v.kind == Value::Kind::Scalar) return 0;
  if (v.kind == Value::Kind::Array && v.array->elem.kind == ElemShape::Kind::Prim) return v.array->shape.size();
  throw Unsupported("a value that carries a derivative and is not a float or an array of floats");
}

Prim prim_of_value(const Value& v) {
  Prim p = v.kind == Value::Kind::Scalar ? v.scalar.type : v.array->elem.prim;
  if (p != Prim::F32 && p != Prim::F64) throw Unsupported("derivatives of other than f32 and f64 values");
  return p;
}

}  // namespace

bool needs_rev(const Callable& f) {
  if (f.kind != Callable::Kind::Closure || !f.params || !f.body) return false;
  std::function<bool(const Pattern&)> scalar_pat = [&](const Pattern& p) {
    if (p.kind == Pattern::Kind::Ascribed && p.inner) return scalar_pat(*p.inner);
    if (p.kind == Pattern::Kind::Tuple) {
      for (const auto& e : p.elems)
        if (!scalar_pat(*e)) return false;
      return true;
    }
    return !p.type || p.type->kind == Type::Kind::Prim || p.kind == Pattern::Kind::Wildcard;
  };
  for (const auto& p : *f.params)
    if (!scalar_pat(*p)) return true;
  if (f.body->type && f.body->type->kind == Type::Kind::Array) return true;
  // Array work in the body: a subexpression of array type other than the
  // array of a gather `a[i]` (which the scalar transformation covers).
  std::function<bool(const Expr&)> arrays = [&](const Expr& e) {
    if (e.type && e.type->kind == Type::Kind::Array && e.kind != Expr::Kind::Var) return true;
    if (e.kind == Expr::Kind::Lambda) return true;
    auto sub = [&](const ExprPtr& x) { return x && arrays(*x); };
    if (e.kind != Expr::Kind::Index && sub(e.a)) return true;
    if (sub(e.b) || sub(e.c)) return true;
    for (const auto& x : e.list)
      if (sub(x)) return true;
    for (const auto& ix : e.indices)
      if (sub(ix.index)) return true;
    return false;
  };
  return arrays(*f.body);
}

AV Sweep::nested_map_rule(const Value& fn, std::vector<AV>& args, Scope& s, const Loc& at) {
  const Value& f = args[0].v;
  size_t k = args.size() - 1;
  CallablePtr c;
  std::vector<AV> lead;
  if (f.fn->kind == Callable::Kind::Closure) {
    c = f.fn;
  } else {
    c = f.fn->fn;
    if (args[0].partial_args && args[0].partial_args->size() == f.fn->args.size()) lead = *args[0].partial_args;
    else if (args[0].captures)  // which arguments carry derivatives is not known
      throw Unsupported("mapping a partial application over values that carry derivatives");
    else
      for (const auto& a : f.fn->args) lead.push_back(constant(a));
  }
  if (!c->params || c->params->size() != lead.size() + k)
    throw Unsupported("mapping a function whose parameters do not match the arrays");
  std::vector<bool> mask;
  std::vector<Value> arrays;
  for (const auto& a : lead) {
    if (a.is_tuple) throw Unsupported("a partial application to a tuple that carries a derivative");
    mask.push_back(a.active());
  }
  for (size_t j = 0; j < k; ++j) {
    const AV& a = args[j + 1];
    if (a.is_tuple || (a.v.kind == Value::Kind::Array && a.v.array->elem.kind == ElemShape::Kind::Tuple))
      throw Unsupported("mapping a function over arrays over a tuple of arrays");
    mask.push_back(a.active());
    arrays.push_back(a.v);
  }
  // Free variables of the element function that carry a derivative, found
  // in the scopes around the call by their binding's identity.
  std::vector<std::string> free;
  std::vector<AV> free_avs;
  for (const Scope* sc = &s; sc; sc = sc->parent)
    for (const auto& [name, av] : sc->active) {
      if (!mentions_name(*c->body, name)) continue;
      bool seen = false;
      for (const auto& n : free) seen = seen || n == name;
      const Binding* here = lookup_value(c->env, name);
      if (seen || !here || here != lookup_value(sc->env, name)) continue;
      if (av.is_tuple) throw Unsupported(fmt::format("a mapped function using {}, a tuple that carries a derivative", name));
      // A captured function over active values (tabulate's f): its body
      // would be differentiated as a constant function.
      if (av.v.kind != Value::Kind::Scalar && av.v.kind != Value::Kind::Array)
        throw Unsupported(fmt::format("a mapped function using {}, a function over values that carry derivatives", name));
      free.push_back(name);
      free_avs.push_back(av);
    }
  std::vector<Value> primal{f};
  for (auto& a : arrays) primal.push_back(a);
  bool any = !free.empty();
  for (bool m : mask) any = any || m;
  if (!any) return constant(ev.apply(fn, primal, at));
  if (!reverse) {
    // Forward mode: the primal by the original map, the tangent by a map of
    // f's generated tangent function over the rows and the active rows'
    // tangents, partially applied to the captures' tangents (whole) and the
    // leading arguments with their tangents.
    Value tf = fwd_lambda(ev, *c, mask, free, lead.size());
    std::vector<Value> pargs;
    for (const auto& a : free_avs) pargs.push_back(a.dot ? *a.dot : zeros_like(a.v));
    for (const auto& a : lead) pargs.push_back(a.v);
    for (const auto& a : lead)
      if (a.active()) pargs.push_back(a.dot ? *a.dot : zeros_like(a.v));
    if (!pargs.empty()) {
      auto p = std::make_shared<Callable>();
      p->kind = Callable::Kind::Partial;
      p->loc = c->loc;
      p->fn = tf.fn;
      p->args = std::move(pargs);
      tf = Value::function(p);
    }
    std::vector<Value> targs{tf};
    for (auto& a : arrays) targs.push_back(a);
    for (size_t j = 0; j < k; ++j)
      if (args[j + 1].active()) targs.push_back(args[j + 1].dot ? *args[j + 1].dot : zeros_like(args[j + 1].v));
    Value mapper = map_of(targs.size() - 1);
    Value ydot = apply(mapper, std::move(targs));
    return dual(ev.apply(fn, primal, at), std::move(ydot));
  }
  // Generated before anything runs, so an unsupported function falls back.
  Value vf = rev_lambda(ev, *c, mask, free);
  if (!lead.empty()) {
    auto p = std::make_shared<Callable>();
    p->kind = Callable::Kind::Partial;
    p->loc = c->loc;
    p->fn = vf.fn;
    for (const auto& a : lead) p->args.push_back(a.v);
    vf = Value::function(p);
  }
  // Each output of the vjp: the node it goes to and whether it is summed
  // over the rows (leading arguments and captures are the same in every row).
  struct Out {
    int id;
    bool summed;
    size_t rank;
    Prim p;
  };
  std::vector<Out> outs;
  for (const auto& a : lead)
    if (a.active()) outs.push_back({a.id, true, rank_of_value(a.v), prim_of_value(a.v)});
  for (size_t j = 0; j < k; ++j)
    if (args[j + 1].active()) outs.push_back({args[j + 1].id, false, 0, Prim::F64});
  for (const auto& a : free_avs) outs.push_back({a.id, true, rank_of_value(a.v), prim_of_value(a.v)});
  for (const auto& o : outs)
    if (o.summed && o.rank > 2) throw Unsupported("a captured array of more than two dimensions in a mapped function");
  Value ys = ev.apply(fn, primal, at);
  AV r = constant(ys);
  r.id = new_node([this, vf, arrays, outs](const Value& ybars) {
    std::vector<Value> margs{vf};
    for (const auto& a : arrays) margs.push_back(a);
    margs.push_back(ybars);
    Value mapper = map_of(margs.size() - 1);  // before margs is moved from
    Value res = apply(mapper, std::move(margs));
    for (size_t q = 0; q < outs.size(); ++q) {
      if (outs[q].id < 0) continue;
      Value rows = outs.size() == 1 ? res : row_component(res, q);
      if (!outs[q].summed) {
        accumulate(outs[q].id, rows);
        continue;
      }
      const char* sum = outs[q].rank == 0 ? "sum" : outs[q].rank == 1 ? "sum_rows" : "sum_rows2";
      accumulate(outs[q].id, apply(rule(outs[q].p, sum), {rows}));
    }
  });
  return r;
}

}  // namespace thorn::eval::ad
