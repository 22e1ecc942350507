// Map distribution (see distribute.hpp).
#include "interp/exec/map_distribute.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "interp/exec/host_gpu.hpp"
#include "interp/exec/host_program.hpp"
#include "interp/exec/closure_rewrite.hpp"
#include "interp/exec/map_distribute_body.hpp"
#include "interp/flatten/planner.hpp"
#include "interp/util/error.hpp"

namespace thorn::exec {

namespace {

using namespace rewrite;

// One `let pattern = value` of the body, with the names it binds; or a
// local function defined among the lets (`fun`: the LetFun node, `value`
// its body, `names` its name).
struct LetPart {
  PatternPtr pattern;
  const Expr* value;
  std::set<std::string> names;
  const Expr* fun = nullptr;
  ExprPtr owner;  // value's node, owned (null for a pipeline's stages)
};

// An earlier step's result: its pattern and the array of its values.
struct Bound {
  PatternPtr pattern;
  std::set<std::string> names;
  Value array;
};

// Distribution nests through the rules' own maps; a recursive function
// could otherwise unfold without end at plan time.
thread_local int depth = 0;
constexpr int kMaxDepth = 8;

// Rows of a map of maps per host thread past which the map is not
// distributed on the host (try_distribute).
constexpr int64_t kRowsPerThread = 8;

struct DepthGuard {
  DepthGuard() { ++depth; }
  ~DepthGuard() { --depth; }
};

// Arrays (or a type not known here: a type parameter) in t, also in the
// payloads of a sum's constructors.
bool has_array(const TypePtr& t) {
  return !t || any_part(t, [](const Type& x) {
           if (x.kind == Type::Kind::Sum) {
             for (const auto& c : x.constructors)
               for (const TypePtr& p : c.second)
                 if (has_array(p)) return true;
             return false;
           }
           return x.kind == Type::Kind::Array || x.kind == Type::Kind::Param;
         });
}

// An array size in t that no name or formula gives (`take k xs` with k
// computed per element): mapped, the rows may differ in length.
bool has_unknown_size(const TypePtr& t) {
  return any_part(t, [](const Type& x) {
    if (x.kind != Type::Kind::Array) return false;
    for (const Dim& d : x.dims)
      if (d.kind == Dim::Kind::Unknown && !d.formula) return true;
    return false;
  });
}

// A map or scan (`map f xs`, `xs |> scan op ne`): its result has the size
// of its input.
bool size_preserving(const Expr& e0) {
  static const std::set<std::string> soacs = {"map", "map2", "map3", "map4", "map5", "scan"};
  const Expr* e = strip_attrs(&e0);
  if (is_pipe(e)) e = strip_attrs(e->b.get());
  if (e->kind != Expr::Kind::Apply || !e->a) return false;
  const Expr* f = strip_attrs(e->a.get());
  return f->kind == Expr::Kind::Var && f->name.qualifiers.empty() && soacs.count(f->name.name);
}

// A sum in t: mapped per element it would be an array of sums, which the
// evaluator boxes and the flattener cannot take as an input.
bool has_sum(const TypePtr& t) {
  return any_part(t, [](const Type& x) { return x.kind == Type::Kind::Sum; });
}

bool has_param(const TypePtr& t) {
  return any_part(t, [](const Type& x) { return x.kind == Type::Kind::Param; });
}

// Whether a value holds arrays (a function's captured arrays aside: a
// function is the same for every element when its expression is).
bool value_has_array(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Array: return true;
    case Value::Kind::Tuple:
    case Value::Kind::Record:
    case Value::Kind::Sum:
      if (v.elems)
        for (const Value& x : *v.elems)
          if (value_has_array(x)) return true;
      return false;
    default: return false;
  }
}

bool has_function(const TypePtr& t) {
  return any_part(t, [](const Type& x) { return x.kind == Type::Kind::Function; });
}

// An array of tuples or records with array components (initOperator's
// rows of ([3]f32, [3]f32)): as an array of rows the flattener cannot hold
// it, while inside each element it is private arrays.
bool tuples_of_arrays(const TypePtr& t) {
  return any_part(t, [](const Type& x) {
    return x.kind == Type::Kind::Array &&
           (x.elem->kind == Type::Kind::Tuple || x.elem->kind == Type::Kind::Record) && has_array(x.elem);
  });
}

// Whether e is cheap to compute again wherever its value is read: no
// calls, no loops. A delayed array of such values is fused into its one
// consumer; anything else is computed once into memory.
bool cheap(const Expr& e) {
  return !any_subexpr(e, [](const Expr& x) { return x.kind == Expr::Kind::Apply || x.kind == Expr::Kind::Loop; });
}

// `map f xs` or `mapN f ...` by name: a candidate for map_of_map.
bool is_map_call(const Expr& e) {
  if (e.kind != Expr::Kind::Apply || !e.a || e.a->kind != Expr::Kind::Var || e.list.size() < 2) return false;
  const std::string& name = e.a->name.name;
  return name == "map" || (name.size() == 4 && name.compare(0, 3, "map") == 0 && name[3] >= '1' && name[3] <= '5');
}

bool is_closure(const Value& v) {
  return v.kind == Value::Kind::Function && v.fn && v.fn->kind == Callable::Kind::Closure && v.fn->params &&
         v.fn->body;
}

class Distributor {
 public:
  // fn: the mapped function (call.args[0], or its closure_of_partial).
  Distributor(const exec::SoacCall& call, eval::Evaluator& ev, const Callable& fn)
      : call_(call), ev_(ev), fn_(fn), xs_(call.args.begin() + 1, call.args.end()) {
    for (const PatternPtr& p : *fn_.params) pattern_names(*p, elem_names_);
    env_ = with_sizes();
    steps_env_ = fn_.env;
  }

