// The array-level AD's rules (ad_sweep.hpp): scalars, indexing, map,
// reduce, scan and reduce_by_index, in forward and reverse mode. The array
// work of every rule is Futhark code (prelude/ad_rules.fut, the prelude's
// SOACs, or a map of a generated element derivative), evaluated by the
// ordinary evaluator, so it is flattened onto the host/GPU plans.
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "interp/eval/ad_sweep_impl.hpp"
#include "interp/eval/ad_rev.hpp"
#include "interp/eval/scalar_ops.hpp"
#include "interp/eval/value_ops.hpp"

namespace thorn::eval::ad {

namespace {

Value fscalar(Prim p, double v) { return Value(Scalar::floating(p, v)); }

int64_t length_of(const Value& v) { return v.array->shape.at(0); }

// The k-th component of an array of tuples (a map whose function returns a tuple).
Value component(const Value& v, size_t k) {
  if (v.kind != Value::Kind::Array || v.array->components.size() <= k)
    throw Unsupported("a map result of an unexpected structure");
  return Value::make_array(v.array->components[k]);
}

}  // namespace

Value map_of(size_t arrays) {
  auto c = std::make_shared<Callable>();
  c->kind = Callable::Kind::Intrinsic;
  c->name = "map";
  c->arity = int(arrays) + 1;
  return Value::function(c);
}

std::vector<Value> split_components(const Value& v) {
  if (v.kind != Value::Kind::Array || v.array->elem.kind != ElemShape::Kind::Tuple) return {v};
  std::vector<Value> out;
  for (const auto& c : v.array->components) {
    if (c->elem.kind != ElemShape::Kind::Prim || c->shape.size() != 1)
      throw Unsupported("an array of tuples of other than scalars");
    out.push_back(Value::make_array(c));
  }
  return out;
}

Value tuple_array(const std::vector<Value>& comps) {
  if (comps.size() == 1) return comps[0];
  auto a = std::make_shared<ArrayValue>();
  a->shape = comps.at(0).array->shape;
  a->elem.kind = ElemShape::Kind::Tuple;
  for (const auto& c : comps) {
    a->elem.children.push_back(c.array->elem);
    a->components.push_back(c.array);
  }
  return Value::make_array(a);
}

Prim float_elem(const Value& v, const char* what) {
  if (v.kind == Value::Kind::Scalar && is_float(v.scalar.type)) return v.scalar.type;
  if (v.kind == Value::Kind::Array && v.array->shape.size() == 1 && v.array->elem.kind == ElemShape::Kind::Prim &&
      is_float(v.array->elem.prim))
    return v.array->elem.prim;
  throw Unsupported(fmt::format("{} of a type other than a float or a one-dimensional array of floats", what));
}

std::string operator_name(const Value& op) {
  if (op.kind != Value::Kind::Function) return "";
  const Callable& c = *op.fn;
  if (c.kind == Callable::Kind::Operator) return c.name;
  if (c.kind == Callable::Kind::Closure)
    if (auto a = c.intrinsic_alias()) return *a;
  return "";
}

Value Sweep::prelude(const std::string& name) {
  const Binding* b = lookup_value(ev.prelude_env, name);
  if (!b) throw Unsupported(fmt::format("the prelude has no {}", name));
  return b->value;
}

Value Sweep::rule(Prim t, const std::string& name) {
  QualName q;
  q.qualifiers = {t == Prim::F32 ? "ad_rules_f32" : "ad_rules_f64"};
  q.name = name;
  if (t != Prim::F32 && t != Prim::F64) throw Unsupported("derivatives of f16 arrays");
  const Binding* b = lookup_value(ev.prelude_env, q);
  if (!b) throw Unsupported(fmt::format("the prelude has no rule {}", q.str()));
  return b->value;
}

Value Sweep::add_values(const Value& a, const Value& b) {
  if (a.kind == Value::Kind::Scalar && b.kind == Value::Kind::Scalar)
    return Value(scalar_binop(BuiltinOp::Add, a.scalar, b.scalar));
  if (a.kind == Value::Kind::Tuple && b.kind == Value::Kind::Tuple && a.elems->size() == b.elems->size()) {
    std::vector<Value> es;
    for (size_t k = 0; k < a.elems->size(); ++k) es.push_back(add_values((*a.elems)[k], (*b.elems)[k]));
    return Value::tuple(std::move(es));
  }
  if (a.kind == Value::Kind::Array && a.array->elem.kind == ElemShape::Kind::Tuple) {
    std::vector<Value> as = split_components(a), bs = split_components(b), es;
    if (as.size() != bs.size()) throw Unsupported("adding adjoints of different structure");
    for (size_t k = 0; k < as.size(); ++k) es.push_back(add_values(as[k], bs[k]));
    return tuple_array(es);
  }
  if (a.kind == Value::Kind::Array && a.array->shape.size() >= 2 && a.array->elem.kind == ElemShape::Kind::Prim &&
      is_float(a.array->elem.prim)) {
    // Rows of floats (vectorised histograms): added as flat arrays.
    Prim p = a.array->elem.prim;
    return unflat_all(apply(rule(p, "vadd"), {flat_all(a, p), flat_all(b, p)}), a.array->shape, p);
  }
  Prim p = float_elem(a, "adding adjoints");
  return apply(rule(p, "vadd"), {a, b});
}

Value Sweep::zeros_like(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Scalar:
      if (is_float(v.scalar.type)) return fscalar(v.scalar.type, 0);
      if (v.scalar.type == Prim::Bool) return Value(Scalar::boolean(false));
      return Value(Scalar::signed_int(v.scalar.type, 0));
    case Value::Kind::Tuple: {
      std::vector<Value> es;
      for (const auto& e : *v.elems) es.push_back(zeros_like(e));
      return Value::tuple(std::move(es));
    }
    case Value::Kind::Array:
      if (v.array->elem.kind == ElemShape::Kind::Prim) {
        auto a = make_prim_array(v.array->elem.prim, v.array->shape);
        int64_t bytes = a->count() * prim_bytes(a->elem.prim);
        if (bytes > 0) std::memset(a->buffer->host_mut(), 0, size_t(bytes));
        return Value::make_array(a);
      }
      if (v.array->elem.kind == ElemShape::Kind::Tuple) {
        std::vector<Value> zs;
        for (const auto& c : split_components(v)) zs.push_back(zeros_like(c));
        return tuple_array(zs);
      }
      break;
    default: break;
  }
  throw Unsupported("a zero derivative of this kind of value");
}

