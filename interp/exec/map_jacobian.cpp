// Jacobians written as a map of derivatives (see map_jacobian.hpp).
#include "interp/exec/map_jacobian.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "interp/eval/ad.hpp"
#include "interp/eval/env.hpp"
#include "interp/exec/closure_rewrite.hpp"

namespace thorn::exec {

namespace {

using namespace rewrite;

// Which of the prelude's derivative functions a function value is.
struct Derivative {
  bool forward = false;  // jvp, jvp2
  bool pair = false;     // jvp2, vjp2: the primal result too
};

// Whether c is the prelude's function `name` (the same code: a module
// that opens the prelude binds copies of its closures).
bool is_prelude(const Callable& c, const char* name, eval::Evaluator& ev) {
  const eval::Binding* b = eval::lookup_value(ev.prelude_env, name);
  if (!b || b->value.kind != Value::Kind::Function || !b->value.fn) return false;
  const Callable& p = *b->value.fn;
  return p.kind == Callable::Kind::Closure && c.kind == Callable::Kind::Closure && p.body == c.body && p.params == c.params;
}

std::optional<Derivative> derivative_of(const Callable& c, eval::Evaluator& ev) {
  if (c.kind != Callable::Kind::Closure) return std::nullopt;
  if (auto alias = c.intrinsic_alias()) {
    if (*alias == "jvp2") return Derivative{true, true};
    if (*alias == "vjp2") return Derivative{false, true};
    return std::nullopt;
  }
  for (const char* name : {"jvp", "vjp"})
    if (is_prelude(c, name, ev)) return Derivative{name[0] == 'j', false};
  return std::nullopt;
}

// `g a b c` (possibly curried, `(g a) b c`) or `c |> g a b`: the function
// and its arguments in order.
const Expr* callee_and_args(const Expr* e, std::vector<ExprPtr>& args) {
  e = strip_attrs(e);
  if (e->kind == Expr::Kind::BinOp && e->name.qualifiers.empty() && e->name.name == "|>" && e->a && e->b) {
    const Expr* f = callee_and_args(e->b.get(), args);
    args.push_back(e->a);
    return f;
  }
  if (e->kind != Expr::Kind::Apply || !e->a) return e;
  const Expr* f = callee_and_args(e->a.get(), args);
  for (const ExprPtr& x : e->list) args.push_back(x);
  return f;
}

// The seed's expression with the element's lets around it, made once per
// derivative call site and kept for good: plans are cached by the
// addresses of the code they run, so the same site must get the same
// nodes every time (and an address must not be reused while a key may
// name it: the entry holds the call site's node alive).
ExprPtr seed_body(const ExprPtr& site, const std::vector<const Expr*>& lets, const ExprPtr& seed) {
  static std::mutex mu;
  static std::map<const Expr*, std::pair<ExprPtr, ExprPtr>> made;  // site -> (site, seed body)
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = made.find(site.get()); it != made.end()) return it->second.second;
  ExprPtr body = seed;
  for (size_t k = lets.size(); k-- > 0;) {
    auto n = std::make_shared<Expr>(*lets[k]);
    n->b = body;
    n->type = seed->type;
    body = n;
  }
  made[site.get()] = {site, body};
  return body;
}

// How a map's function is a derivative at one point with a varying seed.
struct Form {
  Derivative d;
  int part = -1;  // the part of vjp2/jvp2's pair each element takes, if one
  // `vjp f x` itself (the seeds are the mapped array) or composed with a
  // function making the seed: f, x and that function.
  std::optional<Value> f, x, seed_fn;
  // `\p.. -> let .. in vjp f x seed`, possibly partially applied.
  const Callable* lam = nullptr;
  std::vector<Value> held;
  std::vector<const Expr*> lets;
  ExprPtr site;  // the derivative's call, as the last let's body holds it
  std::vector<ExprPtr> args;
};

// `vjp f x` as a value: a partial application of the prelude's function.
std::optional<Form> direct(const Value& g, eval::Evaluator& ev) {
  if (g.kind != Value::Kind::Function || !g.fn || g.fn->kind != Callable::Kind::Partial || !g.fn->fn ||
      g.fn->args.size() != 2)
    return std::nullopt;
  auto d = derivative_of(*g.fn->fn, ev);
  if (!d) return std::nullopt;
  Form form;
  form.d = *d;
  form.f = g.fn->args[0];
  form.x = g.fn->args[1];
  return form;
}

// The lambda form: only the seed may depend on the element.
std::optional<Form> lambda_form(const Callable& fn, size_t nin, eval::Evaluator& ev) {
  Form form;
  const Callable* lam = &fn;
  if (lam->kind == Callable::Kind::Partial && lam->fn) form.held = lam->args, lam = lam->fn.get();
  if (lam->kind != Callable::Kind::Closure || !lam->params || !lam->body || lam->intrinsic_alias()) return std::nullopt;
  if (lam->params->size() != form.held.size() + nin) return std::nullopt;
  form.lam = lam;
  std::set<std::string> bound;  // what the element binds
  for (const PatternPtr& p : *lam->params) pattern_names(*p, bound);
  if (lam->type_params)
    for (const TypeParam& tp : *lam->type_params) bound.insert(tp.name);
  const Expr* body = strip_attrs(lam->body);
  while (body->kind == Expr::Kind::Let || body->kind == Expr::Kind::LetFun) {
    if (body->kind == Expr::Kind::LetFun) bound.insert(body->name.name);
    else if (body->pattern) pattern_names(*body->pattern, bound);
    else return std::nullopt;
    for (const TypeParam& tp : body->type_params) bound.insert(tp.name);
    form.lets.push_back(body);
    form.site = body->b;
    body = strip_attrs(body->b.get());
  }
  // `(vjp2 f x seed).0` or `.1`: one part of the pair.
  if (body->kind == Expr::Kind::Project && body->a) {
    const std::string& field = body->field_path.empty() ? body->name.name : body->field_path[0];
    if (body->field_path.size() > 1 || (field != "0" && field != "1")) return std::nullopt;
    form.part = field == "0" ? 0 : 1;
    body = strip_attrs(body->a.get());
  }
  const Expr* callee = callee_and_args(body, form.args);
  if (form.args.size() != 3 || callee->kind != Expr::Kind::Var) return std::nullopt;
  if (callee->name.qualifiers.empty() && bound.count(callee->name.name)) return std::nullopt;
  const eval::Binding* b = eval::lookup_value(lam->env, callee->name);
  if (!b || b->value.kind != Value::Kind::Function || !b->value.fn) return std::nullopt;
  auto d = derivative_of(*b->value.fn, ev);
  if (!d || (form.part >= 0 && !d->pair)) return std::nullopt;
  if (mentions(*form.args[0], bound) || mentions(*form.args[1], bound)) return std::nullopt;
  form.d = *d;
  return form;
}

// The forms a map of `nin` arrays is recognised in.
std::optional<Form> recognise(const Value& fv, size_t nin, eval::Evaluator& ev) {
  if (fv.kind != Value::Kind::Function || !fv.fn) return std::nullopt;
  // `map (vjp f x) seeds`: the seeds are the mapped array.
  if (nin == 1)
    if (auto form = direct(fv, ev)) return form;
  // `vjp f x <-< seed` or `seed >-> vjp f x` (the prelude's compositions).
  const Callable& c = *fv.fn;
  if (c.kind == Callable::Kind::Partial && c.fn && c.args.size() == 2)
    for (const char* name : {"<-<", ">->"}) {
      if (!is_prelude(*c.fn, name, ev)) continue;
      const bool backward = name[0] == '<';
      if (auto form = direct(c.args[backward ? 0 : 1], ev)) {
        form->seed_fn = c.args[backward ? 1 : 0];
        return form;
      }
    }
  return lambda_form(c, nin, ev);
}

// `tabulate_2d n m g` is `map (g >-> tabulate m) (iota n)`: each row a
// map of `g i` over iota m (tabulate_3d: `g i` over tabulate_2d's
// indices). As one map of g over every tuple of indices, a Jacobian whose
// seeds are indexed in several dimensions is found as above.
Jacobian rows_of_jacobians(const exec::SoacCall& call, eval::Evaluator& ev, int64_t n) {
  const Callable& c = *call.args[0].fn;
  if (call.args.size() != 2 || c.kind != Callable::Kind::Partial || !c.fn || c.args.size() != 2 ||
      !is_prelude(*c.fn, ">->", ev))
    return {};
  const Value& inner = c.args[1];
  if (inner.kind != Value::Kind::Function || !inner.fn || inner.fn->kind != Callable::Kind::Partial || !inner.fn->fn)
    return {};
  const size_t rank = inner.fn->args.size();
  if (!is_prelude(*inner.fn->fn, rank == 1 ? "tabulate" : rank == 2 ? "tabulate_2d" : "", ev)) return {};
  std::vector<int64_t> dims;  // the inner tabulation's sizes
  int64_t inner_count = 1;
  for (const Value& d : inner.fn->args) {
    if (d.kind != Value::Kind::Scalar || d.scalar.as_i64() <= 0) return {};
    dims.push_back(d.scalar.as_i64());
    inner_count *= dims.back();
  }
  if (!recognise(c.args[0], 1 + rank, ev)) return {};
  const Value& xs = call.args[1];
  materialise(xs);
  if (xs.kind != Value::Kind::Array) return {};
  // Columns of (x, j1, .., jr) over every element and inner index, in order.
  std::vector<std::vector<Value>> cols(1 + rank);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t q = 0; q < inner_count; ++q) {
      cols[0].push_back(array_row(*xs.array, i));
      int64_t rest = q;
      for (size_t k = rank; k-- > 0;) {
        cols[1 + k].push_back(Value(Scalar::i64(rest % dims[k])));
        rest /= dims[k];
      }
    }
  exec::SoacCall flat;
  flat.kind = exec::SoacKind::Map;
  flat.loc = call.loc;
  flat.result_type = [] { return TypePtr(); };
  flat.args = {c.args[0]};
  for (const auto& col : cols) flat.args.push_back(array_from_rows(col));
  Jacobian j = try_jacobian(flat, ev, n * inner_count);
  if (!j.value) return {};
  // Rows of the flat result regrouped into n x dims.
  std::vector<Value> level;
  for (int64_t q = 0; q < n * inner_count; ++q) level.push_back(array_row(*j.value->array, q));
  dims.insert(dims.begin(), n);
  for (size_t k = dims.size(); k-- > 1;) {
    std::vector<Value> up;
    for (size_t at = 0; at < level.size(); at += size_t(dims[k]))
      up.push_back(array_from_rows(std::vector<Value>(level.begin() + long(at), level.begin() + long(at + size_t(dims[k])))));
    level = std::move(up);
  }
  j.value = array_from_rows(level);
  return j;
}

