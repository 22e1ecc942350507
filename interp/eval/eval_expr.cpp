// Evaluation of expressions (the big switch), plus variables, operators,
// loops, match and attributes.
#include <fmt/format.h>

#include <algorithm>

#include <cstdio>
#include <cstring>

#include "interp/core/ad_value.hpp"
#include "interp/eval/ad.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/eval/intrinsics.hpp"
#include "interp/eval/scalar_ops.hpp"
#include "interp/eval/size_infer.hpp"
#include "interp/eval/user_params.hpp"
#include "interp/eval/value_ops.hpp"

namespace thorn::eval {

namespace {

// Evaluation recurses on the native stack; Futhark has no recursion, so only
// deeply nested source (or a runaway bug) gets here. Tail positions (let
// bodies, branches) are iterated, not recursed into.
constexpr int kMaxDepth = 20000;

struct DepthGuard {
  int& depth;
  DepthGuard(int& d, const Loc& loc) : depth(d) {
    if (++depth > kMaxDepth) {
      --depth;
      throw Error(ErrorKind::Runtime, loc, "evaluation nested too deeply");
    }
  }
  ~DepthGuard() { --depth; }
};

// Counts the `#[unsafe]` expressions being evaluated (Evaluator::unsafe_depth_).
struct UnsafeScope {
  int& depth;
  bool on;
  UnsafeScope(int& d, bool unsafe) : depth(d), on(unsafe) { depth += on; }
  ~UnsafeScope() { depth -= on; }
};

using Frame = std::vector<std::pair<std::string, Binding>>;

Scalar literal_scalar(const Expr& e) {
  Prim p = e.suffix ? *e.suffix : e.prim;
  if (e.kind == Expr::Kind::FloatLit) return Scalar::floating(is_float(p) ? p : Prim::F64, e.float_value);
  if (is_float(p)) return Scalar::floating(p, double(e.int_value));
  if (p == Prim::Bool) return Scalar::boolean(e.int_value != 0);
  return Scalar::unsigned_int(p, e.int_value);
}

std::string source_text(const Loc& loc) {
  if (!loc.known()) return "<unknown>";
  std::string_view line = loc.file->line(loc.line);
  if (loc.col == 0 || loc.col > line.size()) return std::string(line);
  size_t from = loc.col - 1;
  size_t to = loc.end_col >= loc.col ? std::min<size_t>(loc.end_col, line.size()) : line.size();
  return std::string(line.substr(from, to - from));
}

std::string loc_text(const Loc& loc) {
  if (!loc.known()) return "<unknown>";
  if (loc.end_col > loc.col) return fmt::format("{}:{}:{}-{}", loc.file->name, loc.line, loc.col, loc.end_col);
  return loc.str();
}

}  // namespace

bool is_builtin_operator(std::string_view name) { return builtin_op_from_name(name).has_value(); }

Evaluator::Evaluator(EvalOptions options) : options_(std::move(options)) {
  format_value = [](const Value& v, const TypePtr&) { return format_value_plain(v); };
  on_trace = [this](const std::string& where, const Value& v, const TypePtr& t) {
    std::string text = format_value(v, t);
    std::fprintf(stderr, "%s: %s\n", where.c_str(), text.c_str());
  };
}

Value Evaluator::apply1(const Value& fn, Value x, const Loc& loc) {
  std::vector<Value> args;
  args.push_back(std::move(x));
  return apply(fn, std::move(args), loc);
}

Value Evaluator::apply2(const Value& fn, Value x, Value y, const Loc& loc) {
  std::vector<Value> args;
  args.reserve(2);
  args.push_back(std::move(x));
  args.push_back(std::move(y));
  return apply(fn, std::move(args), loc);
}

Value Evaluator::eval(const Expr& e0, const Ctx& ctx0) {
  DepthGuard guard(depth_, e0.loc);
  const Expr* e = &e0;
  // The context is copied only once a binding form changes it: a copy costs
  // four atomic reference-count updates, and this runs for every
  // sub-expression (myocyte: a tenth of its evaluation time).
  const Ctx* cur = &ctx0;
  Ctx owned;
  auto set_env = [&](EnvPtr env) {
    if (cur != &owned) {
      owned.tenv = cur->tenv;
      cur = &owned;
    }
    owned.env = std::move(env);
  };
  for (;;) {
    const Ctx& ctx = *cur;
    switch (e->kind) {
      case Expr::Kind::IntLit:
      case Expr::Kind::FloatLit: return Value(literal_scalar(*e));
      case Expr::Kind::BoolLit: return Value(Scalar::boolean(e->bool_value));
      case Expr::Kind::StringLit: {
        auto a = make_prim_array(Prim::U8, {int64_t(e->text.size())});
        if (!e->text.empty()) std::memcpy(a->buffer->host_mut(), e->text.data(), e->text.size());
        return Value::make_array(a);
      }
      case Expr::Kind::Var: return eval_var(*e, ctx);
      case Expr::Kind::Apply: return eval_apply(*e, ctx);
      case Expr::Kind::BinOp: return eval_binop(*e, ctx);
      case Expr::Kind::Negate: {
        Value v = eval(*e->a, ctx);
        if (v.kind == Value::Kind::AD) return ad::negate(v);
        return Value(scalar_neg(v.scalar));
      }
      case Expr::Kind::Not: {
        Value v = eval(*e->a, ctx);
        return with_loc(e->loc, [&] { return v.kind == Value::Kind::AD ? ad::logical_not(v) : Value(scalar_not(v.scalar)); });
      }
      case Expr::Kind::OpSection: return eval_op_section(*e, ctx);
      case Expr::Kind::ProjSection: {
        auto c = std::make_shared<Callable>();
        c->kind = Callable::Kind::Projection;
        c->path = e->field_path;
        c->loc = e->loc;
        return Value::function(c);
      }
      case Expr::Kind::IndexSection: {
        auto c = std::make_shared<Callable>();
        c->kind = Callable::Kind::IndexSection;
        c->index_args = eval_indices(e->indices, ctx);
        c->loc = e->loc;
        return Value::function(c);
      }
      case Expr::Kind::Lambda: {
        auto c = std::make_shared<Callable>();
        c->kind = Callable::Kind::Closure;
        c->params = &e->params;
        c->body = e->a.get();
        c->ret_type = e->ret_type.get();
        c->env = ctx.env;
        c->tenv = ctx.tenv;
        c->loc = e->loc;
        return Value::function(c);
      }
      case Expr::Kind::Let: {
        Value v = eval(*e->a, ctx);
        Frame frame;
        SizeScope sizes;
        sizes.frame = &frame;
        for (const auto& tp : e->type_params)
          if (tp.is_size) sizes.to_bind.push_back(tp.name);
        if (sizes.to_bind.empty()) {
          bind_pattern(*e->pattern, std::move(v), frame, &sizes, ctx);
        } else {
          // `let [n] (_: m.arr [n]) = e`: a size behind a type abbreviation
          // (an abstract type's definition) is found through the checked type.
          Value kept = v;
          bind_pattern(*e->pattern, std::move(v), frame, &sizes, ctx);
          if (e->pattern->type && has_unbound_sizes(sizes)) bind_sizes_from_type(*e->pattern->type, kept, sizes);
        }
        set_env(extend(ctx.env, std::move(frame)));
        e = e->b.get();
        continue;
      }
      case Expr::Kind::LetFun: {
        auto c = std::make_shared<Callable>();
        c->kind = Callable::Kind::Closure;
        c->name = e->name.name;
        c->params = &e->params;
        c->body = e->a.get();
        c->ret_type = e->ret_type.get();
        c->type_params = &e->type_params;
        c->env = ctx.env;
        c->tenv = ctx.tenv;
        c->loc = e->loc;
        if (may_recurse(e->name.name, *e->a, ctx.env)) c->self = c;
        Binding b;
        b.value = Value::function(c);
        if (!e->quantified.empty()) b.quantified = &e->quantified;
        Frame frame;
        frame.emplace_back(e->name.name, std::move(b));
        set_env(extend(ctx.env, std::move(frame)));
        e = e->b.get();
        continue;
      }
      case Expr::Kind::If: {
        Value cond = eval(*e->a, ctx);
        e = cond.scalar.b ? e->b.get() : e->c.get();
        continue;
      }
      case Expr::Kind::Loop: return eval_loop(*e, ctx);
      case Expr::Kind::Match: return eval_match(*e, ctx);
      case Expr::Kind::Tuple: {
        std::vector<Value> xs;
        xs.reserve(e->list.size());
        for (const auto& x : e->list) xs.push_back(eval(*x, ctx));
        return Value::tuple(std::move(xs));
      }
      case Expr::Kind::Record: {
        std::vector<std::pair<std::string, Value>> fields;
        fields.reserve(e->fields.size());
        for (const auto& [name, x] : e->fields) fields.emplace_back(name, eval(*x, ctx));
        return Value::record(std::move(fields));
      }
      case Expr::Kind::Project: {
        Value v = eval(*e->a, ctx);
        const std::string& field = e->field_path.empty() ? e->name.name : e->field_path[0];
        if (const Value* f = v.field(field)) return *f;
        throw Error(ErrorKind::Internal, e->loc, fmt::format("value has no field {}", field));
      }
      case Expr::Kind::ArrayLit: {
        if (e->list.empty()) {
          TypePtr t = resolve_type(e->type, ctx.tenv, ctx.env);
          if (!t || t->kind != Type::Kind::Array) return array_from_rows({});
          // Its inner sizes may be expressions with no normal form (`[]` :
          // [0][n / 2]i64, [0][s.0]i64): computed here, as at a call.
          std::vector<Dim> dims = t->dims;
          bool computed = false;
          for (Dim& d : dims)
            if (d.kind == Dim::Kind::Unknown && d.formula && d.formula->syntax)
              if (std::optional<int64_t> v = size_arg_value(d, ctx, e->loc)) {
                d = Dim{};
                d.kind = Dim::Kind::Constant;
                d.value = *v;
                computed = true;
              }
          if (computed) t = array_type(t->elem, std::move(dims));
          return empty_array_of_type(*t);
        }
        std::vector<Value> rows;
        rows.reserve(e->list.size());
        for (const auto& x : e->list) rows.push_back(eval(*x, ctx));
        return with_loc(e->loc, [&] { return array_from_rows(rows); });
      }
      case Expr::Kind::Range: return eval_range(*e, ctx);
      case Expr::Kind::Index: {
        auto idx = eval_indices(e->indices, ctx);
        Value arr = eval(*e->a, ctx);
        if (arr.kind != Value::Kind::Array) throw Error(ErrorKind::Internal, e->loc, "indexing a non-array");
        return with_loc(e->loc, [&] { return index_array(*arr.array, idx); });
      }
      case Expr::Kind::Update: return eval_update(*e, ctx);
      case Expr::Kind::RecordUpdate: return eval_record_update(*e, ctx);
      case Expr::Kind::Ascribe:
        e = e->a.get();
        continue;
      case Expr::Kind::Coerce: {
        Value v = eval(*e->a, ctx);
        if (e->ret_type) {
          SizeScope sizes;
          TypePtr target = resolve_type(e->type, ctx.tenv, ctx.env);
          check_type_sizes(*e->ret_type, v, sizes, ctx, e->loc, "coerce", target);
          // A size that is no polynomial (`[isqrt n * isqrt n]`), which
          // the checker keeps as syntax, is computed here.
          bool computed = false;
          if (e->type && e->type->kind == Type::Kind::Array && target && target->kind == Type::Kind::Array &&
              v.kind == Value::Kind::Array && target->dims.size() == e->type->dims.size()) {
            std::vector<Dim> dims = target->dims;
            for (size_t k = 0; k < dims.size(); ++k) {
              const Dim& d = e->type->dims[k];
              if (d.kind != Dim::Kind::Unknown || !d.formula || !d.formula->syntax) continue;
              if (std::optional<int64_t> n = size_arg_value(d, ctx, e->loc)) {
                dims[k] = Dim{Dim::Kind::Constant, *n, {}, nullptr};
                computed = true;
              }
            }
            if (computed) target = array_type(target->elem, std::move(dims));
          }
          // Through a type abbreviation (`xs :> ints [n]`), the checked type
          // has the sizes: its known ones must be the value's.
          if ((e->ret_type->kind == TypeExpr::Kind::Name || computed) && target &&
              target->kind == Type::Kind::Array && v.kind == Value::Kind::Array) {
            const auto& shape = v.array->shape;
            for (size_t k = 0; k < target->dims.size() && k < shape.size(); ++k)
              if (target->dims[k].kind == Dim::Kind::Constant && target->dims[k].value != shape[k])
                throw Error(ErrorKind::Runtime, e->loc,
                            fmt::format("Value of shape {} cannot match shape of type \"{}\".", shape_of(v),
                                        to_string(*target)));
          }
        }
        return v;
      }
      case Expr::Kind::Assert: {
        Value cond = eval(*e->a, ctx);
        if (!cond.scalar.b && unsafe_depth_ == 0)
          throw Error(ErrorKind::Runtime, e->loc, "Assertion is false: " + source_text(e->a->loc));
        e = e->b.get();
        continue;
      }
      case Expr::Kind::Constructor: {
        std::vector<Value> payload;
        payload.reserve(e->list.size());
        for (const auto& x : e->list) payload.push_back(eval(*x, ctx));
        return Value::sum(e->name.name, std::move(payload));
      }
      case Expr::Kind::Attr: return eval_attr(*e, ctx);
      case Expr::Kind::Intrinsic: return eval_intrinsic(*e, ctx);
      case Expr::Kind::QualParens: {
        std::vector<std::string> path = e->name.qualifiers;
        path.push_back(e->name.name);
        ModulePtr m = lookup_module_path(ctx.env, path);
        if (!m || !m->ns) throw Error(ErrorKind::Internal, e->loc, "unknown module " + e->name.str());
        set_env(extend_scope(ctx.env, m->ns));
        e = e->a.get();
        continue;
      }
    }
    throw Error(ErrorKind::Internal, e->loc, "unknown expression kind");
  }
}

// ------------------------------------------------------------------ application

namespace {
// A parameter declared unique (`(xs: *[]t)`) consumes its argument.
bool unique_param(const Pattern& p) {
  for (const Pattern* q = &p; q && q->kind == Pattern::Kind::Ascribed; q = q->inner.get())
    if (q->ascription && q->ascription->kind == TypeExpr::Kind::Unique) return true;
  return false;
}

bool is_local_var(const Expr& e) { return e.kind == Expr::Kind::Var && e.name.qualifiers.empty(); }

// Intrinsics whose first argument is consumed (updated in place).
bool consumes_first(std::string_view name) {
  return name.rfind("scatter", 0) == 0 || name.rfind("reduce_by_index", 0) == 0;
}
}  // namespace

Value Evaluator::eval_apply(const Expr& e, const Ctx& ctx) {
  Value fn = eval(*e.a, ctx);
  const Callable* target = fn.kind == Value::Kind::Function ? fn.fn.get() : nullptr;
  size_t offset = 0;
  if (target && target->kind == Callable::Kind::Partial) {
    offset = target->args.size();
    target = target->fn.get();
  }
  std::vector<Value> args(e.list.size());
  std::vector<size_t> consumed;
  for (size_t k = 0; k < e.list.size(); ++k) {
    size_t p = offset + k;
    if (target && target->kind == Callable::Kind::Closure && p < target->params->size() &&
        unique_param(*(*target->params)[p]) && is_local_var(*e.list[k])) {
      consumed.push_back(k);
      continue;
    }
    args[k] = eval(*e.list[k], ctx);
  }
  // Consumed arguments are taken last: the other arguments may still read them.
  for (size_t k : consumed) args[k] = take_variable(*e.list[k], ctx);
  if (target && target->kind == Callable::Kind::Closure && target->type_params && target->params &&
      offset + e.list.size() == target->params->size()) {
    pending_call = &e;
    pending_callee = target;
    pending_call_ctx = ctx;
  }
  return apply(fn, std::move(args), e.loc);
}

// ------------------------------------------------------------------ names

Value Evaluator::instantiate(const Binding& b, const Expr& ref, const Ctx& ctx) {
  if (b.lazy) {
    // A polymorphic constant: evaluate its body under this instantiation.
    const Decl& d = *b.lazy;
    TypeEnvPtr tenv = bind_types(b.lazy_tenv, &d.quantified, &ref.instantiation, ctx.tenv, ctx.env);
    // Its size parameters (`def iiota [n] : [n]i64 = iota n`) have no
    // arguments to come from: the checker's instantiation gives them.
    EnvPtr env = b.lazy_env;
    std::vector<std::pair<std::string, Binding>> sizes;
    for (const auto& [name, dim] : ref.size_args) {
      bool param = false;
      for (const auto& tp : d.type_params) param = param || (tp.is_size && tp.name == name);
      if (!param) continue;
      std::optional<int64_t> v = size_arg_value(dim, ctx, ref.loc);
      if (!v || *v < 0) continue;
      Binding sb;
      sb.value = Value(Scalar::i64(*v));
      sizes.emplace_back(name, std::move(sb));
    }
    if (!sizes.empty()) env = extend(env, std::move(sizes));
    Ctx inner{env, tenv};
    Value v = eval(*d.body, inner);
    if (d.ret_type) {
      SizeScope sizes;
      check_type_sizes(*d.ret_type, v, sizes, inner, ref.loc, "return");
    }
    return v;
  }
  bool retype = b.quantified && !b.quantified->empty() && !ref.instantiation.empty();
  if ((retype || !ref.size_args.empty()) && b.value.kind == Value::Kind::Function &&
      b.value.fn->kind == Callable::Kind::Closure) {
    auto c = std::make_shared<Callable>(*b.value.fn);
    if (retype) c->tenv = bind_types(c->tenv, b.quantified, &ref.instantiation, ctx.tenv, ctx.env);
    for (const auto& [name, d] : ref.size_args) {
      std::optional<int64_t> v = size_arg_value(d, ctx, ref.loc);
      if (v && *v >= 0) c->size_hints.emplace_back(name, *v);
    }
    return Value::function(std::move(c));
  }
  return b.value;
}

Value Evaluator::eval_var(const Expr& e, const Ctx& ctx) {
  const Binding* b = lookup_value(ctx.env, e.name);
  if (!b) {
    if (e.name.qualifiers.empty() && is_builtin_operator(e.name.name)) return operator_value(e.name, &e, ctx);
    // The checker accepted the name, so it is a size parameter that no
    // argument determined and that could not be solved from the context
    // (a size only inside `[n * m]`, or only in a function type).
    if (e.type && e.type->kind == Type::Kind::Prim && e.type->prim == Prim::I64)
      throw Error(ErrorKind::Runtime, e.loc,
                  fmt::format("The size `{}` cannot be determined at run time: no argument gives it and it could "
                              "not be solved from the sizes in the context.",
                              e.name.str()));
    throw Error(ErrorKind::Internal, e.loc, fmt::format("unbound variable `{}`", e.name.str()));
  }
  if (b->consumed)
    throw Error(ErrorKind::Runtime, e.loc,
                fmt::format("`{}` was consumed by an in-place update and may not be used afterwards.", e.name.str()));
  return instantiate(*b, e, ctx);
}

Value Evaluator::operator_value(const QualName& op, const Expr* ref, const Ctx& ctx) {
  if (const Binding* b = lookup_value(ctx.env, op)) return ref ? instantiate(*b, *ref, ctx) : b->value;
  if (!op.qualifiers.empty() || !is_builtin_operator(op.name))
    throw Error(ErrorKind::Internal, ref ? ref->loc : Loc{}, fmt::format("unbound operator `{}`", op.str()));
  auto c = std::make_shared<Callable>();
  c->kind = Callable::Kind::Operator;
  c->name = op.name;
  if (ref) c->loc = ref->loc;
  return Value::function(c);
}

Value builtin_operator(BuiltinOp op, const Value& x, const Value& y) {
  if (op == BuiltinOp::Eq) return Value(Scalar::boolean(values_equal(x, y)));
  if (op == BuiltinOp::Ne) return Value(Scalar::boolean(!values_equal(x, y)));
  if (x.kind == Value::Kind::AD || y.kind == Value::Kind::AD) return ad::binop(op, x, y);
  if (x.kind != Value::Kind::Scalar || y.kind != Value::Kind::Scalar)
    throw Error(ErrorKind::Internal, fmt::format("operator {} applied to non-scalars", builtin_op_name(op)));
  return Value(scalar_binop(op, x.scalar, y.scalar));
}

Value Evaluator::eval_binop(const Expr& e, const Ctx& ctx) {
  const Binding* b = lookup_value(ctx.env, e.name);
  std::optional<BuiltinOp> op;
  Value fn;
  if (b) {
    fn = instantiate(*b, e, ctx);
    if (fn.kind == Value::Kind::Function && fn.fn->kind == Callable::Kind::Operator)
      op = builtin_op_from_name(fn.fn->name);
  } else {
    if (!e.name.qualifiers.empty()) throw Error(ErrorKind::Internal, e.loc, "unbound operator " + e.name.str());
    op = builtin_op_from_name(e.name.name);
    if (!op) throw Error(ErrorKind::Internal, e.loc, "unbound operator " + e.name.str());
  }
  if (op) {
    if (*op == BuiltinOp::LogAnd || *op == BuiltinOp::LogOr) {
      Value x = eval(*e.a, ctx);
      bool lhs = x.scalar.b;
      // `a && b` is `if a then b else false` (and `||` likewise): the
      // short-circuited result is a constant, without a tangent.
      if (*op == BuiltinOp::LogAnd ? !lhs : lhs) return x.kind == Value::Kind::AD ? Value(Scalar::boolean(lhs)) : x;
      return eval(*e.b, ctx);
    }
    Value x = eval(*e.a, ctx);
    Value y = eval(*e.b, ctx);
    return with_loc(e.loc, [&] { return builtin_operator(*op, x, y); });
  }
  Value x = eval(*e.a, ctx);
  Value y = eval(*e.b, ctx);
  return apply2(fn, std::move(x), std::move(y), e.loc);
}

Value Evaluator::eval_op_section(const Expr& e, const Ctx& ctx) {
  Value op = operator_value(e.name, &e, ctx);
  if (!e.a && !e.b) return op;
  auto c = std::make_shared<Callable>();
  c->fn = op.fn;
  c->loc = e.loc;
  if (e.a) {
    c->kind = Callable::Kind::Partial;
    c->args.push_back(eval(*e.a, ctx));
  } else {
    c->kind = Callable::Kind::RightSection;
    c->args.push_back(eval(*e.b, ctx));
  }
  return Value::function(c);
}

// ------------------------------------------------------------------ loops

namespace {
// `loop (x, y) for ...` without `= init` starts from the variables of the
// same names.
Value value_of_pattern_names(const Pattern& p, const EnvPtr& env, const Loc& loc) {
  switch (p.kind) {
    case Pattern::Kind::Id: {
      const Binding* b = lookup_value(env, std::string_view(p.name));
      if (!b) throw Error(ErrorKind::Internal, loc, "unbound loop variable " + p.name);
      return b->value;
    }
    case Pattern::Kind::Tuple: {
      std::vector<Value> xs;
      for (const auto& q : p.elems) xs.push_back(value_of_pattern_names(*q, env, loc));
      return Value::tuple(std::move(xs));
    }
    case Pattern::Kind::Record: {
      std::vector<std::pair<std::string, Value>> fs;
      for (const auto& [name, q] : p.fields) {
        if (q) {
          fs.emplace_back(name, value_of_pattern_names(*q, env, loc));
        } else {
          Pattern id;
          id.name = name;
          fs.emplace_back(name, value_of_pattern_names(id, env, loc));
        }
      }
      return Value::record(std::move(fs));
    }
    case Pattern::Kind::Ascribed: return value_of_pattern_names(*p.inner, env, loc);
    default: throw Error(ErrorKind::Internal, loc, "loop pattern without initial value");
  }
}
}  // namespace

Value Evaluator::eval_loop(const Expr& e, const Ctx& ctx) {
  const Pattern& pat = *e.params.at(0);
  Value state = e.a ? eval(*e.a, ctx) : value_of_pattern_names(pat, ctx.env, e.loc);
  // Binds the loop parameter to the current state. The state itself is
  // released before the body runs, so that the body's in-place updates see
  // the frame as the only owner.
  auto bind_state = [&](Value v, Frame& frame) {
    check_interrupt(e.loc);
    SizeScope sizes;
    sizes.frame = &frame;
    for (const auto& tp : e.type_params)
      if (tp.is_size) sizes.to_bind.push_back(tp.name);
    bind_pattern(pat, std::move(v), frame, &sizes, ctx);
  };
  switch (e.loop_form) {
    case Expr::LoopForm::For: {
      Value bound = eval(*e.c, ctx);
      Scalar n = ad_scalar(bound);
      bool is_unsigned = is_unsigned_int(n.type);
      for (uint64_t i = 0;; ++i) {
        if (is_unsigned ? i >= n.u : int64_t(i) >= n.i) break;
        Frame frame;
        bind_state(std::move(state), frame);
        state = Value();
        Binding ib;
        ib.value = Value(is_unsigned ? Scalar::unsigned_int(n.type, i) : Scalar::signed_int(n.type, int64_t(i)));
        frame.emplace_back(e.loop_var, std::move(ib));
        state = eval(*e.b, Ctx{extend(ctx.env, std::move(frame)), ctx.tenv});
      }
      return state;
    }
    case Expr::LoopForm::ForIn: {
      Value xs = eval(*e.c, ctx);
      int64_t n = array_length(xs);
      for (int64_t i = 0; i < n; ++i) {
        Frame frame;
        bind_state(std::move(state), frame);
        state = Value();
        bind_pattern(*e.pattern, array_row(*xs.array, i), frame, nullptr, ctx);
        state = eval(*e.b, Ctx{extend(ctx.env, std::move(frame)), ctx.tenv});
      }
      return state;
    }
    case Expr::LoopForm::While: {
      for (;;) {
        Frame frame;
        bind_state(state, frame);
        Ctx inner{extend(ctx.env, std::move(frame)), ctx.tenv};
        Value cond = eval(*e.c, inner);
        if (!cond.scalar.b) return state;
        state = Value();
        state = eval(*e.b, inner);
      }
    }
  }
  return state;
}

// ------------------------------------------------------------------ match

Value Evaluator::eval_match(const Expr& e, const Ctx& ctx) {
  Value v = eval(*e.a, ctx);
  for (const Case& c : e.cases) {
    Frame frame;
    SizeScope sizes;
    sizes.frame = &frame;
    if (bind_pattern(*c.pattern, v, frame, &sizes, ctx, /*refutable=*/true))
      return eval(*c.body, Ctx{extend(ctx.env, std::move(frame)), ctx.tenv});
  }
  throw Error(ErrorKind::Runtime, e.loc, "Pattern match failure: no case matches " + format_value(v, e.a->type));
}

// ------------------------------------------------------------------ attributes

Value Evaluator::eval_attr(const Expr& e, const Ctx& ctx) {
  bool unsafe = std::find(e.attrs.begin(), e.attrs.end(), "unsafe") != e.attrs.end();
  UnsafeScope scope(unsafe_depth_, unsafe);
  Value v = eval(*e.a, ctx);
  for (const std::string& attr : e.attrs) {
    if (attr == "trace") {
      on_trace(loc_text(e.loc), v, resolve_type(e.a->type, ctx.tenv, ctx.env));
    } else if (attr.rfind("trace(", 0) == 0 && attr.back() == ')') {
      on_trace(attr.substr(6, attr.size() - 7), v, resolve_type(e.a->type, ctx.tenv, ctx.env));
    } else if (std::optional<int64_t> p = user_param_value(attr);
               p && v.kind == Value::Kind::Scalar && v.scalar.type == Prim::I64) {
      v = Value(Scalar::i64(*p));  // `#[param(name)] e` with name set (user_params.hpp)
    }
  }
  return v;
}

// ------------------------------------------------------------------ intrinsics

Value Evaluator::eval_intrinsic(const Expr& e, const Ctx& ctx) {
  // A typed hole (`???`, parsed as this intrinsic) fails when reached, with
  // Futhark's message.
  if (e.text == "hole") {
    TypePtr t = resolve_type(e.type, ctx.tenv, ctx.env);
    // The location is part of the message, as in Futhark's backtrace.
    throw Error(ErrorKind::Runtime, e.loc,
                fmt::format("Reached hole of type: {} at {}", t ? to_string(t) : std::string("?"), e.loc.str()));
  }
  std::vector<Value> args(e.list.size());
  bool consume = !e.list.empty() && consumes_first(e.text) && is_local_var(*e.list[0]);
  for (size_t k = consume ? 1 : 0; k < e.list.size(); ++k) args[k] = eval(*e.list[k], ctx);
  if (consume) args[0] = take_variable(*e.list[0], ctx);
  IntrinsicCall call{e.text, e.loc, std::move(args), &e, ctx, *this};
  return call_intrinsic(call);
}

}  // namespace thorn::eval
