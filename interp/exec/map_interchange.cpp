// Loop interchange of a map around a loop (see interchange.hpp).
#include "interp/exec/map_interchange.hpp"

#include <memory>
#include <set>

#include <fmt/format.h>

#include "interp/eval/scalar_ops.hpp"
#include "interp/eval/value_ops.hpp"
#include "interp/exec/host_program.hpp"
#include "interp/util/error.hpp"
#include "interp/exec/closure_rewrite.hpp"

namespace thorn::exec {

namespace {

using namespace rewrite;

// `loop pat = init for i < n do body` or `for x in xs`, possibly under attributes.
const Expr* loop_of(const Expr* body) {
  body = strip_attrs(body);
  if (!body || body->kind != Expr::Kind::Loop || body->params.empty()) return nullptr;
  if (body->loop_form == Expr::LoopForm::ForIn && !body->pattern) return nullptr;
  if (body->loop_form == Expr::LoopForm::While) return nullptr;
  return body;
}

// `loop x for ...` (no initial value) where x is parameter k of the
// lambda: the initial states are input k itself. -1 otherwise.
int shorthand_input(const std::vector<PatternPtr>& params, const Expr& loop) {
  const Pattern& lp = unascribed(*loop.params[0]);
  if (lp.kind != Pattern::Kind::Id) return -1;
  for (size_t k = 0; k < params.size(); ++k) {
    const Pattern& p = unascribed(*params[k]);
    if (p.kind == Pattern::Kind::Id && p.name == lp.name) return int(k);
  }
  return -1;
}

}  // namespace

Interchange try_interchange(const exec::SoacCall& call, eval::Evaluator& ev, int64_t n) {
  Interchange out;
  const Value& fv = call.args.at(0);
  if (fv.kind != Value::Kind::Function || !fv.fn || fv.fn->kind != Callable::Kind::Closure || !fv.fn->params ||
      !fv.fn->body || fv.fn->intrinsic_alias())
    return out;
  const Callable& fn = *fv.fn;
  size_t nin = call.args.size() - 1;
  if (fn.params->size() != nin) return out;
  const Expr* loop = loop_of(fn.body);
  if (!loop) return out;
  int init_input = loop->a ? -1 : shorthand_input(*fn.params, *loop);
  if (!loop->a && init_input < 0) return out;
  std::set<std::string> elem_names;
  for (const PatternPtr& p : *fn.params) pattern_names(*p, elem_names);
  // Size parameters (`[b] ... for m < b`) are bound by each element's call
  // from its arguments' shapes: not in the closure's environment.
  if (fn.type_params)
    for (const TypeParam& tp : *fn.type_params)
      if (tp.is_size) elem_names.insert(tp.name);
  std::string where = fmt::format("map-around-loop at {}", call.loc.str());
  const bool for_in = loop->loop_form == Expr::LoopForm::ForIn;
  if (!for_in && mentions(*loop->c, elem_names)) {
    out.note = where + ": loop kept sequential inside each element (its trip count depends on the element)\n";
    return out;
  }
  if (!for_in && elem_names.count(loop->loop_var)) return out;  // the loop variable shadows a parameter: keep it simple
  Mode m = mode_from_env("THORN_INTERCHANGE");
  std::string width;
  int64_t lanes = parallel_width(ev, host::kLanes, &width);
  std::string inner = inner_parallelism(*loop->b, fn.env);
  std::string why;
  bool interchange = false;
  if (m == Mode::Never) {
    why = "THORN_INTERCHANGE=never";
  } else if (m == Mode::Always) {
    interchange = true;
    why = "THORN_INTERCHANGE=always";
  } else if (inner.empty()) {
    why = "the loop body has no inner parallelism";
  } else if (n >= lanes) {
    why = fmt::format("outer size {} fills the {}", n, width);
  } else {
    interchange = true;
    why = fmt::format("outer size {} < {} and the loop body has inner parallelism ({})", n, width, inner);
  }
  if (!interchange) {
    out.note = where + ": loop kept sequential inside each element (" + why + ")\n";
    return out;
  }
  auto run_map = [&](Value f, std::vector<Value> arrays) {
    exec::SoacCall c;
    c.kind = exec::SoacKind::Map;
    c.loc = call.loc;
    c.result_type = call.result_type;  // the loop state's array type, as the map's own
    c.args.push_back(std::move(f));
    for (Value& a : arrays) c.args.push_back(std::move(a));
    Value r = exec::dispatch(c, ev);
    materialise(r);  // else each step would inline the previous one's producer
    return r;
  };
  std::vector<Value> xs(call.args.begin() + 1, call.args.end());
  // The trip count: a bound in the closure's environment (it names no
  // parameter), or the length of each element's array for `for x in xs`,
  // whose [n][len] rows are computed first and must all be as long.
  Value bound, rows;
  int64_t trips = 0;
  if (for_in) {
    try {
      rows = run_map(closure(fn, fn.params, loop->c.get(), fn.env), xs);
    } catch (const Error& e) {
      if (!irregular_array_error(e)) throw;
      out.note = where + ": loop kept sequential inside each element (its arrays differ in length)\n";
      return out;
    }
    if (rows.kind != Value::Kind::Array || rows.arr().shape.size() < 2) return Interchange{};
    trips = rows.arr().shape[1];
  } else {
    bound = ev.eval(*loop->c, eval::Ctx{fn.env, fn.tenv});
    if (bound.kind != Value::Kind::Scalar || !is_integral(bound.scalar.type)) return Interchange{};
    trips = bound.scalar.as_i64();
  }
  Value accs = loop->a ? run_map(closure(fn, fn.params, loop->a.get(), fn.env), xs) : xs.at(size_t(init_input));
  // The lambda's parameters, then the loop pattern, which shadows them as in the original.
  std::vector<PatternPtr> list = *fn.params;
  list.push_back(loop->params[0]);
  if (for_in) list.push_back(loop->pattern);  // then each element's x, column t of the rows
  std::shared_ptr<const std::vector<PatternPtr>> params = stable_params(loop, list);
  for (int64_t t = 0; t < trips; ++t) {
    eval::EnvPtr env = fn.env;
    std::vector<Value> args = xs;
    args.push_back(accs);
    if (for_in) {
      eval::IndexValue all, at;
      all.is_slice = true;
      at.index = t;
      args.push_back(eval::index_array(rows.arr(), {all, at}));
    } else {
      eval::Binding b;
      b.value = Value(eval::scalar_convert(Scalar::i64(t), bound.scalar.type));
      env = eval::extend(fn.env, {{loop->loop_var, std::move(b)}});
    }
    accs = run_map(closure(fn, params.get(), loop->b.get(), env, params), std::move(args));
  }
  out.note = fmt::format("{}: loop interchanged ({}): {} iterations, each one flattened map over {} elements\n", where,
                         why, trips, n);
  out.value = std::move(accs);
  return out;
}

}  // namespace thorn::exec
