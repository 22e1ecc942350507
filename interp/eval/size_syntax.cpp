// Size arguments that are no polynomial (`[(n - 1) / b + 1]`, `[2 ** k]`,
// `[i64.i32 n * i64.i32 m]`): the checker instantiated a size parameter
// with such an expression where the function is named (Expr::size_args,
// DimFormula::syntax); it is computed here, at that reference, as Futhark
// computes the size expressions its type checker substituted.
#include "interp/eval/evaluator.hpp"
#include "interp/eval/scalar_ops.hpp"
#include "interp/util/cancel.hpp"

namespace thorn::eval {

Value builtin_operator(BuiltinOp op, const Value& x, const Value& y);  // eval_expr.cpp

namespace {
QualName qual_name(const std::string& name) {
  QualName q;
  size_t start = 0;
  for (size_t at = name.find('.'); at != std::string::npos && at > start; start = at + 1, at = name.find('.', start))
    q.qualifiers.push_back(name.substr(start, at - start));
  q.name = name.substr(start);
  return q;
}

// A plain value bound to `name`, or an error (caught by size_arg_value).
const Value& bound_value(const std::string& name, const Ctx& ctx, const Loc& loc) {
  const Binding* b = lookup_value(ctx.env, qual_name(name));
  if (!b || b->consumed || b->lazy) throw Error(ErrorKind::Runtime, loc, "size name not in scope: " + name);
  return b->value;
}
}  // namespace

Value Evaluator::size_syntax_value(const SizeSyntax& s, const Ctx& ctx, const Loc& loc) {
  switch (s.op) {
    case SizeSyntax::Op::Const: return Value(scalar_convert(Scalar::i64(s.value), s.type.value_or(Prim::I64)));
    case SizeSyntax::Op::Name: return bound_value(s.name, ctx, loc);
    case SizeSyntax::Op::Neg: {
      Value x = size_syntax_value(*s.args.at(0), ctx, loc);
      if (x.kind != Value::Kind::Scalar) throw Error(ErrorKind::Runtime, loc, "size is not a number");
      return Value(Scalar::i64(-x.scalar.as_i64()));
    }
    case SizeSyntax::Op::BinOp: {
      Value x = size_syntax_value(*s.args.at(0), ctx, loc);
      Value y = size_syntax_value(*s.args.at(1), ctx, loc);
      // An unsuffixed literal has the other operand's type (`n + 1` with
      // n an i32, inside `i64.i32 (n + 1)`).
      auto untyped = [](const SizeSyntax& a) { return a.op == SizeSyntax::Op::Const && !a.type; };
      if (untyped(*s.args[0]) && y.kind == Value::Kind::Scalar) x = Value(scalar_convert(x.scalar, y.scalar.type));
      if (untyped(*s.args[1]) && x.kind == Value::Kind::Scalar) y = Value(scalar_convert(y.scalar, x.scalar.type));
      // An operator the program (or the prelude) defines is applied as
      // eval_binop does; the built-in ones directly.
      if (const Binding* b = lookup_value(ctx.env, qual_name(s.name));
          b && !b->lazy && b->value.kind == Value::Kind::Function && b->value.fn->kind != Callable::Kind::Operator)
        return apply2(b->value, std::move(x), std::move(y), loc);
      std::optional<BuiltinOp> op = builtin_op_from_name(s.name);
      if (!op) throw Error(ErrorKind::Runtime, loc, "unknown operator in a size: " + s.name);
      return builtin_operator(*op, x, y);
    }
    case SizeSyntax::Op::Apply: {
      if (!s.name.empty() && s.name[0] == '.' && s.args.size() == 1) {
        // `[s.0]`: a field of a record (SizeTree::fn).
        Value r = size_syntax_value(*s.args[0], ctx, loc);
        if (const Value* f = r.field(s.name.substr(1))) return *f;
        throw Error(ErrorKind::Runtime, loc, "no field " + s.name.substr(1) + " in a size");
      }
      const Value& fn = bound_value(s.name, ctx, loc);
      std::vector<Value> args;
      for (const auto& a : s.args) args.push_back(size_syntax_value(*a, ctx, loc));
      return apply(fn, std::move(args), loc);
    }
  }
  throw Error(ErrorKind::Internal, loc, "unknown size syntax");
}

std::optional<int64_t> Evaluator::size_arg_value(const Dim& d, const Ctx& ctx, const Loc& loc) {
  Dim v = resolve_size(d, ctx.env);
  if (v.kind == Dim::Kind::Constant) return v.value;
  if (v.kind != Dim::Kind::Unknown || !v.formula || !v.formula->syntax) return std::nullopt;
  try {
    Value r = size_syntax_value(*v.formula->syntax, ctx, loc);
    if (r.kind != Value::Kind::Scalar || !is_integral(r.scalar.type)) return std::nullopt;
    return r.scalar.as_i64();
  } catch (const Interrupted&) {
    throw;
  } catch (const Error&) {
    // A name not in scope here, or a failing computation: the size stays
    // to be found another way (or reported as undetermined).
    return std::nullopt;
  }
}

}  // namespace thorn::eval
