// jvp2 and vjp2 (ad.hpp): entering and leaving a differentiation level.
#include "interp/eval/ad.hpp"

#include <functional>
#include <optional>

#include <fmt/format.h>

#include "interp/core/ad_value.hpp"
#include "interp/eval/ad_sweep.hpp"
#include "interp/eval/ad_tape.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/core/value_compare.hpp"
#include "interp/util/error.hpp"

namespace thorn::eval::ad {

namespace {

// f(leaf of x, matching leaf of y or null) -> new leaf. Leaves are scalars
// (plain or carrying derivatives).
using LeafFn = std::function<Value(const Value& x, const Value* y)>;

[[noreturn]] void mismatch(const Loc& loc, const std::string& what) {
  throw Error(ErrorKind::Runtime, loc, fmt::format("automatic differentiation: {}", what));
}

// Element k (flat, row-major) of an array of scalars, in either storage.
Value scalar_at(const ArrayValue& a, int64_t k) {
  if (a.elem.kind == ElemShape::Kind::Prim) return Value(prim_element(a, k));
  return (*a.boxed)[size_t(a.offset + k)];
}

// An array of the given shape from its scalar leaves: primitive storage
// unless some leaf carries a derivative.
ArrayPtr array_of_scalars(std::vector<int64_t> shape, Prim prim, std::vector<Value> leaves) {
  bool boxed = false;
  for (const auto& v : leaves) boxed = boxed || v.kind == Value::Kind::AD;
  auto out = std::make_shared<ArrayValue>();
  out->shape = std::move(shape);
  out->elem.kind = ElemShape::Kind::Boxed;
  out->elem.ad = true;
  out->elem.prim = leaves.empty() ? prim : ad_scalar(leaves[0]).type;
  out->boxed = std::make_shared<const std::vector<Value>>(std::move(leaves));
  if (boxed) return out;
  return unbox_scalars(*out);
}

bool scalar_array(const ArrayValue& a) {
  return a.elem.kind == ElemShape::Kind::Prim || (a.elem.kind == ElemShape::Kind::Boxed && a.elem.ad);
}

Value map_leaves(const Value& x, const Value* y, const LeafFn& f, const Loc& loc);

ArrayPtr map_array(const ArrayValue& x, const ArrayValue* y, const LeafFn& f, const Loc& loc) {
  if (y && y->shape != x.shape)
    mismatch(loc, fmt::format("arrays of shapes {} and {} where the same shape is needed", shape_string(x.shape),
                              shape_string(y->shape)));
  if (scalar_array(x)) {
    if (y && !scalar_array(*y)) mismatch(loc, "values of different structure");
    int64_t n = x.count();
    std::vector<Value> leaves;
    leaves.reserve(size_t(n));
    for (int64_t k = 0; k < n; ++k) {
      Value a = scalar_at(x, k);
      if (y) {
        Value b = scalar_at(*y, k);
        leaves.push_back(f(a, &b));
      } else {
        leaves.push_back(f(a, nullptr));
      }
    }
    return array_of_scalars(x.shape, x.elem.prim, std::move(leaves));
  }
  switch (x.elem.kind) {
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record: {
      if (y && (y->elem.kind != x.elem.kind || y->components.size() != x.components.size()))
        mismatch(loc, "values of different structure");
      auto out = std::make_shared<ArrayValue>();
      out->shape = x.shape;
      out->elem = x.elem;
      out->elem.children.clear();
      for (size_t c = 0; c < x.components.size(); ++c) {
        out->components.push_back(map_array(*x.components[c], y ? y->components[c].get() : nullptr, f, loc));
        out->elem.children.push_back(out->components.back()->elem);
      }
      return out;
    }
    default: {  // boxed sums
      if (y && y->elem.kind != ElemShape::Kind::Boxed) mismatch(loc, "values of different structure");
      int64_t n = x.count();
      std::vector<Value> values;
      values.reserve(size_t(n));
      for (int64_t k = 0; k < n; ++k) {
        const Value& a = (*x.boxed)[size_t(x.offset + k)];
        values.push_back(map_leaves(a, y ? &(*y->boxed)[size_t(y->offset + k)] : nullptr, f, loc));
      }
      auto out = std::make_shared<ArrayValue>();
      out->shape = x.shape;
      out->elem = x.elem;
      out->boxed = std::make_shared<const std::vector<Value>>(std::move(values));
      return out;
    }
  }
}

Value map_leaves(const Value& x, const Value* y, const LeafFn& f, const Loc& loc) {
  switch (x.kind) {
    case Value::Kind::Scalar:
    case Value::Kind::AD:
      if (y && y->kind != Value::Kind::Scalar && y->kind != Value::Kind::AD) mismatch(loc, "values of different structure");
      return f(x, y);
    case Value::Kind::Array:
      if (y && y->kind != Value::Kind::Array) mismatch(loc, "values of different structure");
      return Value::make_array(map_array(*x.array, y ? y->array.get() : nullptr, f, loc));
    case Value::Kind::Tuple:
    case Value::Kind::Record:
    case Value::Kind::Sum: {
      if (y && (y->kind != x.kind || y->elems->size() != x.elems->size() ||
                (x.kind == Value::Kind::Sum && y->constructor() != x.constructor())))
        mismatch(loc, "values of different structure");
      std::vector<Value> elems;
      for (size_t k = 0; k < x.elems->size(); ++k)
        elems.push_back(map_leaves((*x.elems)[k], y ? &(*y->elems)[k] : nullptr, f, loc));
      Value out = x;
      out.elems = std::make_shared<const std::vector<Value>>(std::move(elems));
      return out;
    }
    case Value::Kind::Function: mismatch(loc, "cannot differentiate with respect to a function");
  }
  return x;
}

// The derivative-free zero of a leaf's type.
Value zero_of(const Value& leaf) {
  Scalar s = ad_scalar(leaf);
  if (is_float(s.type)) return Value(Scalar::floating(s.type, 0));
  if (s.type == Prim::Bool) return Value(Scalar::boolean(false));
  return Value(Scalar::signed_int(s.type, 0));
}

bool at_level(const Value& v, uint64_t level) { return v.kind == Value::Kind::AD && v.ad->level == level; }

// Numbers carry derivatives (integers too, as in Futhark); booleans do not.
bool differentiable(const Value& leaf) { return ad_scalar(leaf).type != Prim::Bool; }

// Marks a differentiation level as running for the duration of a scope:
// while one is, SOACs go to the reference backend (dispatch.cpp).
struct LevelScope {
  Evaluator& ev;
  uint64_t level;
  explicit LevelScope(Evaluator& e) : ev(e), level(++e.ad_levels) { ++ev.ad_active; }
  ~LevelScope() { --ev.ad_active; }
};

Value primal_part(const Value& y, uint64_t level, const Loc& loc) {
  return map_leaves(y, nullptr, [&](const Value& v, const Value*) { return at_level(v, level) ? v.ad->primal : v; }, loc);
}

// The array-level rules (ad_sweep.hpp) run on the backend's plans; they
// are used on the host and GPU backends, outside any other jvp/vjp. The
// reference backend keeps the tape: it is the oracle they are checked
// against (--validate compares the two).
bool use_sweep(const Evaluator& ev) { return ev.options().backend != "reference" && ev.ad_active == 0; }

void validate_sweep(Evaluator& ev, const char* what, const Value& got, const Value& tape, const Loc& loc) {
  if (auto diff = compare_value(got, tape, 0, 1e-6))
    throw Error(ErrorKind::Runtime, loc,
                fmt::format("validation: {} by the array-level rules differs from the reference tape: {}", what, *diff));
}

Value tape_jvp2(Evaluator& ev, const Value& f, const Value& x, const Value& x_tangent, const Loc& loc);
Value tape_vjp2(Evaluator& ev, const Value& f, const Value& x, const Value& y_adjoint, const Loc& loc);

}  // namespace

Value jvp2(Evaluator& ev, const Value& f, const Value& x, const Value& x_tangent, const Loc& loc) {
  if (use_sweep(ev)) {
    std::string why;
    if (auto r = sweep_jvp2(ev, f, x, x_tangent, loc, why)) {
      if (ev.options().validate) validate_sweep(ev, "jvp", *r, tape_jvp2(ev, f, x, x_tangent, loc), loc);
      return *r;
    }
  }
  return tape_jvp2(ev, f, x, x_tangent, loc);
}

Value vjp2(Evaluator& ev, const Value& f, const Value& x, const Value& y_adjoint, const Loc& loc) {
  if (use_sweep(ev)) {
    std::string why;
    if (auto r = sweep_vjp2(ev, f, x, y_adjoint, loc, why)) {
      if (ev.options().validate) validate_sweep(ev, "vjp", *r, tape_vjp2(ev, f, x, y_adjoint, loc), loc);
      return *r;
    }
  }
  return tape_vjp2(ev, f, x, y_adjoint, loc);
}

namespace {

Value tape_jvp2(Evaluator& ev, const Value& f, const Value& x, const Value& x_tangent, const Loc& loc) {
  LevelScope scope(ev);
  uint64_t level = scope.level;
  Value input = map_leaves(
      x, &x_tangent,
      [&](const Value& p, const Value* t) {
        // Forward mode gives booleans tangents as well (Futhark's Fwd.hs:
        // `!x` has the derivative x; comparisons give false).
        if (!differentiable(p) && ad_scalar(p).type != Prim::Bool) return p;
        auto d = std::make_shared<ADValue>();
        d->level = level;
        d->prim = ad_scalar(p).type;
        d->primal = p;
        d->tangent = *t;
        return Value::differentiable(std::move(d));
      },
      loc);
  Value y = ev.apply1(f, input, loc);
  Value tangent = map_leaves(
      y, nullptr, [&](const Value& v, const Value*) { return at_level(v, level) ? v.ad->tangent : zero_of(v); }, loc);
  return Value::tuple({primal_part(y, level, loc), tangent});
}

// One recording of f at x on a fresh tape (the caller holds the level's
// LevelScope): x's differentiable scalars are the tape's first nodes.
struct Recording {
  std::shared_ptr<ADTape> tape;
  Value y;
};

Recording record(Evaluator& ev, uint64_t level, const Value& f, const Value& x, const Loc& loc) {
  auto tape = std::make_shared<ADTape>();
  tape->level = level;
  Value input = map_leaves(
      x, nullptr,
      [&](const Value& p, const Value*) {
        if (!differentiable(p)) return p;
        auto d = std::make_shared<ADValue>();
        d->level = tape->level;
        d->prim = ad_scalar(p).type;
        d->primal = p;
        d->tape = tape;
        d->node = tape->add(d->prim, {});
        return Value::differentiable(std::move(d));
      },
      loc);
  Value y = ev.apply1(f, input, loc);
  return Recording{tape, y};
}

// x's adjoint (or tangent) from per-node values: inputs are the tape's
// first nodes, in leaf order.
Value input_values(const Value& x, const std::vector<std::optional<Value>>& per_node, const Loc& loc) {
  int64_t next_input = 0;
  return map_leaves(
      x, nullptr,
      [&](const Value& p, const Value*) {
        if (!differentiable(p)) return zero_of(p);
        int64_t node = next_input++;
        return per_node[size_t(node)] ? *per_node[size_t(node)] : zero_of(p);
      },
      loc);
}

// One return sweep over a recording for the seed y_adjoint: x's adjoint.
// The tape is only read, so many seeds can share one recording (mjp2).
Value backward(const Recording& r, const Value& x, const Value& y_adjoint, const Loc& loc) {
  const auto& tape = r.tape;
  // Seed the results' adjoints, then sweep the tape backwards: every node
  // comes after its operands, so its adjoint is complete when reached.
  std::vector<std::optional<Value>> adjoint(tape->nodes.size());  // none: no contribution yet
  auto add_to = [&](int64_t node, const Value& more) {
    Prim p = tape->nodes[size_t(node)].prim;
    Value m = ad_scalar(more).type == p ? more : convert(more, p);
    std::optional<Value>& a = adjoint[size_t(node)];
    a = a ? binop(BuiltinOp::Add, *a, m) : m;
  };
  map_leaves(
      r.y, &y_adjoint,
      [&](const Value& v, const Value* seed) {
        if (at_level(v, tape->level) && v.ad->tape == tape) add_to(v.ad->node, *seed);
        return v;
      },
      loc);
  for (int64_t i = int64_t(tape->nodes.size()) - 1; i >= 0; --i) {
    if (tape->nodes[size_t(i)].custom) {
      // Copied: the custom derivative's code may append to the tape (an
      // outer level's operations do not, but nothing forbids it).
      auto custom = tape->nodes[size_t(i)].custom;
      custom([&](int64_t k) { return adjoint[size_t(k)]; }, add_to);
    }
    if (!adjoint[size_t(i)]) continue;
    for (const auto& [operand, partial] : tape->nodes[size_t(i)].edges)
      add_to(operand, binop(BuiltinOp::Mul, *adjoint[size_t(i)], partial));
  }
  return input_values(x, adjoint, loc);
}

// Forward mode over a recording: the tape's partials are the linearisation
// of f at x, so a tangent is pushed through them in node order (operands
// first). nullopt when the tape has a custom derivative (with_vjp gives no
// forward rule: f must be differentiated itself) or a reverse-only rule.
std::optional<Value> forward(const Recording& r, const Value& x, const Value& x_tangent, const Loc& loc) {
  const auto& tape = r.tape;
  if (tape->reverse_only) return std::nullopt;
  std::vector<std::optional<Value>> tangent(tape->nodes.size());
  int64_t next_input = 0;
  map_leaves(
      x, &x_tangent,
      [&](const Value& p, const Value* t) {
        if (differentiable(p)) tangent[size_t(next_input++)] = *t;
        return p;
      },
      loc);
  for (size_t i = size_t(next_input); i < tape->nodes.size(); ++i) {
    const auto& node = tape->nodes[i];
    if (node.custom) return std::nullopt;
    std::optional<Value> acc;
    for (const auto& [operand, partial] : node.edges) {
      const auto& t = tangent[size_t(operand)];
      if (!t) continue;
      Value term = binop(BuiltinOp::Mul, partial, ad_scalar(*t).type == node.prim ? *t : convert(*t, node.prim));
      acc = acc ? binop(BuiltinOp::Add, *acc, term) : term;
    }
    tangent[i] = std::move(acc);
  }
  return map_leaves(
      r.y, nullptr,
      [&](const Value& v, const Value*) {
        if (at_level(v, tape->level) && v.ad->tape == tape && tangent[size_t(v.ad->node)])
          return *tangent[size_t(v.ad->node)];
        return zero_of(v);
      },
      loc);
}

Value tape_vjp2(Evaluator& ev, const Value& f, const Value& x, const Value& y_adjoint, const Loc& loc) {
  LevelScope scope(ev);
  Recording r = record(ev, scope.level, f, x, loc);
  Value x_adjoint = backward(r, x, y_adjoint, loc);
  return Value::tuple({primal_part(r.y, scope.level, loc), x_adjoint});
}

// v with arrays in storage of their own (rows of a seed array are views at
// an offset; the plans of a sweep are cached by their inputs' offsets, so
// each seed's views would plan every step again).
Value own_storage(const Value& v) {
  if (v.kind == Value::Kind::Array) return Value::make_array(copy_array(*v.array));
  if ((v.kind == Value::Kind::Tuple || v.kind == Value::Kind::Record) && v.elems) {
    Value r = v;
    auto elems = std::make_shared<std::vector<Value>>();
    for (const Value& e : *v.elems) elems->push_back(own_storage(e));
    r.elems = elems;
    return r;
  }
  return v;
}

std::vector<Value> rows_of(const Value& seeds, const Loc& loc) {
  if (seeds.kind != Value::Kind::Array) mismatch(loc, "the seeds of jmp/mjp are not an array");
  std::vector<Value> rows;
  for (int64_t i = 0; i < seeds.array->outer(); ++i) rows.push_back(own_storage(array_row(*seeds.array, i)));
  return rows;
}

}  // namespace

thread_local int g_checked_by_caller = 0;

// Vector AD. mjp2: one forward sweep, one return sweep per seed. On the
// host/GPU backends the array-level sweep does that (ad_sweep.hpp); else
// (or where it has no rule) one recording on the tape, swept once per seed.
// Either way the primal runs once, not once per seed as a map of vjp2
// would.
ResultCheckedByCaller::ResultCheckedByCaller() { ++g_checked_by_caller; }
ResultCheckedByCaller::~ResultCheckedByCaller() { --g_checked_by_caller; }

Value mjp2(Evaluator& ev, const Value& f, const Value& x, const Value& y_adjoints, const Loc& loc) {
  std::vector<Value> seeds = rows_of(y_adjoints, loc);
  auto tape_run = [&]() {
    LevelScope scope(ev);
    Recording r = record(ev, scope.level, f, x, loc);
    std::vector<Value> xbars;
    for (const auto& s : seeds) xbars.push_back(backward(r, x, s, loc));
    return std::make_pair(primal_part(r.y, scope.level, loc), xbars);
  };
  std::optional<std::pair<Value, std::vector<Value>>> got;
  if (use_sweep(ev)) {
    std::string why;
    got = sweep_mjp2(ev, f, x, seeds, loc, why);
    if (got && ev.options().validate && !g_checked_by_caller) {
      auto ref = tape_run();
      for (size_t k = 0; k < seeds.size(); ++k)
        validate_sweep(ev, "mjp", got->second[k], ref.second[k], loc);
    }
  }
  if (!got) got = tape_run();
  return Value::tuple({got->first, array_from_rows(got->second)});
}

// jmp2: forward mode for many seeds. On the host/GPU backends one
// array-level jvp per seed (a tangent is computed along with the walk); on
// the tape one recording whose partials carry every seed's tangent
// forward, the primal run once (a loop of jvp2 where the tape has a custom
// derivative).
Value jmp2(Evaluator& ev, const Value& f, const Value& x, const Value& x_tangents, const Loc& loc) {
  std::vector<Value> seeds = rows_of(x_tangents, loc);
  if (use_sweep(ev)) {
    std::vector<Value> ys;
    std::optional<Value> y;
    std::string why;
    for (const auto& s : seeds) {
      auto r = sweep_jvp2(ev, f, x, s, loc, why);
      if (!r) break;
      if (ev.options().validate && !g_checked_by_caller) validate_sweep(ev, "jmp", *r, tape_jvp2(ev, f, x, s, loc), loc);
      if (!y) y = (*r->elems)[0];
      ys.push_back((*r->elems)[1]);
    }
    if (y && ys.size() == seeds.size()) return Value::tuple({*y, array_from_rows(ys)});
  }
  LevelScope scope(ev);
  Recording r = record(ev, scope.level, f, x, loc);
  std::vector<Value> ys;
  for (const auto& s : seeds) {
    auto t = forward(r, x, s, loc);
    if (!t) {
      ys.clear();
      break;
    }
    ys.push_back(*t);
  }
  if (ys.size() == seeds.size()) return Value::tuple({primal_part(r.y, scope.level, loc), array_from_rows(ys)});
  for (const auto& s : seeds) ys.push_back((*tape_jvp2(ev, f, x, s, loc).elems)[1]);
  return Value::tuple({primal_part(r.y, scope.level, loc), array_from_rows(ys)});
}

// with_vjp f f' x (Futhark's prelude): f x, whose derivative in reverse mode
// is f' (f x) ȳ instead of f's own. On the tape of the innermost reverse
// level among x's scalars, f runs on x's primal parts (so f is not
// differentiated at that level) and its result's scalars become fresh nodes;
// a custom node created before them calls f' with their adjoints when the
// backward sweep reaches it and adds what it returns to x's nodes. Outside
// reverse mode (no differentiation, or forward mode innermost) it is f x, f
// differentiated as usual.
Value with_vjp(Evaluator& ev, const Value& f, const Value& f_adj, const Value& x, const Loc& loc) {
  uint64_t level = 0;
  std::shared_ptr<ADTape> tape;
  map_leaves(
      x, nullptr,
      [&](const Value& v, const Value*) {
        if (v.kind == Value::Kind::AD && v.ad->level > level) {
          level = v.ad->level;
          tape = v.ad->tape;
        }
        return v;
      },
      loc);
  if (!tape) return ev.apply1(f, x, loc);
  Value y = ev.apply1(f, primal_part(x, level, loc), loc);
  int64_t marker = tape->add(Prim::F64, {});
  std::vector<int64_t> outputs;
  Value y_active = map_leaves(
      y, nullptr,
      [&](const Value& p, const Value*) {
        if (!differentiable(p)) return p;
        auto d = std::make_shared<ADValue>();
        d->level = level;
        d->prim = ad_scalar(p).type;
        d->primal = p;
        d->tape = tape;
        d->node = tape->add(d->prim, {});
        outputs.push_back(d->node);
        return Value::differentiable(std::move(d));
      },
      loc);
  // x's nodes at this level, leaf by leaf (-1: none): the custom node keeps
  // these rather than x, whose scalars hold the tape (a cycle, never freed).
  std::vector<int64_t> inputs;
  map_leaves(
      x, nullptr,
      [&](const Value& v, const Value*) {
        inputs.push_back(at_level(v, level) && v.ad->tape == tape ? v.ad->node : -1);
        return v;
      },
      loc);
  tape->nodes[size_t(marker)].custom = [&ev, f_adj, y, outputs, inputs, loc](
                                           const std::function<std::optional<Value>(int64_t)>& adjoint,
                                           const std::function<void(int64_t, const Value&)>& add) {
    size_t next = 0;
    Value y_bar = map_leaves(
        y, nullptr,
        [&](const Value& p, const Value*) {
          if (!differentiable(p)) return zero_of(p);
          auto a = adjoint(outputs[next++]);
          return a ? *a : zero_of(p);
        },
        loc);
    Value x_bar = ev.apply(f_adj, {y, y_bar}, loc);
    size_t leaf = 0;
    map_leaves(
        x_bar, nullptr,
        [&](const Value& a, const Value*) {
          if (leaf >= inputs.size()) mismatch(loc, "with_vjp: the adjoint has more scalars than the argument");
          if (inputs[leaf] >= 0) add(inputs[leaf], a);
          ++leaf;
          return a;
        },
        loc);
  };
  return y_active;
}

}  // namespace thorn::eval::ad
