#include "interp/core/value_builder.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace thorn {

// One scalar literal as written: its kind, explicit suffix and magnitude.
struct ValueBuilder::Literal {
  enum class Kind { Int, Float, Bool, NamedFloat };
  Kind kind = Kind::Int;
  std::optional<Prim> suffix;
  bool negative = false;
  uint64_t magnitude = 0;  // Int
  double real = 0;         // Float, NamedFloat
  bool truth = false;      // Bool
  const char* begin = nullptr;
  size_t length = 0;

  // Futhark's default for an unsuffixed literal: i32 or f64.
  Prim natural_type() const {
    if (suffix) return *suffix;
    switch (kind) {
      case Kind::Int: return Prim::I32;
      case Kind::Float: return Prim::F64;
      case Kind::Bool: return Prim::Bool;
      case Kind::NamedFloat: return Prim::F64;  // always suffixed in practice
    }
    return Prim::I32;
  }
  std::string_view text() const { return {begin, length}; }
};

ValueBuilder::ValueBuilder(const ValueReader& reader, const char* base, const char* value_begin,
                           std::optional<Prim> target, std::optional<int> rank, std::string_view what,
                           std::string expected_text)
    : reader_(reader),
      base_(base),
      value_begin_(value_begin),
      prim_(target),
      rank_(rank),
      typed_(target.has_value()),
      what_(what),
      expected_text_(std::move(expected_text)) {}

void ValueBuilder::fail(const char* at, size_t length, std::string message) const {
  throw Error(ErrorKind::Input, reader_.loc_at(size_t(at - base_), length),
              fmt::format("{}: {}", what_, message));
}

// The value starting at `at` as written (up to its closing bracket, or the
// end of the token), cut short when long, for "got ..." in messages.
std::string ValueBuilder::snippet(const char* at) const {
  const char* end = base_ + reader_.input_.size();
  if (at >= end) return "the end of the input";
  const char* p = at;
  if (*p == '[' || std::string_view(p, size_t(end - p)).substr(0, 6) == "empty(") {
    int depth = 0;
    for (; p < end; ++p) {
      if (*p == '[' || *p == '(') ++depth;
      if ((*p == ']' || *p == ')') && --depth == 0) {
        ++p;
        break;
      }
    }
  } else {
    while (p < end && !std::isspace(static_cast<unsigned char>(*p)) && *p != ',' && *p != ']') ++p;
  }
  std::string out;
  bool cut = false;
  for (const char* q = at; q < p; ++q) {
    if (out.size() >= 40) {
      cut = true;
      break;
    }
    out += (*q == '\n' || *q == '\r' || *q == '\t') ? ' ' : *q;
  }
  if (cut) out += "...";
  if (out.empty()) out = std::string(1, *at);
  return out;
}

// ------------------------------------------------------------ structure

void ValueBuilder::require_rank(int rank, const char* at, size_t length) {
  if (!rank_) {
    rank_ = rank;
    return;
  }
  if (*rank_ == rank) return;
  if (!expected_text_.empty())
    fail(value_begin_, 1, fmt::format("expected {}, got {}", expected_text_, snippet(value_begin_)));
  fail(at, length, fmt::format("array elements of different ranks (irregular array)"));
}

void ValueBuilder::set_dim(int depth, int64_t n, const char* at) {
  if (int(dims_.size()) <= depth) dims_.resize(size_t(depth) + 1, -1);
  if (dims_[size_t(depth)] < 0) {
    dims_[size_t(depth)] = n;
  } else if (dims_[size_t(depth)] != n) {
    fail(at, 1, fmt::format("irregular array: this row has {} elements, an earlier one {}", n,
                            dims_[size_t(depth)]));
  }
}

void ValueBuilder::count_element() {
  if (!stack_.empty()) stack_.back().count++;
}

void ValueBuilder::open(const char* at) {
  int depth = int(stack_.size());
  if (rank_ && depth >= *rank_) {
    if (!expected_text_.empty())
      fail(value_begin_, 1, fmt::format("expected {}, got {}", expected_text_, snippet(value_begin_)));
    fail(at, 1, "array elements of different ranks (irregular array)");
  }
  stack_.push_back(Level{0, at});
}

void ValueBuilder::close(const char* at) {
  Level level = stack_.back();
  stack_.pop_back();
  set_dim(int(stack_.size()), level.count, level.open_at);
  count_element();
}

// ------------------------------------------------------------ scalars

namespace {

std::optional<Prim> parse_suffix(std::string_view s) {
  if (s.empty()) return std::nullopt;
  return prim_from_name(s);
}

}  // namespace