// `map g` with g a derivative's form or, in turn, such a map of one.
bool map_of_derivatives(const Value& fv, eval::Evaluator& ev) {
  if (fv.kind != Value::Kind::Function || !fv.fn) return false;
  const Callable& c = *fv.fn;
  if (c.kind != Callable::Kind::Partial || !c.fn || c.args.size() != 1 ||
      !(is_prelude(*c.fn, "map", ev) || is_prelude(*c.fn, "map1", ev)))
    return false;
  return recognise(c.args[0], 1, ev) || map_of_derivatives(c.args[0], ev);
}

// `map (map (vjp f x)) seeds`: the seeds are the rows' elements, one
// Jacobian over all of them (deeper maps in turn).
Jacobian map_of_jacobians(const exec::SoacCall& call, eval::Evaluator& ev, int64_t n) {
  if (call.args.size() != 2 || !map_of_derivatives(call.args[0], ev)) return {};
  const Callable& c = *call.args[0].fn;
  const Value& xs = call.args[1];
  materialise(xs);
  if (xs.kind != Value::Kind::Array || xs.array->shape.size() < 2 || xs.array->shape[1] <= 0) return {};
  const int64_t m = xs.array->shape[1];
  std::vector<Value> elems;
  for (int64_t i = 0; i < n; ++i) {
    Value row = array_row(*xs.array, i);
    for (int64_t j = 0; j < m; ++j) elems.push_back(array_row(*row.array, j));
  }
  exec::SoacCall flat;
  flat.kind = exec::SoacKind::Map;
  flat.loc = call.loc;
  flat.result_type = [] { return TypePtr(); };
  flat.args = {c.args[0], array_from_rows(elems)};
  Jacobian j = try_jacobian(flat, ev, n * m);
  if (!j.value) return {};
  std::vector<Value> rows;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<Value> row;
    for (int64_t k = 0; k < m; ++k) row.push_back(array_row(*j.value->array, i * m + k));
    rows.push_back(array_from_rows(row));
  }
  j.value = array_from_rows(rows);
  return j;
}

}  // namespace