  // The body's lets, one map each; nullopt (nothing run) when some let
  // cannot be distributed.
  std::optional<Value> lets(const std::vector<LetPart>& parts, const Expr& result, const ExprPtr& result_owner,
                            std::string& how) {
    // Sizes named by the element's parameters are the same for every
    // element in practice; if not, the step reports an irregular array
    // (caught in try_distribute). Sizes bound by the body's own lets are
    // checked here, before anything runs.
    // A size the type leaves unknown is the same in every element when the
    // let maps or scans arrays of the element (`map f xs`, `xs |> scan op
    // ne`, xs a parameter `[]t`); any other (a filter's, a slice's) may
    // differ, and such a let is not distributed. A let that makes rows of
    // different sizes anyway is caught when it runs, and its site is not
    // distributed again (irregular_sites).
    // Only local functions that name the element before the result: one
    // map of the whole body, which the planner takes as it is.
    if (std::all_of(parts.begin(), parts.end(), [](const LetPart& l) { return l.fun != nullptr; })) return std::nullopt;
    std::set<std::string> inner;
    for (const LetPart& l : parts) {
      if (l.fun) continue;
      // The function's type parameters as this call instantiates them
      // (by_key_wrapper's `[n](k, i64)` with k = f32 is no array of tuples
      // of arrays).
      const TypePtr t = eval::resolve_type(l.value->type, fn_.tenv, nullptr);
      const char* why = !t                        ? "has no type"
                        : has_function(t)         ? "holds functions"
                        : sized_by(t, inner)      ? "has a size bound by an earlier let"
                        : tuples_of_arrays(t)     ? "is an array of tuples of arrays"
                        : has_unknown_size(t) && !size_preserving(*l.value)
                            ? "has a size that may differ between elements"
                            : nullptr;
      if (why) {
        how = fmt::format("the let of {} ({}) {}", l.names.empty() ? std::string("_")
                                          : join(std::vector<std::string>(l.names.begin(), l.names.end())),
                          l.value->loc.str(), why);
        return std::nullopt;
      }
      inner.insert(l.names.begin(), l.names.end());
    }
    std::vector<Bound> bound;
    std::vector<std::string> steps;
    // What each let (and the result) names, walked once: asked of every
    // earlier let's names, the walks were quadratic in the lets, at every
    // call (rodinia/cfd: 24 lets per time step, 2000 steps).
    std::vector<std::set<std::string>> used;
    for (const LetPart& l : parts) used.push_back(mentioned_names(*l.value));
    used.push_back(mentioned_names(result));
    std::set<std::string> varying = elem_names_;
    std::vector<std::string> hoisted;
    // Bound once for every element: in env_, which has the element's
    // sizes (the same in every element of a regular array: what is bound
    // here may name them), and in the steps' environment.
    auto bind_once = [&](std::vector<std::pair<std::string, eval::Binding>> frame) {
      for (const auto& b : frame) hoisted.push_back(b.first);
      steps_env_ = eval::extend(steps_env_, frame);
      env_ = eval::extend(env_, std::move(frame));
    };
    // Local functions that name the element's values: defined again in
    // each step that reads them (with_local_functions).
    std::vector<size_t> local_funs;
    // A step's expression, and what it names, with the local functions it
    // reads (also through each other) around it.
    auto wrapped = [&](const Expr& value, const ExprPtr& owner, std::set<std::string>& names) -> const Expr* {
      std::vector<const Expr*> funs;
      for (size_t j = local_funs.size(); j-- > 0;) {
        const LetPart& f = parts[local_funs[j]];
        if (!mentions_any(names, f.names)) continue;
        funs.insert(funs.begin(), f.fun);
        names.insert(used[local_funs[j]].begin(), used[local_funs[j]].end());
      }
      if (funs.empty()) return &value;
      if (!owner) return nullptr;
      return with_local_functions(owner, funs);
    };
    for (size_t k = 0; k < parts.size(); ++k) {
      const LetPart& l = parts[k];
      if (l.fun) {
        if (mentions_any(used[k], varying)) {
          local_funs.push_back(k);
          varying.insert(l.names.begin(), l.names.end());
        } else {
          // Naming nothing the element varies in: bound once.
          bind_once({{*l.names.begin(), local_function(*l.fun, env_, fn_.tenv)}});
        }
        continue;
      }
      // A let that names nothing of the element nor of the lets mapped
      // before it is the same for every element (radix_sort's `iters`, a
      // loop's trip count): computed once and bound in the steps'
      // environment, not mapped, so that what reads it sees one value.
      // Scalars only: an array the element goes on to update in place
      // (`let a = iota 6 let a[x] = ..`) must be each element's own.
      if (!has_array(l.value->type) && !mentions_any(used[k], varying) && !mentions_any(l.names, varying)) {
        std::vector<std::pair<std::string, eval::Binding>> frame;
        if (ev_.bind_pattern(*l.pattern, ev_.eval(*l.value, eval::Ctx{env_, fn_.tenv}), frame, nullptr,
                             eval::Ctx{env_, fn_.tenv})) {
          bind_once(std::move(frame));
          continue;
        }
      }
      varying.insert(l.names.begin(), l.names.end());
      const Expr* e = wrapped(*l.value, l.owner, used[k]);
      if (!e) {
        how = "a local function read by a pipeline's stage";
        return std::nullopt;
      }
      Value r = step(*e, bound, &used[k]);
      // Read again by several later steps, or costly: computed once.
      int uses = 0;
      for (size_t j = k + 1; j <= parts.size(); ++j) uses += mentions_any(used[j], l.names);
      if (uses > 1 || !cheap(*l.value)) materialise(r);
      bound.push_back({l.pattern, l.names, std::move(r)});
      std::string s = inner_parallelism(*l.value);
      steps.push_back(s.empty() ? "scalar code" : s);
    }
    const Expr* last = wrapped(result, result_owner, used.back());
    if (!last) {
      how = "a local function read by a pipeline's result";
      return std::nullopt;
    }
    Value r = step(*last, bound, &used.back());
    std::string s = inner_parallelism(result);
    steps.push_back(s.empty() ? "scalar code" : s);
    how = fmt::format("{} maps, one per let ({})", steps.size(), join(steps));
    if (!hoisted.empty())
      how += fmt::format("; {} the same for every element, computed once", join(hoisted));
    return r;
  }