AV Sweep::scalar_rule(const std::string& op, const Value& y, std::vector<AV>& args) {
  if (y.kind == Value::Kind::Scalar && !is_float(y.scalar.type)) return constant(y);  // comparisons, integers
  if (y.kind != Value::Kind::Scalar) throw Unsupported(fmt::format("{} with a non-scalar result", op));
  for (const auto& a : args)
    if (a.active() && a.v.kind != Value::Kind::Scalar) throw Unsupported(fmt::format("operator {} on arrays", op));
  Prim p = y.scalar.type;
  double yv = y.scalar.as_f64();
  double a = args[0].v.kind == Value::Kind::Scalar ? args[0].v.scalar.as_f64() : 0;
  double b = args.size() > 1 && args[1].v.kind == Value::Kind::Scalar ? args[1].v.scalar.as_f64() : 0;
  std::vector<double> d(args.size(), 0.0);  // partial derivatives
  bool ok = true;
  if (args.size() == 2) {
    if (op == "+") d = {1, 1};
    else if (op == "-") d = {1, -1};
    else if (op == "*") d = {b, a};
    else if (op == "/") d = {1 / b, -a / (b * b)};
    else if (op == "**")  // Futhark's rule: finite at a = 0 (see ad_ops.cpp)
      d = {a == 0 && b < 1 ? 0 : b * std::pow(a, b - 1), args[1].active() && a > 0 ? yv * std::log(a) : 0};
    else if (op == "max") d = a >= b ? std::vector<double>{1, 0} : std::vector<double>{0, 1};
    else if (op == "min") d = a <= b ? std::vector<double>{1, 0} : std::vector<double>{0, 1};
    else ok = false;
  } else if (args.size() == 1) {
    if (op == "neg") d = {-1};
    else if (op == "sin") d = {std::cos(a)};
    else if (op == "cos") d = {-std::sin(a)};
    else if (op == "exp") d = {yv};
    else if (op == "log") d = {1 / a};
    else if (op == "log2") d = {1 / (a * std::log(2.0))};
    else if (op == "log10") d = {1 / (a * std::log(10.0))};
    else if (op == "log1p") d = {1 / (1 + a)};
    else if (op == "sqrt") d = {0.5 / yv};
    else if (op == "tanh") d = {1 - yv * yv};
    else if (op == "sinh") d = {std::cosh(a)};
    else if (op == "cosh") d = {std::sinh(a)};
    else if (op == "atan") d = {1 / (1 + a * a)};
    else if (op == "asin") d = {1 / std::sqrt(1 - a * a)};
    else if (op == "acos") d = {-1 / std::sqrt(1 - a * a)};
    else if (op == "abs") d = {a < 0 ? -1.0 : 1.0};
    else ok = false;
  } else {
    ok = false;
  }
  if (!ok) throw Unsupported(fmt::format("the derivative of {} on scalars", op));
  if (reverse) {
    std::vector<std::pair<int, double>> edges;
    for (size_t k = 0; k < args.size(); ++k)
      if (args[k].active()) edges.push_back({args[k].id, d[k]});
    AV r = constant(y);
    r.id = new_node([this, edges, p](const Value& ybar) {
      for (const auto& [id, partial] : edges) accumulate(id, fscalar(p, ybar.scalar.as_f64() * partial));
    });
    return r;
  }
  double t = 0;
  for (size_t k = 0; k < args.size(); ++k)
    if (args[k].dot) t += d[k] * args[k].dot->scalar.as_f64();
  return dual(y, fscalar(p, t));
}