Jacobian try_jacobian(const exec::SoacCall& call, eval::Evaluator& ev, int64_t n) {
  Jacobian out;
  if (n <= 0 || call.args.empty() || call.args[0].kind != Value::Kind::Function || !call.args[0].fn) return out;
  if (Jacobian j = rows_of_jacobians(call, ev, n); j.value) return j;
  if (Jacobian j = map_of_jacobians(call, ev, n); j.value) return j;
  std::optional<Form> form = recognise(call.args[0], call.args.size() - 1, ev);
  if (!form) return out;
  auto run_map = [&](Value fn) {
    exec::SoacCall c;
    c.kind = exec::SoacKind::Map;
    c.loc = call.loc;
    c.result_type = [] { return TypePtr(); };
    c.args.push_back(std::move(fn));
    for (size_t k = 1; k < call.args.size(); ++k) c.args.push_back(call.args[k]);
    return exec::dispatch(c, ev);
  };
  Value f, x, seeds;
  if (form->f) {
    f = *form->f;
    x = *form->x;
    seeds = form->seed_fn ? run_map(*form->seed_fn) : call.args[1];
  } else {
    const Callable& lam = *form->lam;
    eval::Ctx ctx{lam.env, lam.tenv};
    f = ev.eval(*form->args[0], ctx);
    x = ev.eval(*form->args[1], ctx);
    ExprPtr seed = form->lets.empty() ? form->args[2] : seed_body(form->site, form->lets, form->args[2]);
    Value seed_fn = closure_over(lam, seed.get(), *lam.params, seed.get(), lam.env);
    if (!form->held.empty()) {
      auto p = std::make_shared<Callable>();
      p->kind = Callable::Kind::Partial;
      p->loc = call.args[0].fn->loc;
      p->fn = seed_fn.fn;
      p->args = form->held;
      seed_fn = Value::function(p);
    }
    seeds = run_map(std::move(seed_fn));
  }
  materialise(seeds);
  const Derivative& d = form->d;
  // Under --validate the host backend compares the whole map with the
  // reference's map of jvp2/vjp2 (host_backend.cpp).
  eval::ad::ResultCheckedByCaller checked;
  Value r = d.forward ? eval::ad::jmp2(ev, f, x, seeds, call.loc) : eval::ad::mjp2(ev, f, x, seeds, call.loc);
  const Value& primal = (*r.elems)[0];
  const Value& derivs = (*r.elems)[1];
  if (d.pair && form->part != 1) {
    // vjp2/jvp2 per element: (the primal, that seed's derivative), or the
    // primal alone.
    std::vector<Value> rows;
    for (int64_t i = 0; i < derivs.array->outer(); ++i)
      rows.push_back(form->part == 0 ? primal : Value::tuple({primal, array_row(*derivs.array, i)}));
    out.value = array_from_rows(rows);
  } else {
    out.value = derivs;
  }
  out.note = fmt::format("map at {}: a Jacobian, {} seeds: {} of the function at one point (vector AD)\n",
                         call.loc.str(), n, d.forward ? "jmp" : "mjp");
  return out;
}

}  // namespace thorn::exec
