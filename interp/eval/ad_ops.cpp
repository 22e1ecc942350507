// The lifted scalar operations of ad.hpp and their derivative rules.
#include <cmath>
#include <functional>
#include <numbers>
#include <optional>

#include <fmt/format.h>

#include "interp/core/ad_value.hpp"
#include "interp/eval/ad.hpp"
#include "interp/eval/ad_tape.hpp"
#include "interp/util/error.hpp"

namespace thorn::eval::ad {

namespace {

bool is_ad(const Value& v) { return v.kind == Value::Kind::AD; }
Prim prim_of(const Value& v) { return ad_scalar(v).type; }

// A constant of a scalar type (integers carry derivatives too, as in Futhark).
Value konst(Prim p, double x) {
  return Value(is_float(p) ? Scalar::floating(p, x) : Scalar::signed_int(p, int64_t(x)));
}

// Plain or lifted, whichever the operands need.
Value op2(BuiltinOp op, const Value& a, const Value& b) {
  if (!is_ad(a) && !is_ad(b)) return Value(scalar_binop(op, a.scalar, b.scalar));
  return binop(op, a, b);
}
Value add(const Value& a, const Value& b) { return op2(BuiltinOp::Add, a, b); }
Value sub(const Value& a, const Value& b) { return op2(BuiltinOp::Sub, a, b); }
Value mul(const Value& a, const Value& b) { return op2(BuiltinOp::Mul, a, b); }
Value div(const Value& a, const Value& b) { return op2(BuiltinOp::Div, a, b); }
Value fn1(std::string_view name, const Value& a) {
  if (!is_ad(a)) return Value(*scalar_function(name, &a.scalar, 1));
  return *function(name, &a, 1);
}
Value fn2(std::string_view name, const Value& a, const Value& b) {
  Value args[2] = {a, b};
  if (!is_ad(a) && !is_ad(b)) {
    Scalar s[2] = {a.scalar, b.scalar};
    return Value(*scalar_function(name, s, 2));
  }
  return *function(name, args, 2);
}
Value neg(const Value& a) { return is_ad(a) ? negate(a) : Value(scalar_neg(a.scalar)); }
Value conv(const Value& a, Prim to) {
  if (prim_of(a) == to) return a;
  return is_ad(a) ? convert(a, to) : Value(scalar_convert(a.scalar, to));
}
bool positive(const Value& a) { return ad_scalar(a).as_f64() > 0; }
bool negative(const Value& a) { return ad_scalar(a).as_f64() < 0; }

// The digamma function (the derivative of lgamma), by the recurrence
// psi(x) = psi(x+1) - 1/x up to x >= 6 and the asymptotic series there;
// reflection for negative arguments.
double digamma(double x) {
  if (x <= 0 && x == std::floor(x)) return std::nan("");
  if (x < 0) return digamma(1 - x) - std::numbers::pi / std::tan(std::numbers::pi * x);
  double acc = 0;
  while (x < 6) {
    acc -= 1 / x;
    x += 1;
  }
  double r = 1 / (x * x);
  return acc + std::log(x) - 0.5 / x - r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r / 132))));
}

// The highest level among the operands.
uint64_t top_level(const Value* args, int n) {
  uint64_t level = 0;
  for (int k = 0; k < n; ++k)
    if (is_ad(args[k])) level = std::max(level, args[k].ad->level);
  return level;
}