  // `f e1 ... ek` with f a user function of k parameters, the same for
  // every element: the arguments mapped, then `map f`.
  std::optional<Value> call_of(const Expr& call, std::string& how) {
    // `x |> f a b` (a pipeline's stage) is the call `f a b x`.
    Expr piped;
    if (const Expr* p = strip_attrs(&call); is_pipe(p)) {
      const Expr* g = strip_attrs(p->b.get());
      piped.kind = Expr::Kind::Apply;
      piped.loc = p->loc;
      if (g->kind == Expr::Kind::Apply && g->a) {
        piped.a = g->a;
        piped.list = g->list;
      } else {
        piped.a = p->b;
      }
      piped.list.push_back(p->a);
    }
    const Expr& apply = piped.a ? piped : call;
    if (apply.kind != Expr::Kind::Apply || !apply.a || mentions(*apply.a, elem_names_)) return std::nullopt;
    Value f = ev_.eval(*apply.a, eval::Ctx{env_, fn_.tenv});
    if (!is_closure(f) || f.fn->intrinsic_alias() || f.fn->self.lock() || f.fn->params->size() != apply.list.size())
      return std::nullopt;
    // Only a body of lets (or a pipeline, distributed stage by stage)
    // gains: a body that is one SOAC is planned as well without its
    // arguments mapped first.
    // (Local functions at its head are bound once when they name nothing
    // of the element: without_invariant_local_functions.)
    // A body that calls another function (radix_sort_float, after its
    // local get_bit', calls radix_sort) is inlined too: the call is
    // distributed in turn.
    const Expr* body = strip_attrs(f.fn->body);
    std::set<std::string> local;  // not bound in the callee's environment
    for (const PatternPtr& pp : *f.fn->params) pattern_names(*pp, local);
    while (body->kind == Expr::Kind::LetFun && body->b) {
      local.insert(body->name.name);
      body = strip_attrs(body->b.get());
    }
    // Not a SOAC or other intrinsic (`sum` is `reduce (+) 0`): planned as
    // well without its arguments mapped first.
    bool forwards = body->kind == Expr::Kind::Apply && body->a && body->a->kind == Expr::Kind::Var &&
                    !(body->a->name.qualifiers.empty() && local.count(body->a->name.name));
    if (forwards) {
      Value g = ev_.eval(*body->a, eval::Ctx{f.fn->env, f.fn->tenv});
      forwards = is_closure(g) && !g.fn->intrinsic_alias();
    }
    // A loop is offered to map-loop interchange once inlined.
    if (!(body->kind == Expr::Kind::Let || body->kind == Expr::Kind::Loop || is_map_call(*body) || is_pipe(body) ||
          forwards) ||
        inner_parallelism(*body, f.fn->env).empty())
      return std::nullopt;
    const Callable& callee = *f.fn;
    // A function that differs per element cannot be an array's element.
    for (size_t k = 0; k < apply.list.size(); ++k) {
      const PatternPtr& pp = (*callee.params)[k];
      if (!pp->type || (has_function(pp->type) && (mentions(*apply.list[k], elem_names_) || unascribed(*pp).kind != Pattern::Kind::Id)))
        return std::nullopt;
    }
    // A tuple argument written out for a tuple parameter (`value (n, m, x)`)
    // is taken component by component, so that its invariant parts are
    // bound once even when another part varies.
    std::vector<std::pair<PatternPtr, const Expr*>> pairs;
    std::function<void(const PatternPtr&, const Expr*)> split = [&](const PatternPtr& pp, const Expr* e) {
      const Pattern& p = unascribed(*pp);
      const Expr* x = strip_attrs(e);
      if (p.kind == Pattern::Kind::Tuple && x->kind == Expr::Kind::Tuple && p.elems.size() == x->list.size()) {
        for (size_t k = 0; k < p.elems.size(); ++k) split(p.elems[k], x->list[k].get());
        return;
      }
      pairs.emplace_back(pp, e);
    };
    for (size_t k = 0; k < apply.list.size(); ++k) split((*callee.params)[k], apply.list[k].get());
    std::vector<PatternPtr> varying;
    std::vector<std::pair<std::string, eval::Binding>> fixed;
    std::vector<Value> args;
    for (const auto& [pp, ep] : pairs) {
      const Expr& e = *ep;
      // Without arrays (scalars, tuples of them, functions) and naming
      // nothing of the element: the same for every element, bound once in
      // the function's environment by the evaluator's own pattern matching
      // instead of mapped (a size such as `n` in `iota n` stays a constant
      // of the plan).
      // A parameter whose type is a type parameter (by_key_wrapper's
      // unannotated num_bits) is judged by the argument's value.
      if (!mentions(e, elem_names_)) {
        const TypePtr t = eval::resolve_type(pp->type, callee.tenv, nullptr);
        std::optional<Value> v;
        if (has_array(t) && has_param(t)) v = ev_.eval(e, eval::Ctx{env_, fn_.tenv});
        if (!has_array(t) || (v && !value_has_array(*v))) {
          ev_.bind_pattern(*pp, v ? std::move(*v) : ev_.eval(e, eval::Ctx{env_, fn_.tenv}), fixed, nullptr,
                           eval::Ctx{callee.env, callee.tenv});
          continue;
        }
      }
      if (has_sum(pp->type)) return std::nullopt;  // it would be an array of sums
      varying.push_back(pp);
      args.push_back(argument(e));
    }
    if (args.empty()) return std::nullopt;  // the same call for every element
    how = fmt::format("the call of {} inlined: its arguments mapped{}, then map {}", callee.describe(),
                      fixed.empty() ? "" : fmt::format(" ({} the same for every element)", fixed.size()),
                      callee.describe());
    if (fixed.empty() && pairs.size() == callee.params->size()) return run_map(std::move(f), std::move(args));
    Value g = closure_over(callee, callee.params, varying, callee.body, eval::extend(callee.env, std::move(fixed)));
    return run_map(std::move(g), std::move(args));
  }

