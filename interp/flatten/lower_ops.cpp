// Scalar operators for the lowering: Futhark's semantics in kernel IR, with
// the checks the reference performs (division by zero, negative integer
// exponents), folded at plan time when both operands are known.
#include <fmt/format.h>

#include "interp/eval/scalar_ops.hpp"
#include "interp/flatten/lower.hpp"

namespace thorn::flatten {

using kir::BinOp;
using kir::CmpOp;
using kir::UnOp;

namespace {

struct OpInfo {
  enum Kind { Arith, Cmp, Logic } kind = Arith;
  BinOp bin = BinOp::Add;
  CmpOp cmp = CmpOp::Eq;
};

std::optional<OpInfo> op_info(std::string_view op, Prim t) {
  OpInfo i;
  auto arith = [&](BinOp b) {
    i.kind = OpInfo::Arith;
    i.bin = b;
    return i;
  };
  auto cmp = [&](CmpOp c) {
    i.kind = OpInfo::Cmp;
    i.cmp = c;
    return i;
  };
  if (op == "+") return arith(BinOp::Add);
  if (op == "-") return arith(BinOp::Sub);
  if (op == "*") return arith(BinOp::Mul);
  if (op == "/") return arith(BinOp::Div);
  if (op == "%") return arith(BinOp::Mod);
  if (op == "//") return arith(BinOp::Quot);
  if (op == "%%") return arith(BinOp::Rem);
  if (op == "**") return arith(BinOp::Pow);
  if (op == "&") return arith(BinOp::And);
  if (op == "|") return arith(BinOp::Or);
  if (op == "^") return arith(BinOp::Xor);
  if (op == "<<") return arith(BinOp::Shl);
  if (op == ">>") return arith(is_unsigned_int(t) ? BinOp::LShr : BinOp::Shr);
  if (op == ">>>") return arith(BinOp::LShr);
  if (op == "min") return arith(BinOp::Min);
  if (op == "max") return arith(BinOp::Max);
  if (op == "atan2") return arith(BinOp::Atan2);
  if (op == "hypot") return arith(BinOp::Hypot);
  if (op == "pow") return arith(BinOp::Pow);
  if (op == "==") return cmp(CmpOp::Eq);
  if (op == "!=") return cmp(CmpOp::Ne);
  if (op == "<") return cmp(CmpOp::Lt);
  if (op == "<=") return cmp(CmpOp::Le);
  if (op == ">") return cmp(CmpOp::Gt);
  if (op == ">=") return cmp(CmpOp::Ge);
  if (op == "&&") {
    i.kind = OpInfo::Logic;
    i.bin = BinOp::LogAnd;
    return i;
  }
  if (op == "||") {
    i.kind = OpInfo::Logic;
    i.bin = BinOp::LogOr;
    return i;
  }
  return std::nullopt;
}

// Plan-time evaluation through the reference's own scalar semantics.
std::optional<Scalar> fold2(std::string_view op, const Scalar& a, const Scalar& b) {
  try {
    if (auto bop = eval::builtin_op_from_name(op)) return eval::scalar_binop(*bop, a, b);
    Scalar args[2] = {a, b};
    return eval::scalar_function(op, args, 2);
  } catch (const std::exception&) {
    return std::nullopt;  // e.g. division by zero: happens at run time, if ever
  }
}

}  // namespace

Sym Lowerer::binop(std::string_view op, const Sym& a, const Sym& b, const Loc& loc) {
  if (op == "==" || op == "!=") {
    if (!a.is_scalar() || !b.is_scalar()) return eq(a, b, op == "!=", loc);
  }
  if (!a.is_scalar() || !b.is_scalar())
    throw Fallback(fmt::format("operator {} on non-scalar values", op));
  Prim t = a.prim;
  auto info = op_info(op, t);
  if (!info) throw Fallback(fmt::format("operator {} is not supported by the flattener", op));
  if (a.known && b.known) {
    if (auto v = fold2(op, *a.known, *b.known)) return constant(*v);
  }
  if (is_integral(t) && info->kind == OpInfo::Arith) {
    BinOp k = info->bin;
    if (k == BinOp::Div || k == BinOp::Mod || k == BinOp::Quot || k == BinOp::Rem) {
      if (!(b.known && b.known->u != 0))
        b_.check(b_.compare(CmpOp::Ne, b.reg, b_.constant(Scalar::signed_int(t, 0))), "division by zero", loc);
    } else if (k == BinOp::Pow && is_signed_int(t)) {
      if (!(b.known && b.known->i >= 0))
        b_.check(b_.compare(CmpOp::Ge, b.reg, b_.constant(Scalar::signed_int(t, 0))),
                 "negative exponent in integer power", loc);
    }
  }
  switch (info->kind) {
    case OpInfo::Cmp: return Sym::scalar(b_.compare(info->cmp, a.reg, b.reg), Prim::Bool);
    case OpInfo::Logic:
    case OpInfo::Arith: return Sym::scalar(b_.binary(info->bin, a.reg, b.reg), t);
  }
  return {};
}

Sym Lowerer::eq(const Sym& a, const Sym& b, bool negate, const Loc& loc) {
  if (has_array(a) || has_array(b)) {
    // Arrays (Futhark's == compares them whole): equal shapes, then every
    // element, one loop per dimension; tuples of them component by component.
    Sym acc;
    if (a.kind == Sym::Kind::Array && b.kind == Sym::Kind::Array) {
      if (dynamic(a) || dynamic(b)) throw Fallback("== on arrays whose length depends on the element");
      if (a.arr->dims != b.arr->dims) {
        acc = constant(Scalar::boolean(false));
      } else {
        std::vector<kir::Reg> out = b_.for_(b_.i64(a.arr->dims[0]), {b_.constant(Scalar::boolean(true))},
                                            [&](kir::Reg i, const std::vector<kir::Reg>& carried) {
                                              Sym same = eq(index(a, i, loc, false), index(b, i, loc, false), false, loc);
                                              return std::vector<kir::Reg>{
                                                  b_.binary(kir::BinOp::LogAnd, carried[0], same.reg)};
                                            });
        acc = Sym::scalar(out[0], Prim::Bool);
      }
    } else if ((a.kind == Sym::Kind::Tuple || a.kind == Sym::Kind::Record) && a.kind == b.kind &&
               a.elems.size() == b.elems.size()) {
      acc = constant(Scalar::boolean(true));
      for (size_t k = 0; k < a.elems.size(); ++k) acc = binop("&&", acc, eq(a.elems[k], b.elems[k], false, loc), loc);
    } else {
      throw Fallback("== on values of different structure");
    }
    return negate ? unop("!", acc, loc) : acc;
  }
  std::vector<kir::Reg> xs = leaves(a), ys = leaves(b);
  if (xs.size() != ys.size()) {
    // Sums holding different constructors (`(!=) #null` against a value
    // read from an array): both in their union layout, where equal values
    // have equal tags and payloads (other constructors' payloads are zero).
    if (std::optional<Sym> like = sum_union(a, b)) return eq(conform_sums(a, *like), conform_sums(b, *like), negate, loc);
    throw Fallback("== on values of different structure");
  }
  Sym acc = constant(Scalar::boolean(true));
  for (size_t k = 0; k < xs.size(); ++k) {
    Sym x = Sym::scalar(xs[k], f_.reg_types[size_t(xs[k])]);
    Sym y = Sym::scalar(ys[k], f_.reg_types[size_t(ys[k])]);
    acc = binop("&&", acc, binop("==", x, y, loc), loc);
  }
  return negate ? unop("!", acc, loc) : acc;
}

Sym Lowerer::unop(std::string_view name, const Sym& a, const Loc& loc) {
  if (!a.is_scalar()) throw Fallback(fmt::format("{} on a non-scalar value", name));
  Prim t = a.prim;
  if (a.known) {
    try {
      if (name == "!") return constant(eval::scalar_not(*a.known));
      if (name == "neg") return constant(eval::scalar_neg(*a.known));
      if (auto v = eval::scalar_function(name, &*a.known, 1)) return constant(*v);
    } catch (const std::exception&) {
    }
  }
  auto un = [&](UnOp op) {
    kir::Reg r = b_.unary(op, a.reg);  // before reading its type: argument order is unspecified
    return Sym::scalar(r, f_.reg_types[size_t(r)]);
  };
  if (name == "!") return un(t == Prim::Bool ? UnOp::Not : UnOp::Complement);
  if (name == "neg") return un(t == Prim::Bool ? UnOp::Not : UnOp::Neg);
  if (name == "abs") return (is_unsigned_int(t) || t == Prim::Bool) ? a : un(UnOp::Abs);
  if (name == "sgn") return un(UnOp::Signum);
  if (name == "popc" || name == "clz" || name == "ctz") {
    if (!is_integral(t)) throw Fallback(fmt::format("{} on {}", name, prim_name(t)));
    return un(name == "popc" ? UnOp::Popc : name == "clz" ? UnOp::Clz : UnOp::Ctz);
  }
  if (name == "to_bits") return un(UnOp::ToBits);
  if (name == "from_bits") return un(UnOp::FromBits);
  if (name == "recip") return binop("/", constant(Scalar::floating(t, 1.0)), a, loc);
  static const std::pair<std::string_view, UnOp> kFloat[] = {
      {"sqrt", UnOp::Sqrt},   {"cbrt", UnOp::Cbrt},   {"exp", UnOp::Exp},       {"log", UnOp::Log},
      {"log2", UnOp::Log2},   {"log10", UnOp::Log10}, {"log1p", UnOp::Log1p},   {"sin", UnOp::Sin},
      {"cos", UnOp::Cos},     {"tan", UnOp::Tan},     {"asin", UnOp::Asin},     {"acos", UnOp::Acos},
      {"atan", UnOp::Atan},   {"sinh", UnOp::Sinh},   {"cosh", UnOp::Cosh},     {"tanh", UnOp::Tanh},
      {"asinh", UnOp::Asinh}, {"acosh", UnOp::Acosh}, {"atanh", UnOp::Atanh},   {"floor", UnOp::Floor},
      {"ceil", UnOp::Ceil},   {"round", UnOp::Round}, {"trunc", UnOp::Trunc},   {"erf", UnOp::Erf},
      {"erfc", UnOp::Erfc},   {"gamma", UnOp::Gamma}, {"lgamma", UnOp::Lgamma}, {"isnan", UnOp::IsNan},
      {"isinf", UnOp::IsInf}};
  for (auto [n, op] : kFloat) {
    if (n != name) continue;
    if (!is_float(t)) {
      // isnan/isinf/round/... of integers are what the reference defines them to be; keep it there.
      throw Fallback(fmt::format("{} on {}", name, prim_name(t)));
    }
    return un(op);
  }
  throw Fallback(fmt::format("scalar function {} is not supported by the flattener", name));
}

Sym Lowerer::convert(const Sym& a, Prim to) {
  if (!a.is_scalar()) throw Fallback("conversion of a non-scalar value");
  if (a.prim == to) return a;
  if (a.known) return constant(eval::scalar_convert(*a.known, to));
  return Sym::scalar(b_.convert(to, a.reg), to);
}

}  // namespace thorn::flatten
