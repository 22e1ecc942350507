// Pattern binding and run-time size checks.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "interp/core/ad_value.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/eval/size_infer.hpp"
#include "interp/eval/scalar_ops.hpp"
#include "interp/eval/value_ops.hpp"

namespace thorn::eval {

bool Evaluator::SizeScope::is_bound(const std::string& name) const {
  if (!frame) return false;
  for (const auto& [n, b] : *frame)
    if (n == name) return true;
  return false;
}

std::optional<int64_t> Evaluator::SizeScope::lookup(const QualName& name, const EnvPtr& env) const {
  const Binding* b = nullptr;
  if (frame && name.qualifiers.empty()) {
    for (auto it = frame->rbegin(); it != frame->rend(); ++it)
      if (it->first == name.name) {
        b = &it->second;
        break;
      }
  }
  if (!b) b = lookup_value(env, name);
  if (!b || b->consumed || (b->value.kind != Value::Kind::Scalar && b->value.kind != Value::Kind::AD) ||
      !is_integral(ad_scalar(b->value).type))
    return std::nullopt;
  return ad_scalar(b->value).as_i64();
}

namespace {

// Takes the elements of a tuple/record value, moving them out when this is
// the only reference (so in-place updates on them stay in place).
std::vector<Value> take_elems(Value& v) {
  if (v.elems.use_count() == 1) return std::move(const_cast<std::vector<Value>&>(*v.elems));
  return *v.elems;
}

Binding plain(Value v) {
  Binding b;
  b.value = std::move(v);
  return b;
}

}  // namespace

bool Evaluator::bind_pattern(const Pattern& p, Value v, std::vector<std::pair<std::string, Binding>>& frame,
                             SizeScope* sizes, const Ctx& ctx, bool refutable, const Loc* site) {
  switch (p.kind) {
    case Pattern::Kind::Id: frame.emplace_back(p.name, plain(std::move(v))); return true;
    case Pattern::Kind::Wildcard: return true;
    case Pattern::Kind::Tuple: {
      if (p.elems.empty()) return true;  // ()
      if (v.kind != Value::Kind::Tuple || v.elems->size() != p.elems.size())
        throw Error(ErrorKind::Internal, p.loc, "tuple pattern does not match the value's structure");
      std::vector<Value> xs = take_elems(v);
      v = Value();
      for (size_t k = 0; k < p.elems.size(); ++k)
        if (!bind_pattern(*p.elems[k], std::move(xs[k]), frame, sizes, ctx, refutable, site)) return false;
      return true;
    }
    case Pattern::Kind::Record: {
      if (v.kind != Value::Kind::Record)
        throw Error(ErrorKind::Internal, p.loc, "record pattern does not match the value's structure");
      for (const auto& [name, sub] : p.fields) {
        const Value* f = v.field(name);
        if (!f) throw Error(ErrorKind::Internal, p.loc, "record pattern names a missing field " + name);
        if (!sub) {
          frame.emplace_back(name, plain(*f));
        } else if (!bind_pattern(*sub, *f, frame, sizes, ctx, refutable, site)) {
          return false;
        }
      }
      return true;
    }
    case Pattern::Kind::Literal: {
      Value lit = eval(*p.literal, ctx);
      bool same = values_equal(lit, v);
      if (!same && !refutable) throw Error(ErrorKind::Runtime, p.loc, "literal pattern does not match");
      return same;
    }
    case Pattern::Kind::Constructor: {
      if (v.kind != Value::Kind::Sum || v.constructor() != p.name) {
        if (!refutable) throw Error(ErrorKind::Runtime, p.loc, "constructor pattern #" + p.name + " does not match");
        return false;
      }
      std::vector<Value> xs = take_elems(v);
      for (size_t k = 0; k < p.elems.size() && k < xs.size(); ++k)
        if (!bind_pattern(*p.elems[k], std::move(xs[k]), frame, sizes, ctx, refutable, site)) return false;
      return true;
    }
    case Pattern::Kind::Ascribed: {
      if (p.ascription) {
        SizeScope none;
        const Pattern* id = p.inner.get();
        while (id && id->kind == Pattern::Kind::Ascribed) id = id->inner.get();
        std::string what = id && id->kind == Pattern::Kind::Id ? "`" + id->name + "`" : "the value";
        check_type_sizes(*p.ascription, v, sizes ? *sizes : none, ctx, site ? *site : p.loc, what, p.type);
      }
      return bind_pattern(*p.inner, std::move(v), frame, sizes, ctx, refutable, site);
    }
  }
  return false;
}

// ------------------------------------------------------------------ sizes

namespace {

std::string source_text_of(const Loc& loc) {
  if (!loc.known()) return "?";
  std::string_view line = loc.file->line(loc.line);
  if (loc.col == 0 || loc.col > line.size()) return "?";
  size_t from = loc.col - 1;
  size_t to = loc.end_col >= loc.col ? std::min<size_t>(loc.end_col, line.size()) : line.size();
  return std::string(line.substr(from, to - from));
}

}  // namespace

// The value of a size expression (`n - 1`, `n * m`, `2 * n + 1`) in i64
// arithmetic, or nullopt when it uses something other than sizes in scope,
// integer literals and + - * / %. (The checker leaves these unannotated.)
std::optional<int64_t> size_expr_value(const Expr& e, const Evaluator::SizeScope& sizes, const EnvPtr& env) {
  switch (e.kind) {
    case Expr::Kind::IntLit: return int64_t(e.int_value);
    case Expr::Kind::Var: return sizes.lookup(e.name, env);
    case Expr::Kind::Negate: {
      auto x = size_expr_value(*e.a, sizes, env);
      if (!x) return std::nullopt;
      return int64_t(0 - uint64_t(*x));
    }
    case Expr::Kind::BinOp: {
      auto x = size_expr_value(*e.a, sizes, env);
      auto y = size_expr_value(*e.b, sizes, env);
      if (!x || !y || !e.name.qualifiers.empty()) return std::nullopt;
      uint64_t a = uint64_t(*x), b = uint64_t(*y);
      const std::string& op = e.name.name;
      if (op == "+") return int64_t(a + b);
      if (op == "-") return int64_t(a - b);
      if (op == "*") return int64_t(a * b);
      if ((op == "/" || op == "%") && *y != 0 && !(*x == INT64_MIN && *y == -1)) {
        int64_t q = *x / *y, r = *x % *y;
        bool adjust = r != 0 && ((r < 0) != (*y < 0));
        return op == "/" ? (adjust ? q - 1 : q) : (adjust ? r + *y : r);
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

namespace {

struct SizeMismatch {
  std::string name;  // the size's name, or its constant
  int64_t expected = 0;
  int64_t actual = 0;
};

}  // namespace

void Evaluator::check_type_sizes(const TypeExpr& te, const Value& v, SizeScope& sizes, const Ctx& ctx,
                                 const Loc& loc, const std::string& what, const TypePtr& shown) {
  std::optional<SizeMismatch> mismatch;

  // Checks one dimension; binds it when it names a size parameter not yet bound.
  auto check_dim = [&](const SizeExpr& s, int64_t actual) {
    if (mismatch) return;
    switch (s.kind) {
      case SizeExpr::Kind::Anonymous: return;
      case SizeExpr::Kind::Constant:
        if (s.value != actual) mismatch = SizeMismatch{fmt::format("{}", s.value), s.value, actual};
        return;
      case SizeExpr::Kind::Name: {
        bool param = s.name.qualifiers.empty() &&
                     std::find(sizes.to_bind.begin(), sizes.to_bind.end(), s.name.name) != sizes.to_bind.end();
        if (param && !sizes.is_bound(s.name.name)) {
          Binding b;
          b.value = Value(Scalar::i64(actual));
          sizes.frame->emplace_back(s.name.name, std::move(b));
          return;
        }
        std::optional<int64_t> known = sizes.lookup(s.name, ctx.env);
        if (known && *known != actual) mismatch = SizeMismatch{s.name.str(), *known, actual};
        return;
      }
      case SizeExpr::Kind::Expr: {
        // `[n - 1]`, `[n * m]`: checked when it can be evaluated with the
        // sizes known so far (it cannot bind anything).
        if (!s.expr) return;
        std::optional<int64_t> known = size_expr_value(*s.expr, sizes, ctx.env);
        if (known && *known != actual) mismatch = SizeMismatch{"`" + source_text_of(s.loc) + "`", *known, actual};
        return;
      }
    }
  };

  std::function<void(const TypeExpr&, const Value&)> walk = [&](const TypeExpr& t, const Value& x) {
    if (mismatch) return;
    switch (t.kind) {
      case TypeExpr::Kind::Array: {
        if (x.kind != Value::Kind::Array) return;
        const ArrayValue& a = *x.array;
        const TypeExpr* cur = &t;
        size_t k = 0;
        while (cur->kind == TypeExpr::Kind::Array || cur->kind == TypeExpr::Kind::Unique) {
          if (cur->kind == TypeExpr::Kind::Array) {
            if (k < a.shape.size()) check_dim(cur->size, a.shape[k]);
            ++k;
          }
          cur = cur->elem.get();
        }
        // Sizes inside the element type (arrays in tuples): check on one element.
        if (k == a.shape.size() && a.count() > 0 &&
            (cur->kind == TypeExpr::Kind::Tuple || cur->kind == TypeExpr::Kind::Record)) {
          Value elem = x;
          for (size_t d = 0; d < k; ++d) elem = array_row(*elem.array, 0);
          walk(*cur, elem);
        }
        return;
      }
      case TypeExpr::Kind::Tuple:
        if (x.kind != Value::Kind::Tuple || x.elems->size() != t.elems.size()) return;
        for (size_t k = 0; k < t.elems.size(); ++k) walk(*t.elems[k], (*x.elems)[k]);
        return;
      case TypeExpr::Kind::Record:
        if (x.kind != Value::Kind::Record) return;
        for (const auto& [name, ft] : t.fields)
          if (const Value* f = x.field(name)) walk(*ft, *f);
        return;
      case TypeExpr::Kind::Unique: walk(*t.elem, x); return;
      // Existential sizes are fresh by definition; abbreviations, sums and
      // functions are left to the checker.
      default: return;
    }
  };
  walk(te, v);
  if (!mismatch) return;

  const std::string& w = what;
  if (w == "return")
    throw Error(ErrorKind::Runtime, loc, "Function return value does not match shape of declared return type.");
  if (w == "coerce")
    throw Error(ErrorKind::Runtime, loc,
                fmt::format("Value of shape {} cannot match shape of type \"{}\".", shape_of(v),
                            shown ? to_string(*shown) : std::string("?")));
  std::string type_text = shown ? fmt::format(" `{}`", to_string(*shown)) : std::string();
  throw Error(ErrorKind::Runtime, loc,
              fmt::format("Size mismatch: {} vs {} ({} has shape {}, but its type{} requires {} = {}).",
                          mismatch->expected, mismatch->actual, what, shape_of(v), type_text, mismatch->name,
                          mismatch->expected));
}

void Evaluator::bind_sizes_from_type(const Type& t, const Value& v, SizeScope& sizes) {
  switch (t.kind) {
    case Type::Kind::Array: {
      if (v.kind != Value::Kind::Array) return;
      const ArrayValue& a = *v.array;
      for (size_t k = 0; k < t.dims.size() && k < a.shape.size(); ++k) {
        const Dim& d = t.dims[k];
        if (d.kind != Dim::Kind::Name || sizes.is_bound(d.name)) continue;
        if (std::find(sizes.to_bind.begin(), sizes.to_bind.end(), d.name) == sizes.to_bind.end()) continue;
        Binding b;
        b.value = Value(Scalar::i64(a.shape[k]));
        sizes.frame->emplace_back(d.name, std::move(b));
      }
      if (t.dims.size() == a.shape.size() && a.count() > 0 &&
          (t.elem->kind == Type::Kind::Tuple || t.elem->kind == Type::Kind::Record)) {
        Value elem = v;
        for (size_t k = 0; k < t.dims.size(); ++k) elem = array_row(*elem.array, 0);
        bind_sizes_from_type(*t.elem, elem, sizes);
      }
      return;
    }
    case Type::Kind::Tuple:
      if (v.kind != Value::Kind::Tuple || v.elems->size() != t.elems.size()) return;
      for (size_t k = 0; k < t.elems.size(); ++k) bind_sizes_from_type(*t.elems[k], (*v.elems)[k], sizes);
      return;
    case Type::Kind::Record:
      if (v.kind != Value::Kind::Record) return;
      for (const auto& [name, ft] : t.fields)
        if (const Value* f = v.field(name)) bind_sizes_from_type(*ft, *f, sizes);
      return;
    default: return;
  }
}

}  // namespace thorn::eval