  // `map g e1 ... ek`: over the rows flattened, then unflattened. A g that
  // names the element (a lambda capturing its values) gets them as
  // parameters, each element's values repeated for its m inner elements
  // (delayed: read where used, never copied).
  // Whether `apply` is `map g e1 ... ek` (map_of_map's shape).
  bool is_map_of_map(const Expr& apply) {
    if (apply.kind != Expr::Kind::Apply || !apply.a || apply.list.size() < 2) return false;
    if (mentions(*apply.a, elem_names_)) return false;
    Value head = ev_.eval(*apply.a, eval::Ctx{env_, fn_.tenv});
    return is_closure(head) && head.fn->intrinsic_alias() == "map" && head.fn->params->size() == apply.list.size();
  }

  // Whether `apply` is a map of maps whose inner function reduces and
  // otherwise only maps (`map (\b -> f64.sum (map2 (*) a b)) B`: a row of
  // a product), also in the functions it calls. Without a reduction the
  // rows would be built one per element, which the host runs best
  // distributed (LocVolCalib's stencils per option: 16 rows of 32768
  // elements each); loops, scans, histograms and scatters as well
  // (LocVolCalib's tridiagonal solves).
  bool is_map_of_reductions(const Expr& apply) {
    if (!is_map_of_map(apply)) return false;
    const Expr& fe = *strip_attrs(apply.list[0].get());
    static const std::set<std::string> sequential_work = {
        "scan", "scan_comm", "reduce_by_index", "hist", "scatter", "scatter_2d", "scatter_3d", "filter",
        "partition", "partition2", "foldl", "foldr", "while"};
    static const std::set<std::string> reductions = {"reduce", "reduce_comm", "sum", "product", "maximum", "minimum"};
    bool reduces = false;
    std::function<bool(const Expr&, const eval::EnvPtr&, int)> only_reductions = [&](const Expr& e, const eval::EnvPtr& env,
                                                                                     int depth) {
      return !any_subexpr(e, [&](const Expr& x) {
        if (x.kind == Expr::Kind::Loop) return true;
        if (x.kind != Expr::Kind::Var) return false;
        if (sequential_work.count(x.name.name)) return true;
        if (reductions.count(x.name.name)) reduces = true;
        if (!x.name.qualifiers.empty()) return false;  // f64.sum and the like
        const eval::Binding* b = eval::lookup_value(env, std::string_view(x.name.name));
        if (!b || b->value.kind != Value::Kind::Function || !b->value.fn) return false;
        const Callable& f = *b->value.fn;
        if (f.kind != Callable::Kind::Closure || !f.body || f.intrinsic_alias() || &f == &fn_) return false;
        return depth == 0 || !only_reductions(*f.body, f.env, depth - 1);
      });
    };
    return only_reductions(fe, fn_.env, 4) && reduces;
  }

