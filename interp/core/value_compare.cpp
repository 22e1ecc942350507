#include "interp/core/value_compare.hpp"

#include <cmath>

#include <fmt/format.h>

#include "interp/core/value_io.hpp"

namespace thorn {

namespace {

std::string index_text(const std::vector<int64_t>& path) {
  if (path.empty()) return "";
  std::string out = " index [";
  for (size_t k = 0; k < path.size(); ++k) out += (k ? "," : "") + std::to_string(path[k]);
  return out + "]";
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out;
  for (int64_t d : shape) out += fmt::format("[{}]", d);
  return out;
}

std::string kind_text(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Scalar: return std::string(prim_name(v.scalar.type));
    case Value::Kind::Array: return "an array";
    case Value::Kind::Tuple: return "a tuple";
    case Value::Kind::Record: return "a record";
    case Value::Kind::Sum: return "a sum value";
    case Value::Kind::Function: return "a function";
    case Value::Kind::AD: return "a differentiable scalar";
  }
  return "?";
}

class Comparer {
 public:
  Comparer(int index, double tolerance) : index_(index), tolerance_(tolerance) {}

  std::optional<std::string> value(const Value& got, const Value& expected, std::vector<int64_t>& path) {
    if (got.kind != expected.kind)
      return fail(path, fmt::format("expected {}, got {}", kind_text(expected), kind_text(got)));
    switch (got.kind) {
      case Value::Kind::Scalar: {
        double tol = std::max(tolerance_, finite_scaled(expected.scalar));
        return scalar(got.scalar, expected.scalar, tol, path);
      }
      case Value::Kind::Array: return array(got.arr(), expected.arr(), path);
      case Value::Kind::Tuple:
      case Value::Kind::Record: {
        size_t n = got.elems ? got.elems->size() : 0;
        size_t m = expected.elems ? expected.elems->size() : 0;
        if (n != m || (got.names && expected.names && *got.names != *expected.names))
          return fail(path, "expected and actual values have different fields");
        for (size_t k = 0; k < n; ++k)
          if (auto r = value((*got.elems)[k], (*expected.elems)[k], path)) return r;
        return std::nullopt;
      }
      case Value::Kind::Sum: {
        if (got.constructor() != expected.constructor())
          return fail(path, fmt::format("expected #{}, got #{}", expected.constructor(), got.constructor()));
        size_t n = got.elems ? got.elems->size() : 0;
        for (size_t k = 0; k < n; ++k)
          if (auto r = value((*got.elems)[k], (*expected.elems)[k], path)) return r;
        return std::nullopt;
      }
      case Value::Kind::Function: return fail(path, "cannot compare functions");
      case Value::Kind::AD: return fail(path, "cannot compare differentiable scalars");
    }
    return std::nullopt;
  }

 private:
  std::optional<std::string> fail(const std::vector<int64_t>& path, const std::string& what) const {
    return fmt::format("value #{}{}: {}", index_, index_text(path), what);
  }

  double finite_scaled(const Scalar& s) const {
    if (!is_float(s.type) || !std::isfinite(s.f)) return 0;
    return tolerance_ * s.f;
  }

  std::optional<std::string> scalar(const Scalar& got, const Scalar& expected, double tol,
                                    const std::vector<int64_t>& path) const {
    if (got.type != expected.type)
      return fail(path, fmt::format("expected a value of type {}, got {}", prim_name(expected.type),
                                    prim_name(got.type)));
    bool same;
    if (is_float(got.type)) {
      double g = got.f, e = expected.f;
      if (std::isnan(g) && std::isnan(e)) {
        same = true;
      } else if (std::isinf(g) && std::isinf(e)) {
        same = std::signbit(g) == std::signbit(e);
      } else {
        same = std::fabs(g - e) <= tol;
      }
    } else {
      same = got == expected;
    }
    if (same) return std::nullopt;
    return fail(path, fmt::format("expected {}, got {}", format_scalar(expected), format_scalar(got)));
  }

  std::optional<std::string> array(const ArrayValue& got, const ArrayValue& expected, std::vector<int64_t>& path) {
    if (got.shape != expected.shape)
      return fail(path, fmt::format("expected an array of shape {}, got {}", shape_text(expected.shape),
                                    shape_text(got.shape)));
    if (got.elem.kind == ElemShape::Kind::Prim && expected.elem.kind == ElemShape::Kind::Prim) {
      if (got.elem.prim != expected.elem.prim)
        return fail(path, fmt::format("expected an array of {}, got an array of {}", prim_name(expected.elem.prim),
                                      prim_name(got.elem.prim)));
      int64_t n = got.count();
      double tol = tolerance_;
      if (is_float(got.elem.prim))
        for (int64_t k = 0; k < n; ++k) tol = std::max(tol, finite_scaled(prim_element(expected, k)));
      for (int64_t k = 0; k < n; ++k) {
        Scalar g = prim_element(got, k), e = prim_element(expected, k);
        std::vector<int64_t> at = path;
        int64_t rest = k;
        std::vector<int64_t> local(got.shape.size());
        for (size_t d = got.shape.size(); d-- > 0;) {
          local[d] = got.shape[d] ? rest % got.shape[d] : 0;
          rest = got.shape[d] ? rest / got.shape[d] : 0;
        }
        at.insert(at.end(), local.begin(), local.end());
        if (auto r = scalar(g, e, tol, at)) return r;
      }
      return std::nullopt;
    }
    for (int64_t i = 0; i < got.outer(); ++i) {
      path.push_back(i);
      auto r = value(array_row(got, i), array_row(expected, i), path);
      path.pop_back();
      if (r) return r;
    }
    return std::nullopt;
  }

  int index_;
  double tolerance_;
};

}  // namespace

std::optional<std::string> compare_value(const Value& got, const Value& expected, int index, double tolerance) {
  std::vector<int64_t> path;
  return Comparer(index, tolerance).value(got, expected, path);
}

std::optional<std::string> compare_values(const std::vector<Value>& got, const std::vector<Value>& expected,
                                          double tolerance) {
  if (got.size() != expected.size())
    return fmt::format("expected {} value{}, got {}", expected.size(), expected.size() == 1 ? "" : "s", got.size());
  for (size_t k = 0; k < got.size(); ++k)
    if (auto r = compare_value(got[k], expected[k], int(k), tolerance)) return r;
  return std::nullopt;
}

}  // namespace thorn