AV Sweep::index_rule(const AV& xs, int64_t i, const Value& y) {
  if (!xs.active()) return constant(y);
  Prim p = float_elem(xs.v, "indexing");
  int64_t n = length_of(xs.v);
  if (reverse) {
    AV r = constant(y);
    int xid = xs.id;
    r.id = new_node([this, xid, n, i, p](const Value& ybar) {
      accumulate(xid, apply(rule(p, "onehot"), {Value(Scalar::i64(n)), Value(Scalar::i64(i)), ybar}));
    });
    return r;
  }
  IndexValue iv;
  iv.index = i;
  return dual(y, index_array(*xs.dot->array, {iv}));
}

AV Sweep::intrinsic_rule(const std::string& name, const Value& fn, std::vector<AV>& args, Scope& s, const Loc& at) {
  if (name == "map") return map_rule(fn, args, s, at);
  if (name == "reduce" || name == "reduce_comm") return reduce_rule(fn, args, at);
  if (name == "scan") return scan_rule(fn, args, at);
  if (name == "reduce_by_index") return hist_rule(fn, args, at);
  if (name == "scatter") return scatter_rule(fn, args, at);
  if ((name == "copy" || name == "manifest") && args.size() == 1) {
    // The identity: the copy shares the original's tangent or tape node.
    AV r = args[0];
    r.v = ev.apply(fn, {args[0].v}, at);
    return r;
  }
  if (args.size() <= 2) {
    std::vector<Value> vs;
    for (const auto& a : args) vs.push_back(a.v);
    Value y = ev.apply(fn, std::move(vs), at);
    return scalar_rule(name, y, args);
  }
  throw Unsupported(fmt::format("the intrinsic {} on values that carry derivatives", name));
}