  std::optional<Value> map_of_map(const Expr& apply, std::string& how) {
    if (!is_map_of_map(apply)) return std::nullopt;
    const Expr& fe = *strip_attrs(apply.list[0].get());
    const bool captures = mentions(fe, elem_names_);
    Value g;
    if (captures) {
      if (fe.kind != Expr::Kind::Lambda || !fe.a || fe.params.size() != apply.list.size() - 1 ||
          inner_parallelism(*fe.a, fn_.env).empty())
        return std::nullopt;
    } else {
      g = ev_.eval(fe, eval::Ctx{env_, fn_.tenv});
      if (!is_closure(g) || g.fn->intrinsic_alias() || inner_parallelism(*g.fn->body, g.fn->env).empty())
        return std::nullopt;
    }
    // Each inner argument: rows (an [n][m]... array mapped over the
    // elements) or, when it does not depend on the element, the one [m]...
    // array every element's inner map takes.
    std::vector<std::pair<Value, bool>> inner;  // (value, the same for every element)
    const int64_t n = xs_.empty() || xs_[0].kind != Value::Kind::Array ? -1 : xs_[0].arr().outer();
    if (n <= 0) return std::nullopt;
    int64_t m = -1;
    for (size_t k = 1; k < apply.list.size(); ++k) {
      const Expr& ae = *apply.list[k];
      Value r;
      bool whole = false;
      if (!mentions(ae, elem_names_)) {
        // Read in place by every element (repeat_whole): copying it once per
        // element made a matmul with fewer rows than lanes copy B per row
        // of A (Futhark's reg-tiling/mmm-tr ran out of memory).
        r = ev_.eval(ae, eval::Ctx{env_, fn_.tenv});
        whole = true;
        if (r.kind != Value::Kind::Array || r.arr().shape.empty()) return std::nullopt;
        materialise(r);  // once: fused, a delayed producer would run at every read
      } else {
        r = argument(ae);
        if (r.kind != Value::Kind::Array || r.arr().shape.size() < 2) return std::nullopt;
      }
      int64_t len = r.arr().shape[whole ? 0 : 1];
      if (m >= 0 && len != m) return std::nullopt;  // the map itself reports it, undistributed
      m = len;
      inner.emplace_back(std::move(r), whole);
    }
    if (m <= 0) return std::nullopt;
    std::vector<Value> args;
    if (captures) {
      // The element's parameters the lambda names (all of them when it
      // names a size parameter, which any of them may give), first, so
      // that the lambda's own shadow them. Only those: a repeat is read
      // where used, but a backend that cannot flatten the map would build
      // each one whole, n*m times an element's values.
      bool sizes = false;
      if (fn_.type_params) {
        std::set<std::string> size_names;
        for (const TypeParam& tp : *fn_.type_params)
          if (tp.is_size) size_names.insert(tp.name);
        sizes = mentions(fe, size_names);
      }
      std::vector<PatternPtr> params;
      for (size_t k = 0; k < xs_.size(); ++k) {
        std::set<std::string> names;
        pattern_names(*(*fn_.params)[k], names);
        if (!sizes && !mentions(fe, names)) continue;
        std::optional<Value> r = flatten::repeat_each(xs_[k], m, call_.loc);
        if (!r) return std::nullopt;
        args.push_back(std::move(*r));
        params.push_back((*fn_.params)[k]);
      }
      params.insert(params.end(), fe.params.begin(), fe.params.end());
      g = closure_over(fn_, &fe, params, fe.a.get(), env_);
    }
    for (auto& [r, whole] : inner) {
      if (!whole) {
        args.push_back(primitive(exec::SoacKind::Flatten, {std::move(r)}));
        continue;
      }
      std::optional<Value> cycled = flatten::repeat_whole(r, n, call_.loc);
      if (!cycled) return std::nullopt;
      args.push_back(std::move(*cycled));
    }
    Value out = run_map(std::move(g), std::move(args));
    how = fmt::format("map of map over [{}][{}]: {} inner maps as one map of {} elements{}", n, m, n, n * m,
                      captures ? ", the element's values repeated for its inner elements" : "");
    return primitive(exec::SoacKind::Unflatten, {Value(Scalar::i64(n)), Value(Scalar::i64(m)), std::move(out)});
  }