// Applies `f` (the operation on primals, itself lifted where they still
// carry outer levels' derivatives) and records the result's derivative at
// the top level: `partial(k, primals, result)` is the derivative of the
// result with respect to operand k, asked only for operands that carry one.
Value lift(const Value* args, int n, const std::function<Value(const Value*)>& f,
           const std::function<Value(int, const Value*, const Value&)>& partial) {
  uint64_t level = top_level(args, n);
  Value primals[3];
  const ADValue* vars[3] = {nullptr, nullptr, nullptr};
  for (int k = 0; k < n; ++k) {
    if (is_ad(args[k]) && args[k].ad->level == level) {
      vars[k] = args[k].ad.get();
      primals[k] = args[k].ad->primal;
    } else {
      primals[k] = args[k];
    }
  }
  Value result = f(primals);
  auto out = std::make_shared<ADValue>();
  out->level = level;
  out->prim = prim_of(result);
  out->primal = result;
  const ADValue* any = nullptr;
  for (int k = 0; k < n; ++k)
    if (vars[k]) any = vars[k];
  if (any->tape) {
    std::vector<std::pair<int64_t, Value>> edges;
    for (int k = 0; k < n; ++k)
      if (vars[k]) edges.emplace_back(vars[k]->node, conv(partial(k, primals, result), out->prim));
    out->tape = any->tape;
    out->node = any->tape->add(out->prim, std::move(edges));
  } else {
    std::optional<Value> tangent;
    for (int k = 0; k < n; ++k) {
      if (!vars[k]) continue;
      Value d = partial(k, primals, result);
      Value term = conv(mul(d, conv(vars[k]->tangent, prim_of(d))), out->prim);
      tangent = tangent ? add(*tangent, term) : term;
    }
    out->tangent = *tangent;
  }
  return Value::differentiable(out);
}


using Partial = std::function<Value(int, const Value*, const Value&)>;

Value one_like(const Value& x) { return konst(prim_of(x), 1.0); }
Value zero_like(const Value& x) { return konst(prim_of(x), 0.0); }

// The derivative rules of one-argument functions: d f(x) / dx given x and
// r = f(x). Functions not listed are piecewise constant (floor, sgn, ...)
// or not on floats, and give results that carry no derivative.
std::optional<std::function<Value(const Value&, const Value&)>> unary_rule(std::string_view name) {
  using R = std::function<Value(const Value&, const Value&)>;
  auto sq = [](const Value& v) { return mul(v, v); };
  if (name == "sqrt") return R([](const Value&, const Value& r) { return div(one_like(r), mul(konst(prim_of(r), 2), r)); });
  if (name == "cbrt") return R([=](const Value&, const Value& r) { return div(one_like(r), mul(konst(prim_of(r), 3), sq(r))); });
  if (name == "exp") return R([](const Value&, const Value& r) { return r; });
  if (name == "log") return R([](const Value& x, const Value&) { return div(one_like(x), x); });
  if (name == "log2")
    return R([](const Value& x, const Value&) { return div(one_like(x), mul(x, konst(prim_of(x), std::numbers::ln2))); });
  if (name == "log10")
    return R([](const Value& x, const Value&) { return div(one_like(x), mul(x, konst(prim_of(x), std::numbers::ln10))); });
  if (name == "log1p") return R([](const Value& x, const Value&) { return div(one_like(x), add(one_like(x), x)); });
  if (name == "sin") return R([](const Value& x, const Value&) { return fn1("cos", x); });
  if (name == "cos") return R([](const Value& x, const Value&) { return neg(fn1("sin", x)); });
  if (name == "tan") return R([=](const Value&, const Value& r) { return add(one_like(r), sq(r)); });
  if (name == "asin")
    return R([=](const Value& x, const Value&) { return div(one_like(x), fn1("sqrt", sub(one_like(x), sq(x)))); });
  if (name == "acos")
    return R([=](const Value& x, const Value&) { return neg(div(one_like(x), fn1("sqrt", sub(one_like(x), sq(x))))); });
  if (name == "atan") return R([=](const Value& x, const Value&) { return div(one_like(x), add(one_like(x), sq(x))); });
  if (name == "sinh") return R([](const Value& x, const Value&) { return fn1("cosh", x); });
  if (name == "cosh") return R([](const Value& x, const Value&) { return fn1("sinh", x); });
  if (name == "tanh") return R([=](const Value&, const Value& r) { return sub(one_like(r), sq(r)); });
  if (name == "asinh")
    return R([=](const Value& x, const Value&) { return div(one_like(x), fn1("sqrt", add(sq(x), one_like(x)))); });
  if (name == "acosh")
    return R([=](const Value& x, const Value&) { return div(one_like(x), fn1("sqrt", sub(sq(x), one_like(x)))); });
  if (name == "atanh") return R([=](const Value& x, const Value&) { return div(one_like(x), sub(one_like(x), sq(x))); });
  if (name == "erf" || name == "erfc") {
    double sign = name == "erf" ? 1 : -1;
    return R([=](const Value& x, const Value&) {
      Value c = konst(prim_of(x), sign * 2 / std::sqrt(std::numbers::pi));
      return mul(c, fn1("exp", neg(sq(x))));
    });
  }
  if (name == "lgamma" || name == "gamma") {
    bool scaled = name == "gamma";
    return R([=](const Value& x, const Value& r) {
      // digamma of an outer level's derivative-carrying value is taken at its
      // plain value: lgamma is differentiated once, not twice.
      Value psi = konst(prim_of(x), digamma(ad_scalar(x).as_f64()));
      return scaled ? mul(r, psi) : psi;
    });
  }
  if (name == "abs")
    return R([](const Value& x, const Value&) { return konst(prim_of(x), positive(x) ? 1 : negative(x) ? -1 : 0); });
  if (name == "neg") return R([](const Value& x, const Value&) { return konst(prim_of(x), -1); });
  if (name == "recip") return R([=](const Value&, const Value& r) { return neg(sq(r)); });
  return std::nullopt;
}

