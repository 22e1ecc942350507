// Generated code for the generic scan rule of tuple operators
// (ad_sweep_scan.cpp; declarations in ad_lambda.hpp): the operator's
// Jacobian, its jvp on dual tuples, and the composition of affine maps.
#include "interp/eval/ad_lambda_gen.hpp"

namespace thorn::eval::ad {

using namespace detail;

namespace {

PatternPtr tuple_pattern(std::vector<PatternPtr> elems, const Loc& loc) {
  auto p = std::make_shared<Pattern>();
  p->kind = Pattern::Kind::Tuple;
  p->loc = loc;
  std::vector<TypePtr> ts;
  for (const auto& e : elems) ts.push_back(e->type);
  p->type = tuple_type(ts);
  p->elems = std::move(elems);
  return p;
}

}  // namespace

Value jacobian_lambda(Evaluator& ev, const Callable& f, const std::vector<bool>& active) {
  auto ps = scalar_params(f);
  auto out = memoised(variant_key("jac", f, active, {}, false), &f, [&] {
    int ndirs = 0;
    for (bool a : active) ndirs += a ? 1 : 0;
    Gen g(ev, f.env, ndirs, f.loc);
    auto gen = std::make_shared<Generated>();
    seed_params(g, *gen, ps, active, f.loc);
    std::vector<Dual> rs = g.go_multi(body_ptr(f));
    if (g.ndirs != ndirs) throw Unsupported("a gather from a captured array in an operator");
    std::vector<ExprPtr> results;
    for (int k = 0; k < ndirs; ++k)
      for (const auto& r : rs) results.push_back(r.t[size_t(k)] ? r.t[size_t(k)] : g.lit(0, r.p->type));
    gen->body = g.close(0, tuple_of(g, std::move(results)));
    gen->source = f.keep;
    return gen;
  });
  return make_closure(f, out, f.env);
}

Value paired_jvp_operator(Evaluator& ev, const Callable& f) {
  auto ps = scalar_params(f);
  if (!f.params || f.params->size() != 2 || ps.size() % 2 != 0) throw Unsupported("an operator of other than two parameters");
  size_t w = ps.size() / 2;
  auto out = memoised(variant_key("pjvp", f, {}, {}, false), &f, [&] {
    Gen g(ev, f.env, 1, f.loc);
    auto gen = std::make_shared<Generated>();
    for (size_t side = 0; side < 2; ++side) {
      std::vector<PatternPtr> elems;
      for (size_t j = side * w; j < (side + 1) * w; ++j) elems.push_back(id_pattern(ps[j]->name, ps[j]->type, f.loc));
      for (size_t j = side * w; j < (side + 1) * w; ++j) {
        std::string tn = fmt::format("__adt{}", j);
        elems.push_back(id_pattern(tn, ps[j]->type, f.loc));
        g.locals.insert(ps[j]->name);
        g.tan[ps[j]->name] = {g.var(tn, ps[j]->type)};
      }
      gen->params.push_back(tuple_pattern(std::move(elems), f.loc));
    }
    std::vector<Dual> rs = g.go_multi(body_ptr(f));
    if (rs.size() != w) throw Unsupported("an operator whose result differs from its operands");
    std::vector<ExprPtr> results;
    for (const auto& r : rs) results.push_back(r.p);
    for (const auto& r : rs) results.push_back(r.t[0] ? r.t[0] : g.lit(0, r.p->type));
    gen->body = g.close(0, tuple_of(g, std::move(results)));
    gen->source = f.keep;
    return gen;
  });
  return make_closure(f, out, f.env);
}

Value affine_compose_operator(Evaluator& ev, int d, Prim t) {
  auto out = memoised(fmt::format("affine|{}|{}", d, prim_name(t)), nullptr, [&] {
    Loc loc;
    Gen g(ev, ev.prelude_env, 0, loc);
    TypePtr ty = prim_type(t);
    auto gen = std::make_shared<Generated>();
    // Element (v, C): v_0..v_{d-1}, then C row-major (C[k][j] at d + k*d + j).
    auto name = [](int side, int i) { return fmt::format("__adl{}_{}", side, i); };
    int width = d + d * d;
    for (int side = 0; side < 2; ++side) {
      std::vector<PatternPtr> elems;
      for (int i = 0; i < width; ++i) elems.push_back(id_pattern(name(side, i), ty, loc));
      gen->params.push_back(tuple_pattern(std::move(elems), loc));
    }
    auto v = [&](int side, int k) { return g.var(name(side, k), ty); };
    auto c = [&](int side, int k, int j) { return g.var(name(side, d + k * d + j), ty); };
    // (v1, C1) then (v2, C2) = (v2 + C2 v1, C2 C1). Each component is one
    // expression, without let-bindings: the lowering looks names up through
    // its scopes one by one, so thousands of nested lets (d = 16: d^3
    // products) would cost it quadratic time on every call.
    std::vector<ExprPtr> results;
    for (int k = 0; k < d; ++k) {
      ExprPtr s = v(1, k);
      for (int j = 0; j < d; ++j) s = g.bin("+", s, g.bin("*", c(1, k, j), v(0, j), ty), ty);
      results.push_back(s);
    }
    for (int k = 0; k < d; ++k)
      for (int j = 0; j < d; ++j) {
        ExprPtr s = g.bin("*", c(1, k, 0), c(0, 0, j), ty);
        for (int l = 1; l < d; ++l) s = g.bin("+", s, g.bin("*", c(1, k, l), c(0, l, j), ty), ty);
        results.push_back(s);
      }
    gen->body = g.close(0, tuple_of(g, std::move(results)));
    return gen;
  });
  auto cl = std::make_shared<Callable>();
  cl->kind = Callable::Kind::Closure;
  cl->params = &out->params;
  cl->body = out->body.get();
  cl->env = ev.prelude_env;
  cl->keep = out;
  return Value::function(cl);
}

}  // namespace thorn::eval::ad

namespace thorn::eval::ad {

using namespace detail;

Value flipped_operator(const Callable& f) {
  if (f.kind != Callable::Kind::Closure || !f.params || f.params->size() != 2 || !f.body)
    throw Unsupported("an operator of other than two parameters");
  auto out = memoised(variant_key("flip", f, {}, {}, false), &f, [&] {
    auto gen = std::make_shared<Generated>();
    gen->params = {(*f.params)[1], (*f.params)[0]};
    gen->body = body_ptr(f);
    gen->source = f.keep;
    return gen;
  });
  return make_closure(f, out, f.env);
}

}  // namespace thorn::eval::ad
