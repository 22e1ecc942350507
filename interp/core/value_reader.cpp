// ValueReader: the stream of values (text and binary mixed), expected
// types, and error positions. The grammar is in value_text_grammar.cpp and
// the construction of values in value_builder.cpp.
#include <cctype>

#include <fmt/format.h>

#include "interp/core/value_builder.hpp"
#include "interp/core/value_io.hpp"
#include "interp/util/error.hpp"

namespace thorn {

// ------------------------------------------------------------ types

std::string ValueType::str() const {
  std::string out;
  for (int64_t d : shape) out += fmt::format("[{}]", d);
  return out + std::string(prim_name(prim));
}

ValueType value_type_of(const Value& v) {
  if (v.kind == Value::Kind::Scalar) return ValueType{v.scalar.type, {}};
  if (v.kind == Value::Kind::Array && v.arr().elem.kind == ElemShape::Kind::Prim)
    return ValueType{v.arr().elem.prim, v.arr().shape};
  throw Error(ErrorKind::Input, "only primitive values and arrays of them have a value-format type");
}

TypePtr semantic_type(const ValueType& t) {
  auto elem = std::make_shared<Type>();
  elem->kind = Type::Kind::Prim;
  elem->prim = t.prim;
  if (t.shape.empty()) return elem;
  auto arr = std::make_shared<Type>();
  arr->kind = Type::Kind::Array;
  arr->elem = elem;
  for (int64_t d : t.shape) arr->dims.push_back(Dim{Dim::Kind::Constant, d, "", nullptr});
  return arr;
}

namespace {

std::string dim_text(const Dim& d) {
  switch (d.kind) {
    case Dim::Kind::Constant: return fmt::format("[{}]", d.value);
    case Dim::Kind::Name:
      // A size parameter the checker inferred (`d#0`) was not written.
      if (d.name.find('#') != std::string::npos) return "[]";
      return fmt::format("[{}]", d.name);
    case Dim::Kind::Unknown: return "[]";
  }
  return "[]";
}

}  // namespace

std::string type_text(const Type& t) {
  std::string u = t.unique ? "*" : "";
  switch (t.kind) {
    case Type::Kind::Prim: return u + std::string(prim_name(t.prim));
    case Type::Kind::Array: {
      std::string out = u;
      for (const Dim& d : t.dims) out += dim_text(d);
      return out + (t.elem ? type_text(*t.elem) : "?");
    }
    case Type::Kind::Tuple: {
      std::string out = u + "(";
      for (size_t i = 0; i < t.elems.size(); ++i) out += (i ? ", " : "") + type_text(*t.elems[i]);
      return out + ")";
    }
    case Type::Kind::Record: {
      std::string out = u + "{";
      for (size_t i = 0; i < t.fields.size(); ++i)
        out += fmt::format("{}{}: {}", i ? ", " : "", t.fields[i].first, type_text(*t.fields[i].second));
      return out + "}";
    }
    case Type::Kind::Sum: {
      std::string out = u;
      for (size_t i = 0; i < t.constructors.size(); ++i) {
        out += (i ? " | #" : "#") + t.constructors[i].first;
        for (const auto& payload : t.constructors[i].second) {
          bool paren = payload->kind == Type::Kind::Function || payload->kind == Type::Kind::Sum;
          out += paren ? " (" + type_text(*payload) + ")" : " " + type_text(*payload);
        }
      }
      return out;
    }
    case Type::Kind::Function: {
      std::string param = t.param ? type_text(*t.param) : "?";
      if (!t.param_name.empty()) {
        param = fmt::format("({}: {})", t.param_name, param);
      } else if (t.param && (t.param->kind == Type::Kind::Function)) {
        param = "(" + param + ")";
      }
      return param + " -> " + (t.result ? type_text(*t.result) : "?");
    }
    case Type::Kind::Param: return t.var_name.empty() ? fmt::format("t{}", t.var_id) : t.var_name;
  }
  return "?";
}

bool is_value_format_type(const Type& t) {
  switch (t.kind) {
    case Type::Kind::Prim:
    case Type::Kind::Param: return true;
    case Type::Kind::Array:
      return t.elem && (t.elem->kind == Type::Kind::Prim || t.elem->kind == Type::Kind::Param);
    default: return false;
  }
}

// ------------------------------------------------------------ the reader

ValueReader::ValueReader(std::string_view input, std::string source_name, uint32_t first_line, uint32_t first_col)
    : input_(input), name_(std::move(source_name)), first_line_(first_line), first_col_(first_col) {}

void ValueReader::skip_blanks() {
  while (pos_ < input_.size()) {
    char c = input_[pos_];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos_;
    } else if (c == '-' && pos_ + 1 < input_.size() && input_[pos_ + 1] == '-') {
      while (pos_ < input_.size() && input_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

bool ValueReader::at_end() {
  skip_blanks();
  return pos_ >= input_.size();
}

Loc ValueReader::position() {
  skip_blanks();
  if (pos_ < input_.size()) return loc_at(pos_);
  // At the end: just after the last thing written, not on a blank last line.
  size_t end = input_.size();
  while (end > 0 && std::isspace(static_cast<unsigned char>(input_[end - 1]))) --end;
  return loc_at(end);
}

// Positions are computed only when an error needs one. The SourceFile made
// for it holds just the offending line (at its real line number), so that a
// huge stdin is not copied to report one mistake.
Loc ValueReader::loc_at(size_t offset, size_t length) const {
  if (offset > input_.size()) offset = input_.size();
  uint32_t line = 0;
  size_t line_start = 0;
  for (size_t k = 0; k < offset; ++k)
    if (input_[k] == '\n') {
      ++line;
      line_start = k + 1;
    }
  size_t line_end = input_.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = input_.size();
  std::string_view text = input_.substr(line_start, line_end - line_start);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  if (text.size() > 400) text = text.substr(0, 400);  // a single-line megabyte array
  uint32_t col = uint32_t(offset - line_start) + 1;
  std::string prefix;
  if (line == 0 && first_col_ > 1) {
    prefix.assign(first_col_ - 1, ' ');
    col += first_col_ - 1;
  }
  uint32_t real_line = first_line_ + line;
  std::string file_text(real_line - 1, '\n');
  file_text += prefix;
  for (char c : text) file_text += (static_cast<unsigned char>(c) < 0x20 && c != '\t') ? ' ' : c;
  Loc loc;
  loc.file = register_source(name_, std::move(file_text));
  loc.line = real_line;
  loc.col = col;
  size_t visible = prefix.size() + text.size();
  uint32_t end_col = col + uint32_t(length == 0 ? 0 : length - 1);
  loc.end_col = std::min<uint32_t>(end_col, uint32_t(std::max<size_t>(visible, col)));
  return loc;
}

Value ValueReader::read(const Type& expected, std::string_view what) {
  return read_impl(&expected, what, nullptr);
}

std::pair<Value, ValueType> ValueReader::read_any(std::string_view what) {
  ValueType type;
  Value v = read_impl(nullptr, what, &type);
  return {std::move(v), std::move(type)};
}

Value ValueReader::read_impl(const Type* expected, std::string_view what, ValueType* type_out) {
  std::optional<Prim> target;
  std::optional<int> rank;
  std::string expected_text;
  if (expected) {
    if (!is_value_format_type(*expected))
      throw Error(ErrorKind::Input, position(),
                  fmt::format("{}: a value of type {} cannot be given in Futhark's value format "
                              "(only primitive values and arrays of them)",
                              what, type_text(*expected)));
    expected_text = type_text(*expected);
    if (expected->kind == Type::Kind::Prim) {
      target = expected->prim;
      rank = 0;
    } else if (expected->kind == Type::Kind::Array) {
      rank = int(expected->dims.size());
      if (expected->elem->kind == Type::Kind::Prim) target = expected->elem->prim;
    }
  }

  skip_blanks();
  if (pos_ >= input_.size()) {
    throw Error(ErrorKind::Input, position(),
                expected_text.empty() ? fmt::format("{}: expected a value, but the input ended", what)
                                      : fmt::format("{}: expected a value of type {}, but the input ended", what,
                                                    expected_text));
  }

  ValueType got;
  Value v;
  if (input_[pos_] == 'b') {
    v = read_binary(expected, what, &got);
  } else {
    const char* base = input_.data();
    const char* first = base + pos_;
    ValueBuilder builder(*this, base, first, target, rank, what, expected_text);
    if (!parse_text_value(first, base + input_.size(), builder)) {
      builder.fail(base + pos_, 1,
                   expected_text.empty()
                       ? fmt::format("expected a value, got {}", builder.snippet(base + pos_))
                       : fmt::format("expected a value of type {}, got {}", expected_text,
                                     builder.snippet(base + pos_)));
    }
    size_t begin = pos_;
    v = builder.finish(&got);
    pos_ = size_t(first - base);
    // Sizes written in the type ([3]i32) must match.
    if (expected && expected->kind == Type::Kind::Array) {
      for (size_t k = 0; k < expected->dims.size(); ++k) {
        const Dim& d = expected->dims[k];
        if (d.kind == Dim::Kind::Constant && d.value != got.shape[k])
          throw Error(ErrorKind::Input, loc_at(begin),
                      fmt::format("{}: expected {}, got an array of type {}", what, expected_text, got.str()));
      }
    }
  }
  if (type_out) *type_out = std::move(got);
  return v;
}

std::vector<Value> read_values(std::string_view input, const std::vector<TypePtr>& types, std::string source_name,
                               std::string_view what) {
  ValueReader reader(input, std::move(source_name));
  std::vector<Value> values;
  for (size_t i = 0; i < types.size(); ++i) {
    std::string name = fmt::format("{} {}", what, i + 1);
    if (reader.at_end())
      throw Error(ErrorKind::Input, reader.position(),
                  fmt::format("expected {} value{}, but the input ended after {}", types.size(),
                              types.size() == 1 ? "" : "s", i));
    values.push_back(reader.read(*types[i], name));
  }
  if (!reader.at_end())
    throw Error(ErrorKind::Input, reader.position(),
                fmt::format("unexpected input after the {} expected value{}", types.size(),
                            types.size() == 1 ? "" : "s"));
  return values;
}

}  // namespace thorn