// Two- and three-argument functions: the partial derivative with respect to
// argument k, given the primal arguments p and the result r.
std::optional<Partial> nary_rule(std::string_view name, int nargs) {
  if (nargs == 2 && (name == "min" || name == "max")) {
    bool is_min = name == "min";
    // Ties go to the first argument, as Futhark's rules have it.
    return Partial([=](int k, const Value* p, const Value&) {
      double a = ad_scalar(p[0]).as_f64(), b = ad_scalar(p[1]).as_f64();
      bool first = is_min ? !(b < a) : !(b > a);
      return konst(prim_of(p[k]), (k == 0) == first ? 1 : 0);
    });
  }
  if (nargs == 2 && name == "pow")
    // Futhark's rule (Derivatives.hs), finite at x = 0: d/dx is 0 where
    // x == 0 and y < 1, and d/dy takes log x as 0 where x <= 0.
    return Partial([](int k, const Value* p, const Value& r) {
      double x = ad_scalar(p[0]).as_f64(), y = ad_scalar(p[1]).as_f64();
      if (k == 0) {
        if (x == 0 && y < 1) return zero_like(p[0]);
        return mul(p[1], fn2("pow", p[0], sub(p[1], one_like(p[1]))));
      }
      if (x <= 0) return zero_like(r);
      return mul(r, fn1("log", p[0]));
    });
  if (nargs == 2 && name == "atan2")  // atan2 y x
    return Partial([](int k, const Value* p, const Value&) {
      Value d = add(mul(p[0], p[0]), mul(p[1], p[1]));
      return k == 0 ? div(p[1], d) : neg(div(p[0], d));
    });
  if (nargs == 2 && name == "hypot")
    return Partial([](int k, const Value* p, const Value& r) { return div(p[k], r); });
  if (nargs == 2 && name == "copysign")
    return Partial([](int k, const Value* p, const Value&) {
      if (k == 1) return zero_like(p[1]);
      bool same = std::signbit(ad_scalar(p[0]).as_f64()) == std::signbit(ad_scalar(p[1]).as_f64());
      return konst(prim_of(p[0]), same ? 1 : -1);
    });
  if (nargs == 2 && name == "nextafter")
    return Partial([](int k, const Value* p, const Value&) { return konst(prim_of(p[k]), k == 0 ? 1 : 0); });
  if (nargs == 2 && name == "ldexp")  // ldexp x n: only x is a float
    return Partial([](int, const Value* p, const Value&) {
      return konst(prim_of(p[0]), std::ldexp(1.0, int(ad_scalar(p[1]).as_f64())));
    });
  if (nargs == 3 && (name == "fma" || name == "mad"))
    return Partial([](int k, const Value* p, const Value&) {
      if (k == 0) return p[1];
      if (k == 1) return p[0];
      return one_like(p[2]);
    });
  if (nargs == 3 && name == "lerp")  // lerp v0 v1 t = v0 + (v1 - v0) * t
    return Partial([](int k, const Value* p, const Value&) {
      if (k == 0) return sub(one_like(p[2]), p[2]);
      if (k == 1) return p[2];
      return sub(p[1], p[0]);
    });
  return std::nullopt;
}

