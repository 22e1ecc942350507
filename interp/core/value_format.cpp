// Printing values as Futhark does. The structure follows the interpreter's
// prettyValue (Language.Futhark.Interpreter.Values):
//   - an array is [a, b, c]; when its elements are arrays they are stacked,
//     one per line, aligned after the '[';
//   - a tuple is (a, b) and a record {a = 1, b = 2}, their fields stacked
//     one per line unless a surrounding group is flattened; an element of an
//     array that is not itself an array is such a group (so [(1, 2), (3, 4)]
//     stays on one line when it fits in 80 columns);
//   - a sum value is #c x y, parenthesised when it is a payload;
//   - a function is #<fun>.
// Arrays of primitives (by far the common, and the large, case) have no
// groups, so they are written directly without building a document.
#include <fmt/format.h>

#include "interp/core/ad_value.hpp"
#include "interp/core/pretty_doc.hpp"
#include "interp/core/value_io.hpp"
#include "interp/util/error.hpp"

namespace thorn {

std::string format_prim(const Scalar& s, ValueStyle style) {
  std::string text = format_scalar(s);
  if (style == ValueStyle::Data || s.type == Prim::Bool) return text;
  // Repl style drops the type suffix, except on nan/inf, which are names.
  if (is_float(s.type) && (text.find(".nan") != std::string::npos || text.find(".inf") != std::string::npos))
    return text;
  std::string_view name = prim_name(s.type);
  return text.substr(0, text.size() - name.size());
}

namespace {

using namespace pretty;

// ------------------------------------------------------------ prim arrays

class PrimArrayWriter {
 public:
  PrimArrayWriter(const ArrayValue& a, ValueStyle style, std::string& out)
      : a_(a), style_(style), out_(out), elem_bytes_(size_t(prim_bytes(a.elem.prim))) {
    base_ = a.buffer ? a.buffer->host() + size_t(a.offset) * elem_bytes_ : nullptr;
  }

  // Writes the sub-array at dimension `dim` whose first element is flat
  // index `first`, starting at column `col`.
  void write(int dim, int64_t first, int col) {
    int64_t n = a_.shape[size_t(dim)];
    out_ += '[';
    if (dim + 1 == a_.rank()) {
      for (int64_t i = 0; i < n; ++i) {
        if (i) out_ += ", ";
        out_ += format_prim(load_scalar(a_.elem.prim, base_ + size_t(first + i) * elem_bytes_), style_);
      }
    } else {
      int64_t row = 1;
      for (int k = dim + 1; k < a_.rank(); ++k) row *= a_.shape[size_t(k)];
      for (int64_t i = 0; i < n; ++i) {
        if (i) {
          out_ += ",\n";
          out_.append(size_t(col + 1), ' ');
        }
        write(dim + 1, first + i * row, col + 1);
      }
    }
    out_ += ']';
  }