void ValueBuilder::number(const char* begin, const char* end) {
  Literal lit;
  lit.begin = begin;
  lit.length = size_t(end - begin);
  const char* p = begin;
  if (*p == '-') {
    lit.negative = true;
    ++p;
  }
  int base = 10;
  if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'b')) {
    base = p[1] == 'x' ? 16 : 2;
    p += 2;
  }
  std::string body;  // the digits without underscores
  bool is_decimal = false;
  const char* q = p;
  if (base == 16) {
    while (q < end && (std::isxdigit(static_cast<unsigned char>(*q)) || *q == '_')) ++q;
  } else if (base == 2) {
    while (q < end && (*q == '0' || *q == '1' || *q == '_')) ++q;
  } else {
    while (q < end && (std::isdigit(static_cast<unsigned char>(*q)) || *q == '_')) ++q;
    if (q < end && *q == '.') {
      is_decimal = true;
      ++q;
      while (q < end && (std::isdigit(static_cast<unsigned char>(*q)) || *q == '_')) ++q;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
      is_decimal = true;
      ++q;
      if (q < end && (*q == '+' || *q == '-')) ++q;
      while (q < end && (std::isdigit(static_cast<unsigned char>(*q)) || *q == '_')) ++q;
    }
  }
  for (const char* c = p; c < q; ++c)
    if (*c != '_') body += *c;
  lit.suffix = parse_suffix(std::string_view(q, size_t(end - q)));

  bool float_suffix = lit.suffix && is_float(*lit.suffix);
  if (is_decimal || float_suffix) {
    if (is_decimal && lit.suffix && !is_float(*lit.suffix))
      fail(begin, lit.length, fmt::format("a decimal number cannot have the suffix {}", prim_name(*lit.suffix)));
    if (base != 10) fail(begin, lit.length, "a hexadecimal or binary number cannot be a float");
    lit.kind = Literal::Kind::Float;
    double v = 0;
    auto r = std::from_chars(body.data(), body.data() + body.size(), v);
    if (r.ec == std::errc::result_out_of_range) {
      v = std::strtod(body.c_str(), nullptr);  // gives inf or 0 like Futhark's reader
    }
    lit.real = lit.negative ? -v : v;
  } else {
    lit.kind = Literal::Kind::Int;
    uint64_t m = 0;
    for (char c : body) {
      unsigned d = std::isdigit(static_cast<unsigned char>(c)) ? unsigned(c - '0')
                                                              : unsigned(std::tolower(c) - 'a' + 10);
      if (m > (std::numeric_limits<uint64_t>::max() - d) / uint64_t(base))
        fail(begin, lit.length, fmt::format("integer {} is too large for any integer type", lit.text()));
      m = m * uint64_t(base) + d;
    }
    lit.magnitude = m;
  }
  count_element();
  store(lit);
}

void ValueBuilder::named_float(const char* begin, const char* end) {
  Literal lit;
  lit.kind = Literal::Kind::NamedFloat;
  lit.begin = begin;
  lit.length = size_t(end - begin);
  std::string_view s = lit.text();
  if (s[0] == '-') {
    lit.negative = true;
    s.remove_prefix(1);
  }
  lit.suffix = prim_from_name(s.substr(0, 3));
  bool inf = s.substr(4) == "inf";
  double v = inf ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  lit.real = lit.negative ? -v : v;
  count_element();
  store(lit);
}

void ValueBuilder::boolean(const char* begin, const char* end) {
  Literal lit;
  lit.kind = Literal::Kind::Bool;
  lit.begin = begin;
  lit.length = size_t(end - begin);
  lit.truth = lit.text() == "true";
  count_element();
  store(lit);
}

// Converts the literal to the element type (fixing it from the first
// element when the caller gave none) and appends its bytes.
void ValueBuilder::store(const Literal& lit) {
  require_rank(int(stack_.size()), lit.begin, lit.length);
  if (!prim_) prim_ = lit.natural_type();
  Prim p = *prim_;

  auto mismatch = [&]() {
    if (typed_ && !expected_text_.empty())
      fail(lit.begin, lit.length, fmt::format("expected {}, got {}", expected_text_, lit.text()));
    fail(lit.begin, lit.length,
         fmt::format("array elements must all have the type of the first one, {}; got {}", prim_name(p),
                     lit.text()));
  };

  Scalar s;
  switch (lit.kind) {
    case Literal::Kind::Bool:
      if (p != Prim::Bool) mismatch();
      s = Scalar::boolean(lit.truth);
      break;
    case Literal::Kind::NamedFloat:
    case Literal::Kind::Float:
      if (!is_float(p) || (lit.suffix && *lit.suffix != p)) mismatch();
      s = Scalar::floating(p, lit.real);
      break;
    case Literal::Kind::Int:
      if (p == Prim::Bool || (lit.suffix && *lit.suffix != p)) mismatch();
      if (is_float(p)) {
        double m = double(lit.magnitude);
        s = Scalar::floating(p, lit.negative ? -m : m);
      } else if (lit.negative) {
        s = Scalar::signed_int(p, int64_t(0 - lit.magnitude));  // wraps like Futhark's reader
      } else {
        s = Scalar::unsigned_int(p, lit.magnitude);
      }
      break;
  }
  size_t at = data_.size();
  data_.resize(at + size_t(prim_bytes(p)));
  store_scalar(data_.data() + at, s);
  count_++;
}