  // `if c then a else b` with a SOAC in a branch: the elements split by
  // c, each branch one map over its elements (distributed in turn), the
  // results put back in order. Gathering and merging copy rows: the map is
  // narrow (else it would not be distributed).
  std::optional<Value> branches(const Expr& e, std::string& how) {
    if (e.kind != Expr::Kind::If || !e.a || !e.b || !e.c) return std::nullopt;
    if (inner_parallelism(*e.b, fn_.env).empty() && inner_parallelism(*e.c, fn_.env).empty()) return std::nullopt;
    if (!e.type || has_function(e.type)) return std::nullopt;
    Value conds = step(*e.a, {});
    if (conds.kind != Value::Kind::Array || conds.arr().elem.kind != ElemShape::Kind::Prim) return std::nullopt;
    materialise(conds);
    int64_t n = conds.arr().outer();
    std::vector<int64_t> taken[2];
    for (int64_t i = 0; i < n; ++i) {
      Value c = array_row(conds.arr(), i);
      taken[c.scalar.b ? 0 : 1].push_back(i);
    }
    const Expr* branch[2] = {e.b.get(), e.c.get()};
    if (taken[1].empty() || taken[0].empty()) {
      int k = taken[1].empty() ? 0 : 1;
      how = fmt::format("if with parallel branches: all {} elements take the {} branch", n, k == 0 ? "then" : "else");
      return step(*branch[k], {});
    }
    Value results[2];
    for (int k = 0; k < 2; ++k) {
      std::vector<Value> inputs;
      for (const Value& x : xs_) {
        std::vector<Value> rows;
        for (int64_t i : taken[k]) rows.push_back(array_row(x.arr(), i));
        inputs.push_back(array_from_rows(rows, &x.arr().elem));
      }
      results[k] = step_over(*branch[k], std::move(inputs));
      materialise(results[k]);
    }
    std::vector<Value> rows(static_cast<size_t>(n));
    for (int k = 0; k < 2; ++k)
      for (size_t j = 0; j < taken[k].size(); ++j) rows[size_t(taken[k][j])] = array_row(results[k].arr(), int64_t(j));
    how = fmt::format("if with parallel branches: {} elements take the then branch, {} the else branch, each one map",
                      taken[0].size(), taken[1].size());
    return array_from_rows(rows);
  }

 private:
  // fn_'s environment with its size parameters bound from the first
  // element. Sizes the element's parameters name are the same for every
  // element of a regular array, and what is evaluated once for all
  // elements (`iota n` in `map f (iota n)`, a callee) may name them.
  eval::EnvPtr with_sizes() {
    if (!fn_.type_params || xs_.empty()) return fn_.env;
    eval::Evaluator::SizeScope sizes;
    std::vector<std::pair<std::string, eval::Binding>> frame;
    sizes.frame = &frame;
    for (const TypeParam& tp : *fn_.type_params)
      if (tp.is_size) sizes.to_bind.push_back(tp.name);
    if (sizes.to_bind.empty()) return fn_.env;
    try {
      std::vector<Value> firsts;
      for (size_t k = 0; k < xs_.size() && k < fn_.params->size(); ++k) {
        if (xs_[k].kind != Value::Kind::Array || xs_[k].arr().outer() < 1) return fn_.env;
        firsts.push_back(array_row(xs_[k].arr(), 0));
        ev_.bind_pattern(*(*fn_.params)[k], firsts.back(), frame, &sizes, eval::Ctx{fn_.env, fn_.tenv});
      }
      // As an application binds them: sizes hidden behind type
      // abbreviations (`x: bs [b]`), the hints from where the function was
      // named, then solving.
      ev_.bind_hidden_sizes(fn_, firsts, sizes);
    } catch (const Error&) {
      return fn_.env;  // the map itself reports it
    }
    std::vector<std::pair<std::string, eval::Binding>> bound;
    for (auto& [name, b] : frame)
      if (std::find(sizes.to_bind.begin(), sizes.to_bind.end(), name) != sizes.to_bind.end())
        bound.emplace_back(name, std::move(b));
    return bound.empty() ? fn_.env : eval::extend(fn_.env, std::move(bound));
  }

  // One map of e over the given inputs (in place of the element's).
  Value step_over(const Expr& e, std::vector<Value> inputs) {
    return run_map(closure_over(fn_, &e, *fn_.params, &e, steps_env_), std::move(inputs));
  }

  // One map of e over the elements, with the earlier results e names.
  // `used`: mentioned_names(e), when the caller has it.
  Value step(const Expr& e, const std::vector<Bound>& bound, const std::set<std::string>* used = nullptr) {
    std::vector<PatternPtr> params = *fn_.params;
    std::vector<Value> arrays = xs_;
    for (const Bound& b : bound)
      if (used ? mentions_any(*used, b.names) : mentions(e, b.names)) {
        params.push_back(b.pattern);
        arrays.push_back(b.array);
      }
    return run_map(closure_over(fn_, &e, params, &e, steps_env_), std::move(arrays));
  }