Value plain_function(std::string_view name, const Value* args, int nargs) {
  Scalar s[3];
  for (int k = 0; k < nargs; ++k) s[k] = ad_scalar(args[k]);
  auto r = scalar_function(name, s, nargs);
  if (!r) throw Error(ErrorKind::Internal, fmt::format("unknown scalar function {}", name));
  return Value(*r);
}

}  // namespace

Value binop(BuiltinOp op, const Value& a, const Value& b) {
  if (!is_ad(a) && !is_ad(b)) return Value(scalar_binop(op, a.scalar, b.scalar));
  const Value args[2] = {a, b};
  auto call = [op](const Value* p) { return op2(op, p[0], p[1]); };
  switch (op) {
    case BuiltinOp::Add: return lift(args, 2, call, [](int, const Value* p, const Value&) { return one_like(p[0]); });
    case BuiltinOp::Sub:
      return lift(args, 2, call, [](int k, const Value* p, const Value&) { return konst(prim_of(p[k]), k == 0 ? 1 : -1); });
    case BuiltinOp::Mul: return lift(args, 2, call, [](int k, const Value* p, const Value&) { return p[1 - k]; });
    case BuiltinOp::Div:
    case BuiltinOp::Quot:
      return lift(args, 2, call, [op](int k, const Value* p, const Value& r) {
        if (k == 0) return op2(op, one_like(p[1]), p[1]);
        // Integer division has Futhark's rule -(a / b²), in integers.
        return is_float(prim_of(r)) ? neg(div(r, p[1])) : neg(op2(op, p[0], mul(p[1], p[1])));
      });
    case BuiltinOp::Pow:
      if (is_float(prim_of(a)) || is_float(prim_of(b))) return lift(args, 2, call, *nary_rule("pow", 2));
      return lift(args, 2, call, [](int k, const Value* p, const Value&) {
        if (k == 1) return zero_like(p[1]);
        return mul(p[1], op2(BuiltinOp::Pow, p[0], sub(p[1], one_like(p[1]))));
      });
    case BuiltinOp::Mod:  // a - b * (a / b), rounded as the type's division is
    case BuiltinOp::Rem:
      return lift(args, 2, call, [op](int k, const Value* p, const Value&) {
        if (k == 0) return one_like(p[0]);
        if (is_float(prim_of(p[0]))) return neg(fn1("trunc", div(p[0], p[1])));
        return neg(op2(op == BuiltinOp::Mod ? BuiltinOp::Div : BuiltinOp::Quot, p[0], p[1]));
      });
    case BuiltinOp::LogAnd:
    case BuiltinOp::LogOr: {
      // Booleans with tangents (forward mode only; ad.cpp): Futhark's
      // pdBinOp gives a && b the partials (b, a) and a || b (true, false),
      // so (a && b)' = a' && b || b' && a and (a || b)' = a'. Reached by the
      // operator as a function value and by generated derivative code (a
      // nested jvp of `!x`); the source's && and || short-circuit instead.
      uint64_t level = top_level(args, 2);
      const ADValue* va = is_ad(a) && a.ad->level == level ? a.ad.get() : nullptr;
      const ADValue* vb = is_ad(b) && b.ad->level == level ? b.ad.get() : nullptr;
      if ((va && va->tape) || (vb && vb->tape)) return Value(scalar_binop(op, ad_scalar(a), ad_scalar(b)));
      Value pa = va ? va->primal : a, pb = vb ? vb->primal : b;
      Value no = Value(Scalar::boolean(false));
      Value ta = va ? va->tangent : no, tb = vb ? vb->tangent : no;
      auto out = std::make_shared<ADValue>();
      out->level = level;
      out->prim = Prim::Bool;
      out->primal = binop(op, pa, pb);
      out->tangent = op == BuiltinOp::LogAnd
                         ? binop(BuiltinOp::LogOr, binop(BuiltinOp::LogAnd, ta, pb), binop(BuiltinOp::LogAnd, tb, pa))
                         : ta;
      return Value::differentiable(out);
    }
    default:
      // Comparisons, logical and bitwise operators: on the plain values.
      return Value(scalar_binop(op, ad_scalar(a), ad_scalar(b)));
  }
}