AV Sweep::map_rule(const Value& fn, std::vector<AV>& args, Scope& s, const Loc& at) {
  if (args.empty() || args[0].id >= 0 || args[0].dot || args[0].is_tuple)
    throw Unsupported("mapping a function that carries a derivative");
  const Value& f = args[0].v;
  size_t k = args.size() - 1;
  CallablePtr c;
  // Element functions over arrays, with SOACs inside, or partial
  // applications of named functions over active values: ad_rev.
  if (f.kind == Value::Kind::Function) {
    const Callable& fc = *f.fn;
    if ((fc.kind == Callable::Kind::Closure && needs_rev(fc)) ||
        (fc.kind == Callable::Kind::Partial && fc.fn && fc.fn->kind == Callable::Kind::Closure &&
         (args[0].partial_args || (!args[0].captures && needs_rev(*fc.fn)))))
      return nested_map_rule(fn, args, s, at);
  }
  if (f.kind == Value::Kind::Function && f.fn->kind == Callable::Kind::Closure) {
    c = f.fn;
  } else if (args[0].captures) {
    // A section or partial application whose operand carries a derivative
    // (`map (* c) xs` with c active): the operator's closure would hold c's
    // primal as a constant and lose its derivative. A built-in operator's
    // section over one array is mapped as the operator over the array and
    // a replicate of c (delayed, fused), whose adjoint is summed into c's;
    // anything else falls back.
    const Callable& sec = *f.fn;
    bool right = sec.kind == Callable::Kind::RightSection;
    if (args[0].section_operand && k == 1 && (right || sec.kind == Callable::Kind::Partial) && sec.fn &&
        sec.fn->kind == Callable::Kind::Operator && !args[1].is_tuple) {
      const AV& c = *args[0].section_operand;
      Prim p = float_elem(c.v, "an operator section's operand");
      int64_t n = length_of(args[1].v);
      AV rep = constant(apply(prelude("replicate"), {Value(Scalar::i64(n)), c.v}));
      if (reverse && c.id >= 0) {
        int cid = c.id;
        rep.id = new_node([this, cid, p](const Value& bars) { accumulate(cid, apply(rule(p, "sum"), {bars})); });
      } else if (!reverse && c.dot) {
        rep.dot = apply(prelude("replicate"), {Value(Scalar::i64(n)), *c.dot});
      }
      std::vector<AV> binary{constant(Value::function(sec.fn)), right ? args[1] : rep, right ? rep : args[1]};
      return map_rule(map_of(2), binary, s, at);
    }
    throw Unsupported("mapping an operator section or partial application over a value that carries a derivative");
  } else if (k >= 1 && args[1].v.kind == Value::Kind::Array && args[1].v.array->elem.kind == ElemShape::Kind::Prim) {
    // An operator or a section of one: differentiated as the equivalent lambda.
    if (auto g = operator_closure(ev, f, args[1].v.array->elem.prim)) c = g->fn;
  }
  if (!c)
    throw Unsupported(fmt::format("mapping {} (lambdas, named functions and operator sections have element derivatives)",
                                  f.kind == Value::Kind::Function ? f.fn->describe() : "a non-function"));
  // Arrays of tuples are passed to the element derivative as their
  // component arrays (its tuple parameters are flattened, ad_lambda.hpp).
  std::vector<bool> mask;
  std::vector<Value> arrays, flat;
  std::vector<int> ids;
  std::vector<size_t> widths;  // components of each active argument
  for (size_t j = 0; j < k; ++j) {
    arrays.push_back(args[j + 1].v);
    if (args[j + 1].is_tuple) throw Unsupported("mapping over a tuple of arrays");
    std::vector<Value> cs = split_components(args[j + 1].v);
    for (auto& x : cs) {
      mask.push_back(args[j + 1].active());
      flat.push_back(x);
    }
    if (args[j + 1].active()) ids.push_back(args[j + 1].id), widths.push_back(cs.size());
  }
  if (param_width(*c) != int(flat.size()))
    throw Unsupported("mapping a function whose parameters do not match the arrays' structure");
  // Free variables of the element function that carry a derivative: found
  // in the scopes around the call by their binding's identity.
  std::vector<FreeActive> free;
  std::vector<AV> free_avs;
  for (const Scope* sc = &s; sc; sc = sc->parent)
    for (const auto& [name, av] : sc->active) {
      if (!mentions_name(*c->body, name)) continue;
      bool seen = false;
      for (const auto& fa : free) seen = seen || fa.name == name;
      const Binding* here = lookup_value(c->env, name);
      if (seen || !here || here != lookup_value(sc->env, name)) continue;
      bool array = av.v.kind == Value::Kind::Array;
      if (av.is_tuple || (av.v.kind != Value::Kind::Scalar && !array) || (array && av.v.array->shape.size() != 1))
        throw Unsupported(fmt::format("a mapped function using {}, a non-scalar that carries a derivative", name));
      free.push_back(FreeActive{name, av.dot ? *av.dot : Value(), array});
      free_avs.push_back(av);
    }
  std::vector<Value> primal{f};
  for (auto& a : arrays) primal.push_back(a);
  if (ids.empty() && free.empty()) return constant(ev.apply(fn, primal, at));  // nothing it uses carries a derivative
  if (reverse) {
    // The derivative code is generated now, so an unsupported element
    // function falls back before anything runs. One function for the
    // adjoints of the mapped arrays (stored: they are arrays of the
    // result); one per captured active scalar, whose map is summed at once
    // (a delayed map fused into the reduction: nothing stored).
    std::optional<Value> g_arrays;
    if (!ids.empty()) g_arrays = vjp_lambda(ev, *c, mask, {});
    // A captured array read by gathers: one function for all its gather
    // sites, each giving its adjoints and indices for a histogram.
    std::vector<Value> g_free;
    std::vector<size_t> sites;
    std::vector<int64_t> lengths;
    std::vector<bool> none(flat.size(), false);
    for (const auto& fa : free) {
      std::vector<std::string> site_arrays;
      g_free.push_back(vjp_lambda(ev, *c, none, {fa}, &site_arrays));
      sites.push_back(site_arrays.size());
      lengths.push_back(0);
    }
    for (size_t d = 0; d < free.size(); ++d) {
      if (!free[d].array) continue;
      lengths[d] = length_of(free_avs[d].v);
      if (sites[d] == 0) throw Unsupported(fmt::format("a mapped function using the array {} other than by a[i]", free[d].name));
    }
    Value ys = ev.apply(fn, primal, at);
    AV r = constant(ys);
    std::vector<int> free_ids;
    for (const auto& a : free_avs) free_ids.push_back(a.id);
    Prim p = float_elem(free.empty() ? Value(Scalar::floating(Prim::F64, 0)) : free_avs[0].v, "a free variable");
    r.id = new_node([this, g_arrays, g_free, sites, lengths, flat, ids, widths, free_ids, p](const Value& ybars) {
      auto run = [&](const Value& g) {
        std::vector<Value> margs{g};
        for (const auto& a : flat) margs.push_back(a);
        for (const auto& y : split_components(ybars)) margs.push_back(y);
        Value mapper = map_of(margs.size() - 1);
        return apply(mapper, std::move(margs));
      };
      if (g_arrays) {
        Value res = run(*g_arrays);
        size_t total = 0, at = 0;
        for (size_t w : widths) total += w;
        for (size_t d = 0; d < ids.size(); ++d) {
          std::vector<Value> comps;
          for (size_t q = 0; q < widths[d]; ++q, ++at) comps.push_back(total == 1 ? res : component(res, at));
          accumulate(ids[d], tuple_array(comps));
        }
      }
      for (size_t d = 0; d < g_free.size(); ++d) {
        if (sites[d] == 0) {
          accumulate(free_ids[d], apply(rule(p, "sum"), {run(g_free[d])}));
          continue;
        }
        Value res = run(g_free[d]);
        for (size_t s = 0; s < sites[d]; ++s)
          accumulate(free_ids[d], apply(rule(p, "gather_vjp"), {Value(Scalar::i64(lengths[d])), component(res, 2 * s + 1),
                                                                component(res, 2 * s)}));
      }
    });
    return r;
  }
  // Forward mode: the primal by the original map, the tangent by a map of
  // the element function's jvp (both delayed, each fused into its consumer).
  Value g = jvp_lambda(ev, *c, mask, free, true);
  std::vector<Value> margs{g};
  for (auto& a : flat) margs.push_back(a);
  for (size_t j = 0; j < k; ++j)
    if (args[j + 1].active())
      for (const auto& t : split_components(*args[j + 1].dot)) margs.push_back(t);
  Value mapper = map_of(margs.size() - 1);
  Value ys = ev.apply(fn, primal, at);
  Value dys = apply(mapper, std::move(margs));
  return dual(ys, dys);
}