void ValueBuilder::string(const char* begin, const char* end) {
  // The bytes of the (UTF-8) string, with Haskell-style escapes decoded.
  std::string bytes;
  for (const char* p = begin + 1; p < end - 1; ++p) {
    if (*p != '\\') {
      bytes += *p;
      continue;
    }
    ++p;
    switch (*p) {
      case 'n': bytes += '\n'; break;
      case 't': bytes += '\t'; break;
      case 'r': bytes += '\r'; break;
      case '0': bytes += '\0'; break;
      case 'x': {
        int v = 0, k = 0;
        while (k < 2 && p + 1 < end - 1 && std::isxdigit(static_cast<unsigned char>(p[1]))) {
          ++p;
          ++k;
          v = v * 16 + (std::isdigit(static_cast<unsigned char>(*p)) ? *p - '0' : std::tolower(*p) - 'a' + 10);
        }
        bytes += char(v);
        break;
      }
      default: bytes += *p; break;  // \\ \" \'
    }
  }
  int depth = int(stack_.size());
  require_rank(depth + 1, begin, size_t(end - begin));
  if (!prim_) prim_ = Prim::U8;
  if (*prim_ != Prim::U8)
    fail(begin, size_t(end - begin),
         expected_text_.empty() ? fmt::format("a string is a []u8, but this array has elements of type {}",
                                              prim_name(*prim_))
                                : fmt::format("expected {}, got a string (a []u8)", expected_text_));
  set_dim(depth, int64_t(bytes.size()), begin);
  for (char c : bytes) data_.push_back(std::byte(static_cast<unsigned char>(c)));
  count_ += int64_t(bytes.size());
  count_element();
}

void ValueBuilder::empty(const char* begin, const char* end) {
  // empty([d1][d2]...t): parse the dimensions and the type again from the
  // text the grammar has already validated.
  std::vector<int64_t> shape;
  const char* p = begin + 5;  // after "empty"
  const char* type_begin = nullptr;
  while (p < end) {
    if (*p == '[') {
      ++p;
      while (std::isspace(static_cast<unsigned char>(*p))) ++p;
      int64_t n = 0;
      const char* digits_begin = p;
      for (; p < end && (std::isdigit(static_cast<unsigned char>(*p)) || *p == '_'); ++p)
        if (*p != '_') {
          if (n > (std::numeric_limits<int64_t>::max() - 9) / 10) fail(digits_begin, 1, "dimension too large");
          n = n * 10 + (*p - '0');
        }
      shape.push_back(n);
    } else if (std::isalpha(static_cast<unsigned char>(*p))) {
      type_begin = p;
      while (p < end && std::isalnum(static_cast<unsigned char>(*p))) ++p;
      break;
    } else {
      ++p;
    }
  }
  Prim t = *prim_from_name(std::string_view(type_begin, size_t(p - type_begin)));
  size_t length = size_t(end - begin);
  if (shape.empty()) fail(begin, length, "empty() needs at least one dimension, as in empty([0]i32)");
  bool zero = false;
  for (int64_t d : shape) zero = zero || d == 0;
  if (!zero) fail(begin, length, "empty() needs a dimension that is 0");

  int depth = int(stack_.size());
  require_rank(depth + int(shape.size()), begin, length);
  if (!prim_) prim_ = t;
  if (*prim_ != t) {
    if (typed_ && !expected_text_.empty())
      fail(begin, length, fmt::format("expected {}, got {}", expected_text_, std::string_view(begin, length)));
    fail(begin, length,
         fmt::format("array elements must all have the type of the first one, {}; got {}", prim_name(*prim_),
                     std::string_view(begin, length)));
  }
  for (size_t k = 0; k < shape.size(); ++k) set_dim(depth + int(k), shape[k], begin);
  count_element();
}

// ------------------------------------------------------------ result

Value ValueBuilder::finish(ValueType* type_out) {
  if (!rank_ || !prim_) {
    // Only empty brackets: the element type must come from the caller.
    fail(value_begin_, 1,
         fmt::format("cannot tell the element type of {}; write it as empty([0]i32) or similar",
                     snippet(value_begin_)));
  }
  Prim p = *prim_;
  int rank = *rank_;
  dims_.resize(size_t(rank), -1);
  for (auto& d : dims_)
    if (d < 0) d = 0;  // a dimension under an empty one: nothing says otherwise
  if (type_out) {
    type_out->prim = p;
    type_out->shape = dims_;
  }
  if (rank == 0) return load_scalar(p, data_.data());

  int64_t count = 1;
  for (int64_t d : dims_) count *= d;
  if (count != count_) fail(value_begin_, 1, "internal error: element count does not match the shape");
  auto buffer = std::make_shared<Buffer>(p, count);
  if (!data_.empty()) std::memcpy(buffer->host_mut(), data_.data(), data_.size());
  return Value::make_array(make_prim_array(buffer, dims_));
}

}  // namespace thorn