Value negate(const Value& a) {
  if (!is_ad(a)) return Value(scalar_neg(a.scalar));
  return lift(&a, 1, [](const Value* p) { return neg(p[0]); },
              [](int, const Value* p, const Value&) { return konst(prim_of(p[0]), -1); });
}

Value logical_not(const Value& a) {
  if (!is_ad(a)) return Value(scalar_not(a.scalar));
  if (a.ad->prim == Prim::Bool) {
    // Forward mode only (booleans get no tape nodes): Futhark's pdUnOp
    // gives `!x` the derivative x, so the tangent is x' && x.
    if (a.ad->tape) return Value(scalar_not(ad_scalar(a)));
    auto out = std::make_shared<ADValue>();
    out->level = a.ad->level;
    out->prim = Prim::Bool;
    out->primal = logical_not(a.ad->primal);
    out->tangent = binop(BuiltinOp::LogAnd, a.ad->tangent, a.ad->primal);
    return Value::differentiable(out);
  }
  return lift(&a, 1, [](const Value* p) { return logical_not(p[0]); },
              [](int, const Value* p, const Value&) { return logical_not(p[0]); });
}

std::optional<Value> function(std::string_view name, const Value* args, int nargs) {
  bool any = false;
  for (int k = 0; k < nargs; ++k) any = any || is_ad(args[k]);
  auto call = [name, nargs](const Value* p) -> Value {
    for (int k = 0; k < nargs; ++k)
      if (is_ad(p[k])) return *function(name, p, nargs);
    return plain_function(name, p, nargs);
  };
  if (!any) {
    Scalar s[3];
    for (int k = 0; k < nargs; ++k) s[k] = args[k].scalar;
    auto r = scalar_function(name, s, nargs);
    if (!r) return std::nullopt;
    return Value(*r);
  }
  if (nargs == 1 && (name == "to_bits" || name == "from_bits") && args[0].ad->level == top_level(args, 1) &&
      args[0].ad->tape)
    args[0].ad->tape->reverse_only = true;  // no reverse rule; forward mode casts the tangent
  if (nargs == 1 && (name == "to_bits" || name == "from_bits") && args[0].ad->level == top_level(args, 1) &&
      !args[0].ad->tape) {
    // Forward mode, as Futhark's Fwd.hs treats a conversion: the tangent
    // goes through the same bit cast (tests/ad/issue2292.fut). Reverse
    // mode has no such rule on the tape: no derivative.
    auto out = std::make_shared<ADValue>();
    out->level = args[0].ad->level;
    out->primal = fn1(name, args[0].ad->primal);
    out->prim = prim_of(out->primal);
    out->tangent = fn1(name, args[0].ad->tangent);
    return Value::differentiable(out);
  }
  if (nargs == 1)
    if (auto rule = unary_rule(name))
      return lift(args, 1, call, [&](int, const Value* p, const Value& r) { return (*rule)(p[0], r); });
  if (auto rule = nary_rule(name, nargs)) return lift(args, nargs, call, *rule);
  return plain_function(name, args, nargs);  // piecewise constant: no derivative
}

Value convert(const Value& a, Prim to) {
  if (!is_ad(a) || to == Prim::Bool) return Value(scalar_convert(ad_scalar(a), to));
  return lift(&a, 1, [to](const Value* p) { return conv(p[0], to); },
              [to](int, const Value*, const Value&) { return konst(to, 1); });
}

}  // namespace thorn::eval::ad