AV Sweep::reduce_rule(const Value& fn, std::vector<AV>& args, const Loc& at) {
  if (args.size() != 3 || args[0].active() || args[1].active())
    throw Unsupported("a reduction whose operator or neutral element carries a derivative");
  const AV& xs = args[2];
  if (xs.v.kind == Value::Kind::Array && xs.v.array->elem.kind == ElemShape::Kind::Tuple)
    return reduce_tuple_rule(fn, args, at);
  if (auto g = vectorised_operator(args[0].v)) return reduce_vectorised_rule(args, g->first, g->second, at);
  Prim p = float_elem(xs.v, "a reduction");
  if (xs.v.kind != Value::Kind::Array) throw Unsupported("a reduction over a non-array");
  std::string op = operator_name(args[0].v);
  int64_t n = length_of(xs.v);
  double ne = args[1].v.kind == Value::Kind::Scalar ? args[1].v.scalar.as_f64() : NAN;
  Value y = ev.apply(fn, {args[0].v, args[1].v, xs.v}, at);
  AV r = constant(y);
  int xid = xs.id;
  Value xv = xs.v;
  if (op == "+" && ne == 0) {
    if (!reverse) return dual(y, apply(rule(p, "sum"), {*xs.dot}));
    r.id = new_node([this, xid, n](const Value& ybar) {
      accumulate(xid, apply(prelude("replicate"), {Value(Scalar::i64(n)), ybar}));
    });
    return r;
  }
  if (op == "*" && ne == 1) {
    if (!reverse) return dual(y, apply(rule(p, "prod_jvp"), {xv, *xs.dot}));
    // Forward sweep: the zero count and the product of the others.
    Value zp = apply(rule(p, "prod_fwd"), {xv});
    Value zs = (*zp.elems)[0], prod = (*zp.elems)[1];
    r.id = new_node([this, xid, xv, zs, prod, p](const Value& ybar) {
      accumulate(xid, apply(rule(p, "prod_vjp"), {xv, zs, prod, ybar}));
    });
    return r;
  }
  if (op == "max" || op == "min") {
    Value mk = apply(rule(p, op == "max" ? "argmax" : "argmin"), {xv});
    int64_t k = (*mk.elems)[1].scalar.as_i64();
    // The neutral element may win (reduce f64.max 0 over negatives): then
    // no element gets the adjoint.
    bool hit = k < n && scalar_equal((*mk.elems)[0].scalar, y.scalar);
    if (!reverse) {
      if (!hit) return dual(y, fscalar(p, 0));
      IndexValue iv;
      iv.index = k;
      return dual(y, index_array(*xs.dot->array, {iv}));
    }
    if (!hit) return r;
    r.id = new_node([this, xid, n, k, p](const Value& ybar) {
      accumulate(xid, apply(rule(p, "onehot"), {Value(Scalar::i64(n)), Value(Scalar::i64(k)), ybar}));
    });
    return r;
  }
  // The generic rule: an operator whose derivative ad_lambda can generate
  // (a lambda or named function of two scalars).
  const Value& opv = args[0].v;
  if (opv.kind != Value::Kind::Function || opv.fn->kind != Callable::Kind::Closure || !opv.fn->params ||
      opv.fn->params->size() != 2)
    throw Unsupported(fmt::format("a reduction with {} (rules: + with 0, * with 1, min, max, and lambdas of two scalars)",
                                  op.empty() ? "this kind of operator" : "operator " + op));
  if (!reverse) {
    Value jl = jvp_lambda(ev, *opv.fn, {true, true}, {});
    return dual(y, apply(rule(p, "reduce_generic_jvp"), {jl, args[1].v, xv, *xs.dot}));
  }
  Value pd = vjp_lambda(ev, *opv.fn, {true, true}, {});
  Value nev = args[1].v;
  r.id = new_node([this, xid, xv, opv, pd, nev, p](const Value& ybar) {
    accumulate(xid, apply(rule(p, "reduce_generic_vjp"), {opv, pd, nev, xv, ybar}));
  });
  return r;
}