  // An argument expression mapped over the elements; a parameter named
  // alone is its input as it is.
  Value argument(const Expr& e) {
    // The last parameter that binds the name is the one in scope.
    if (e.kind == Expr::Kind::Var && e.name.qualifiers.empty())
      for (size_t k = fn_.params->size(); k-- > 0;) {
        const Pattern& p = *(*fn_.params)[k];
        std::set<std::string> names;
        pattern_names(p, names);
        if (!names.count(e.name.name)) continue;
        if (unascribed(p).kind == Pattern::Kind::Id) return xs_[k];
        break;
      }
    if (std::optional<Value> z = zipped_argument(e)) return std::move(*z);
    Value r = step(e, {});
    materialise(r);
    return r;
  }

  // `zip a b ..` of arrays the element has: their rows zipped as zip makes
  // them (the components side by side, two outer dimensions shared), not
  // a map computing each element's zip, whose rows would be arrays of
  // tuples of arrays, which a flattened map cannot build (Futhark's
  // matmultrepa: `map mul1 (zip a b)` in each element).
  std::optional<Value> zipped_argument(const Expr& e0) {
    const Expr& e = *strip_attrs(&e0);
    if (e.kind != Expr::Kind::Apply || !e.a || e.list.size() < 2 || mentions(*e.a, elem_names_)) return std::nullopt;
    Value head = ev_.eval(*e.a, eval::Ctx{env_, fn_.tenv});
    if (!is_closure(head) || head.fn->intrinsic_alias() != "zip" || head.fn->params->size() != e.list.size())
      return std::nullopt;
    auto out = std::make_shared<ArrayValue>();
    out->elem.kind = ElemShape::Kind::Tuple;
    for (const ExprPtr& x : e.list) {
      Value part = argument(*x);
      if (part.kind != Value::Kind::Array || part.arr().shape.size() < 2) return std::nullopt;
      std::vector<int64_t> outer(part.arr().shape.begin(), part.arr().shape.begin() + 2);
      if (out->shape.empty()) out->shape = outer;
      if (outer != out->shape) return std::nullopt;  // the zip itself reports it, undistributed
      out->elem.children.push_back(part.arr().elem);
      out->components.push_back(part.array);
    }
    return Value::make_array(std::move(out));
  }

  Value run_map(Value f, std::vector<Value> arrays) {
    exec::SoacCall c;
    c.kind = exec::SoacKind::Map;
    c.loc = call_.loc;
    c.args.push_back(std::move(f));
    for (Value& a : arrays) c.args.push_back(std::move(a));
    return exec::dispatch(c, ev_);
  }

  Value primitive(exec::SoacKind kind, std::vector<Value> args) {
    exec::SoacCall c;
    c.kind = kind;
    c.loc = call_.loc;
    c.args = std::move(args);
    return exec::dispatch(c, ev_);
  }

  static std::string join(const std::vector<std::string>& xs) {
    std::string s;
    for (const std::string& x : xs) s += (s.empty() ? "" : ", ") + x;
    return s;
  }

  const exec::SoacCall& call_;
  eval::Evaluator& ev_;
  const Callable& fn_;
  eval::EnvPtr env_;  // with_sizes(), and the lets computed once (lets())
  eval::EnvPtr steps_env_;  // the steps' closures' environment: fn_.env and the lets computed once
  std::vector<Value> xs_;
  std::set<std::string> elem_names_;
};

}  // namespace

// Bodies whose distribution built an irregular intermediate array: their
// lets are run inside each element from then on. Per thread (a worker's
// nested calls distribute too); a stale address only costs a distribution.
std::unordered_set<const Expr*>& irregular_sites() {
  thread_local std::unordered_set<const Expr*> sites;
  if (sites.size() > 4096) sites.clear();
  return sites;
}

bool distributing() { return depth > 0; }