 private:
  const ArrayValue& a_;
  ValueStyle style_;
  std::string& out_;
  size_t elem_bytes_;
  const std::byte* base_ = nullptr;
};

bool is_prim_array(const Value& v) {
  return v.kind == Value::Kind::Array && v.arr().elem.kind == ElemShape::Kind::Prim;
}

// ------------------------------------------------------------ documents

DocPtr doc_of(const Value& v, int prec, ValueStyle style);

// brackets $ align $ (vsep|hsep) $ punctuate comma elems
DocPtr sequence(const std::string& open, const std::vector<DocPtr>& elems, const std::string& close,
                bool stacked) {
  std::vector<DocPtr> body;
  for (size_t i = 0; i < elems.size(); ++i) {
    if (i) body.push_back(stacked ? line() : text(" "));
    body.push_back(elems[i]);
    if (i + 1 < elems.size()) body.push_back(text(","));
  }
  return cat({text(open), align(cat(std::move(body))), text(close)});
}

// A primitive array inside a composite value, as a document (its rows may
// need to flatten with an enclosing group).
DocPtr prim_array_doc(const ArrayValue& a, int dim, int64_t first, ValueStyle style) {
  int64_t n = a.shape[size_t(dim)];
  std::vector<DocPtr> elems;
  size_t bytes = size_t(prim_bytes(a.elem.prim));
  const std::byte* base = a.buffer ? a.buffer->host() + size_t(a.offset) * bytes : nullptr;
  if (dim + 1 == a.rank()) {
    // One text: an array of scalars never breaks (hsep).
    std::string s;
    for (int64_t i = 0; i < n; ++i) {
      if (i) s += ", ";
      s += format_prim(load_scalar(a.elem.prim, base + size_t(first + i) * bytes), style);
    }
    return text("[" + s + "]");
  }
  int64_t row = 1;
  for (int k = dim + 1; k < a.rank(); ++k) row *= a.shape[size_t(k)];
  for (int64_t i = 0; i < n; ++i) elems.push_back(prim_array_doc(a, dim + 1, first + i * row, style));
  return sequence("[", elems, "]", true);
}

DocPtr array_doc(const Value& v, ValueStyle style) {
  const ArrayValue& a = v.arr();
  if (a.elem.kind == ElemShape::Kind::Prim) return prim_array_doc(a, 0, 0, style);
  int64_t n = a.outer();
  std::vector<DocPtr> elems;
  bool rows_are_arrays = a.rank() > 1;
  for (int64_t i = 0; i < n; ++i) {
    Value row = array_row(a, i);
    rows_are_arrays = row.kind == Value::Kind::Array;
    DocPtr d = doc_of(row, 0, style);
    elems.push_back(rows_are_arrays ? d : group(d));
  }
  return sequence("[", elems, "]", rows_are_arrays);
}

DocPtr doc_of(const Value& v, int prec, ValueStyle style) {
  switch (v.kind) {
    case Value::Kind::Scalar: return text(format_prim(v.scalar, style));
    case Value::Kind::Array: return array_doc(v, style);
    case Value::Kind::Tuple: {
      std::vector<DocPtr> elems;
      if (v.elems)
        for (const Value& e : *v.elems) elems.push_back(doc_of(e, 0, style));
      return sequence("(", elems, ")", true);
    }
    case Value::Kind::Record: {
      std::vector<DocPtr> fields;
      for (size_t i = 0; i < v.elems->size(); ++i)
        fields.push_back(cat({text((*v.names)[i] + " = "), doc_of((*v.elems)[i], 0, style)}));
      return sequence("{", fields, "}", true);
    }
    case Value::Kind::Sum: {
      // "#" <> sep (name : payload), parenthesised when an argument.
      std::vector<DocPtr> parts{text("#" + v.constructor())};
      if (v.elems)
        for (const Value& e : *v.elems) {
          parts.push_back(line());
          parts.push_back(doc_of(e, 1, style));
        }
      DocPtr d = group(cat(std::move(parts)));
      return prec > 0 ? cat({text("("), d, text(")")}) : d;
    }
    case Value::Kind::Function: return text("#<fun>");
    case Value::Kind::AD: return text(format_prim(ad_scalar(v), style));
  }
  return text("?");
}

// ------------------------------------------------------------ empty arrays

bool is_empty_array(const Value& v) {
  if (v.kind != Value::Kind::Array) return false;
  for (int64_t d : v.arr().shape)
    if (d == 0) return true;
  return false;
}

std::string elem_shape_text(const ElemShape& e) {
  switch (e.kind) {
    case ElemShape::Kind::Prim: return std::string(prim_name(e.prim));
    case ElemShape::Kind::Tuple: {
      std::string out = "(";
      for (size_t i = 0; i < e.children.size(); ++i) out += (i ? ", " : "") + elem_shape_text(e.children[i]);
      return out + ")";
    }
    case ElemShape::Kind::Record: {
      std::string out = "{";
      for (size_t i = 0; i < e.children.size(); ++i)
        out += fmt::format("{}{}: {}", i ? ", " : "", e.names[i], elem_shape_text(e.children[i]));
      return out + "}";
    }
    case ElemShape::Kind::Boxed: return "?";
  }
  return "?";
}

// Futhark's `empty([0][3]i32)`: the dimensions of the value and the
// element type of its static type.
std::string empty_array_text(const Value& v, const Type* type) {
  const ArrayValue& a = v.arr();
  std::string out = "empty(";
  for (int64_t d : a.shape) out += fmt::format("[{}]", d);
  if (type && type->kind == Type::Kind::Array && type->elem && type->elem->kind != Type::Kind::Param) {
    Type elem = *type->elem;
    elem.unique = false;
    out += type_text(elem);
  } else {
    out += elem_shape_text(a.elem);
  }
  return out + ")";
}

}  // namespace

std::string format_value(const Value& v, const Type& type, ValueStyle style) {
  if (style == ValueStyle::Data && is_empty_array(v)) return empty_array_text(v, &type);
  if (v.kind == Value::Kind::Scalar) return format_prim(v.scalar, style);
  if (is_prim_array(v)) {
    std::string out;
    if (v.arr().outer() == 0) return "[]";
    PrimArrayWriter(v.arr(), style, out).write(0, 0, 0);
    return out;
  }
  return render(doc_of(v, 0, style));
}

std::string format_value(const Value& v, const TypePtr& type, ValueStyle style) {
  if (type) return format_value(v, *type, style);
  static const Type unknown = [] {
    Type t;
    t.kind = Type::Kind::Param;
    return t;
  }();
  return format_value(v, unknown, style);
}

}  // namespace thorn