AV Sweep::scan_rule(const Value& fn, std::vector<AV>& args, const Loc& at) {
  if (args.size() != 3 || args[0].active() || args[1].active())
    throw Unsupported("a scan whose operator or neutral element carries a derivative");
  const AV& xs = args[2];
  if (xs.v.kind == Value::Kind::Array && xs.v.array->elem.kind == ElemShape::Kind::Tuple) return scan_tuple_rule(fn, args, at);
  Prim p = float_elem(xs.v, "a scan");
  std::string op = operator_name(args[0].v);
  double ne = args[1].v.kind == Value::Kind::Scalar ? args[1].v.scalar.as_f64() : NAN;
  if (op != "+" || ne != 0) return scan_generic_rule(fn, args, p, at);
  Value y = ev.apply(fn, {args[0].v, args[1].v, xs.v}, at);
  if (!reverse) return dual(y, ev.apply(fn, {args[0].v, args[1].v, *xs.dot}, at));
  AV r = constant(y);
  int xid = xs.id;
  r.id = new_node([this, xid, p](const Value& ybars) { accumulate(xid, apply(rule(p, "scan_add_vjp"), {ybars})); });
  return r;
}

// scan with any associative operator of two scalars (notes-ad.md §3, the
// generic rule): reverse mode solves the adjoint's backward linear
// recurrence by a scan of affine maps (ad_rules.fut scan_generic_vjp; for
// scalars the "transposed Jacobian" is the partial itself), forward mode
// scans dual pairs under the operator's generated jvp. Both run as
// ordinary flattened scans and maps.
AV Sweep::scan_generic_rule(const Value& fn, std::vector<AV>& args, Prim p, const Loc& at) {
  const AV& xs = args[2];
  Value opv = args[0].v;
  if (auto g = operator_closure(ev, opv, p)) opv = *g;
  if (opv.kind != Value::Kind::Function || opv.fn->kind != Callable::Kind::Closure || !opv.fn->params ||
      opv.fn->params->size() != 2 || args[1].v.kind != Value::Kind::Scalar)
    throw Unsupported("a scan with this kind of operator (rules: + with 0, and lambdas or operators of two scalars)");
  Value y = ev.apply(fn, {args[0].v, args[1].v, xs.v}, at);
  if (!reverse) {
    Value jl = jvp_lambda(ev, *opv.fn, {true, true}, {});
    return dual(y, apply(rule(p, "scan_generic_jvp"), {jl, args[1].v, xs.v, *xs.dot}));
  }
  Value pd = vjp_lambda(ev, *opv.fn, {true, true}, {});
  AV r = constant(y);
  int xid = xs.id;
  Value xv = xs.v, nev = args[1].v;
  r.id = new_node([this, xid, xv, y, pd, nev, p](const Value& ybars) {
    accumulate(xid, apply(rule(p, "scan_generic_vjp"), {pd, nev, xv, y, ybars}));
  });
  return r;
}