Distribution try_distribute(const exec::SoacCall& call, eval::Evaluator& ev, int64_t n) {
  Distribution out;
  std::optional<Value> saturated = closure_of_partial(call.args.at(0), ev);
  const Value* fvp = saturated ? &*saturated : &call.args.at(0);
  if (!is_closure(*fvp) || fvp->fn->intrinsic_alias() || fvp->fn->self.lock()) return out;
  std::optional<Value> peeled = without_invariant_local_functions(*fvp);
  if (peeled) fvp = &*peeled;
  const Value& fv = *fvp;
  const Callable& fn = *fv.fn;
  if (fn.params->size() != call.args.size() - 1) return out;
  const Expr* body = strip_attrs(fn.body);
  ExprPtr owner;  // body's node, owned, once past the first let
  auto next = [&](const ExprPtr& b) {
    owner = b;
    while (owner && owner->kind == Expr::Kind::Attr) owner = owner->a;
    body = owner.get();
  };
  std::vector<LetPart> parts;
  while (body && (body->kind == Expr::Kind::Let || body->kind == Expr::Kind::LetFun) && body->a && body->b) {
    if (body->kind == Expr::Kind::LetFun) {
      parts.push_back(LetPart{nullptr, body->a.get(), {body->name.name}, body, nullptr});
      next(body->b);
      continue;
    }
    if (!body->pattern) break;
    if (!body->type_params.empty()) return out;  // `let [n] ...`: sizes bound inside the element
    LetPart l{body->pattern, body->a.get(), {}, nullptr, body->a};
    pattern_names(*l.pattern, l.names);
    parts.push_back(std::move(l));
    next(body->b);
  }
  if (!body || body->kind == Expr::Kind::LetFun) return out;
  std::shared_ptr<const PipelineLets> pipeline;
  if (is_pipe(body) && (pipeline = pipeline_lets(body))) {
    for (size_t k = 0; k < pipeline->values.size(); ++k)
      parts.push_back(LetPart{pipeline->patterns[k], pipeline->values[k], {pipeline->patterns[k]->name}, nullptr, nullptr});
    body = pipeline->result;
    owner = nullptr;
  }
  if (depth >= kMaxDepth) return out;
  // A body that is one call (`f a b`, `x |> f a`): the rules look into
  // what it calls.
  const bool one_call = parts.empty() && (body->kind == Expr::Kind::Apply || is_pipe(body));
  if (parts.empty() && !one_call && body->kind != Expr::Kind::If) return out;
  std::string inner = one_call ? "in the function it calls" : inner_parallelism(*strip_attrs(fn.body), fn.env);
  if (inner.empty()) return out;
  std::string where = fmt::format("map at {}", call.loc.str());
  Mode m = mode_from_env("THORN_DISTRIBUTE");
  std::string width;
  // Measured on LocVolCalib (16 options of 255 time steps, 2 threads,
  // native tier): distributed 10.1 s of CPU, kept inside each element
  // 12.6 s. A narrow map leaves the interpreter's lanes empty and gives
  // the native tier's loops little to run in parallel.
  int64_t lanes = parallel_width(ev, host::kLanes, &width);
  std::string why;
  if (m == Mode::Never) {
    out.note = where + ": inner parallelism kept sequential inside each element (THORN_DISTRIBUTE=never)\n";
    return out;
  }
  if (m == Mode::Always) {
    why = "THORN_DISTRIBUTE=always";
  } else if (n >= lanes) {
    if (!parts.empty())
      out.note = fmt::format("{}: inner parallelism ({}) kept sequential inside each element (outer size {} fills the {})\n",
                             where, inner, n, width);
    return out;
  } else if (!parts.empty() && inner_parallelism(*strip_attrs(fn.body), fn.env, false).empty()) {
    // Loops without SOACs in them run sequentially in every let's map just
    // as in the whole element's: one map per let adds calls and
    // intermediate arrays, not parallelism (rodinia/cfd's flux loop over 4
    // neighbours: 24 maps per time step).
    out.note = fmt::format("{}: not distributed (outer size {} < {}, but its inner parallelism is loops without "
                           "SOACs, sequential either way)\n", where, n, width);
    return out;
  } else {
    why = fmt::format("outer size {} < {} and the body has inner parallelism ({})", n, width, inner);
  }
  if (irregular_sites().contains(body)) {
    out.note = where + ": not distributed (an intermediate result was irregular at an earlier call)\n";
    return out;
  }
  DepthGuard guard;
  Distributor d(call, ev, fn);
  // On the host a map of maps is planned row by row, each row's inner map
  // a loop in one element, and a product of rows by columns gets the tiled
  // schedule (plan_tiled.hpp): a few rows per thread already fill the
  // threads. Distributed, the same nest runs as n*m dot products reading
  // both operands through index arithmetic (a 256x1024 by 1024x512 product:
  // 1.29 s against 0.53 s tiled, THORN_NATIVE=sync, 2 threads).
  const int64_t threads = parallel_width(ev, 1, nullptr);
  const bool on_gpu = ev.options().backend == "gpu" && host_gpu::gpu_resident_threads() > 0;
  if (m == Mode::Auto && !on_gpu && parts.empty() && n >= threads * kRowsPerThread && d.is_map_of_reductions(*body)) {
    out.note = fmt::format("{}: inner map of reductions kept inside each element (outer size {} gives each of {} host threads {} rows or more)\n",
                           where, n, threads, kRowsPerThread);
    return out;
  }
  std::string how;
  try {
    if (!parts.empty()) out.value = d.lets(parts, *body, owner, how);
    else if (body->kind == Expr::Kind::If) out.value = d.branches(*body, how);
    else if (!(out.value = d.map_of_map(*body, how))) out.value = d.call_of(*body, how);
  } catch (const Error& e) {
    // An intermediate array of rows of different sizes: the sequential
    // form never builds it. Anything else is the program's own error.
    if (!irregular_array_error(e)) throw;
    irregular_sites().insert(body);
    out.value.reset();
    out.note = where + ": not distributed (an intermediate result is irregular)\n";
    return out;
  }
  if (out.value) out.note = fmt::format("{}: distributed ({}): {}\n", where, why, how);
  else if (!how.empty()) out.note = fmt::format("{}: not distributed ({})\n", where, how);
  return out;
}

}  // namespace thorn::exec