// scatter dest is vs (one-dimensional, float elements). Reverse: dest's
// adjoint is ȳ with the written positions zeroed, each value's is ȳ at its
// index when it is the write that lands there (the last one, as the
// reference backend's sequential scatter has it; 0 out of bounds).
// Forward: the tangents scattered the same way.
AV Sweep::scatter_rule(const Value& fn, std::vector<AV>& args, const Loc& at) {
  if (args.size() != 3 || args[1].active()) throw Unsupported("a scatter whose indices carry a derivative");
  const AV& dest = args[0];
  const AV& vs = args[2];
  if (dest.is_tuple || vs.is_tuple) throw Unsupported("a scatter of tuples");
  Prim p = float_elem(dest.v, "a scatter");
  Value is = args[1].v;
  if (is.kind != Value::Kind::Array || is.array->shape.size() != 1)
    throw Unsupported("a scatter with multi-dimensional indices");
  if (!reverse) {
    // The tangent's scatter consumes its destination: a fresh copy.
    Value ddest = dest.dot ? apply(prelude("copy"), {*dest.dot}) : zeros_like(dest.v);
    Value dvs = vs.dot ? *vs.dot : zeros_like(vs.v);
    Value y = ev.apply(fn, {dest.v, is, vs.v}, at);
    return dual(y, ev.apply(fn, {ddest, is, dvs}, at));
  }
  Value y = ev.apply(fn, {dest.v, is, vs.v}, at);
  AV r = constant(y);
  int did = dest.id, vid = vs.id;
  r.id = new_node([this, did, vid, is, p](const Value& ybars) {
    Value both = apply(rule(p, "scatter_vjp"), {is, ybars});
    accumulate(did, (*both.elems)[0]);
    accumulate(vid, (*both.elems)[1]);
  });
  return r;
}

AV Sweep::hist_rule(const Value& fn, std::vector<AV>& args, const Loc& at) {
  // reduce_by_index dest op ne is vs
  if (args.size() != 5 || args[1].active() || args[2].active() || args[3].active())
    throw Unsupported("a reduce_by_index whose operator, neutral element or indices carry a derivative");
  const AV& dest = args[0];
  const AV& vs = args[4];
  if (auto g = vectorised_operator(args[1].v)) return hist_vectorised_rule(fn, args, g->first, g->second, at);
  Prim p = float_elem(vs.v, "a reduce_by_index");
  std::string op = operator_name(args[1].v);
  double ne = args[2].v.kind == Value::Kind::Scalar ? args[2].v.scalar.as_f64() : NAN;
  Value is = args[3].v;
  if (op == "*" && ne == 1) return hist_mul_rule(dest, is, vs, p);
  if (op == "max" || op == "min") return hist_arg_rule(op == "max", dest, is, vs, p);
  if (op != "+" || ne != 0) return hist_generic_rule(args, p);
  if (!reverse) {
    Value ddest = dest.dot ? apply(prelude("copy"), {*dest.dot}) : zeros_like(dest.v);
    Value dvs = vs.dot ? *vs.dot : zeros_like(vs.v);
    Value y = ev.apply(fn, {dest.v, args[1].v, args[2].v, is, vs.v}, at);
    return dual(y, ev.apply(fn, {ddest, args[1].v, args[2].v, is, dvs}, at));
  }
  Value y = ev.apply(fn, {dest.v, args[1].v, args[2].v, is, vs.v}, at);
  AV r = constant(y);
  int did = dest.id, vid = vs.id;
  r.id = new_node([this, did, vid, is, p](const Value& ybars) {
    accumulate(did, ybars);
    if (vid >= 0) accumulate(vid, apply(rule(p, "hist_add_vjp"), {is, ybars}));
  });
  return r;
}

// reduce_by_index with any operator of two scalars (assumed associative
// and commutative, as reduce_by_index requires): the seed's sort-based
// generic rule (ad_rules.fut hist_generic_*). The result is computed as
// map2 op dst (reduce_by_index (replicate w ne) op ne is vs), the form
// Futhark's AD differentiates and the reference tape computes under AD.
AV Sweep::hist_generic_rule(std::vector<AV>& args, Prim p) {
  const AV& dest = args[0];
  const AV& vs = args[4];
  Value opv = args[1].v;
  if (auto g = operator_closure(ev, opv, p)) opv = *g;
  if (opv.kind != Value::Kind::Function || opv.fn->kind != Callable::Kind::Closure || !opv.fn->params ||
      opv.fn->params->size() != 2 || args[2].v.kind != Value::Kind::Scalar)
    throw Unsupported("a reduce_by_index with this kind of operator (rules: +, *, min, max, and lambdas or operators of two scalars)");
  Value is = args[3].v, nev = args[2].v;
  if (is.kind != Value::Kind::Array || is.array->shape.size() != 1)
    throw Unsupported("a reduce_by_index with multi-dimensional indices");
  if (!reverse) {
    Value jl = jvp_lambda(ev, *opv.fn, {true, true}, {});
    Value y = (*apply(rule(p, "hist_generic_fwd"), {opv, nev, dest.v, is, vs.v}).elems)[0];
    Value dd = dest.dot ? *dest.dot : zeros_like(dest.v);
    Value dv = vs.dot ? *vs.dot : zeros_like(vs.v);
    return dual(y, apply(rule(p, "hist_generic_jvp"), {jl, nev, dest.v, dd, is, vs.v, dv}));
  }
  Value pd = vjp_lambda(ev, *opv.fn, {true, true}, {});
  Value fwd = apply(rule(p, "hist_generic_fwd"), {opv, nev, dest.v, is, vs.v});
  Value ys = (*fwd.elems)[0], h = (*fwd.elems)[1];
  AV r = constant(ys);
  int did = dest.id, vid = vs.id;
  Value dv = dest.v, vv = vs.v;
  r.id = new_node([this, did, vid, opv, pd, nev, dv, vv, is, h, p](const Value& ybars) {
    Value bars = apply(rule(p, "hist_generic_vjp"), {opv, pd, nev, dv, is, vv, h, ybars});
    accumulate(did, (*bars.elems)[0]);
    accumulate(vid, (*bars.elems)[1]);
  });
  return r;
}

AV Sweep::hist_mul_rule(const AV& dest, const Value& is, const AV& vs, Prim p) {
  // The destination is kept (the return sweep needs it) and never updated in
  // place: the rule computes the result into new arrays.
  Value fwd = apply(rule(p, "hist_mul_fwd"), {dest.v, is, vs.v});
  Value ys = (*fwd.elems)[0], nz = (*fwd.elems)[1], zc = (*fwd.elems)[2];
  if (!reverse) {
    Value dd = dest.dot ? *dest.dot : zeros_like(dest.v);
    Value dv = vs.dot ? *vs.dot : zeros_like(vs.v);
    return dual(ys, apply(rule(p, "hist_mul_jvp"), {dest.v, dd, is, vs.v, dv}));
  }
  AV r = constant(ys);
  int did = dest.id, vid = vs.id;
  Value dv = dest.v, vv = vs.v;
  r.id = new_node([this, did, vid, dv, vv, is, nz, zc, p](const Value& ybars) {
    Value bars = apply(rule(p, "hist_mul_vjp"), {dv, is, vv, nz, zc, ybars});
    accumulate(did, (*bars.elems)[0]);
    accumulate(vid, (*bars.elems)[1]);
  });
  return r;
}

AV Sweep::hist_arg_rule(bool is_max, const AV& dest, const Value& is, const AV& vs, Prim p) {
  Value fwd = apply(rule(p, "hist_arg"), {Value(Scalar::boolean(is_max)), dest.v, is, vs.v});
  Value ys = (*fwd.elems)[0], ks = (*fwd.elems)[1];
  if (!reverse) {
    Value dd = dest.dot ? *dest.dot : zeros_like(dest.v);
    Value dv = vs.dot ? *vs.dot : zeros_like(vs.v);
    return dual(ys, apply(rule(p, "hist_arg_jvp"), {ks, dd, dv}));
  }
  AV r = constant(ys);
  int did = dest.id, vid = vs.id;
  Value vv = vs.v;
  r.id = new_node([this, did, vid, ks, vv, p](const Value& ybars) {
    Value bars = apply(rule(p, "hist_arg_vjp"), {ks, ybars, vv});
    accumulate(did, (*bars.elems)[0]);
    accumulate(vid, (*bars.elems)[1]);
  });
  return r;
}

}  // namespace thorn::eval::ad
