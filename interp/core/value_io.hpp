#pragma once
// Futhark's external value formats: reading values (textual and binary,
// freely mixed in one stream) and printing them the way `futhark run` and
// `futhark repl` do.
//
// Textual format (what `futhark run` reads and test blocks contain):
//   scalars   1i32  -2  3.5f32  1e-3  0xff  1_000  true  f32.inf  -f64.inf  f64.nan
//   arrays    [1, 2, 3]   [[1.0, 2.0], [3.0, 4.0]]   "abc" (a []u8)
//   empty     empty([0]i32)   empty([2][0]f64)
// separated by whitespace and `--` line comments. There are no tuples or
// records in the format; a function returning a tuple prints one value per
// component.
//
// Binary format: 'b', version 2, rank (one byte), a 4-character type
// (" i32", "bool", ...), rank u64 dimensions, then the elements, all little
// endian. A value is binary when its first non-blank character is 'b'.
//
// Reading is guided by the type the value is expected to have: an unsuffixed
// `3` read as an f32 parameter is 3.0f32. Without an expected type Futhark's
// defaults apply (i32 for integers, f64 for decimals; an array's element type
// is that of its first element).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/types/type.hpp"
#include "interp/util/source.hpp"

namespace thorn {

// ------------------------------------------------------------------ reading

// The type of a value in the value formats: a primitive type and a shape
// (empty for scalars), like [2][3]i32. Futhark's data tools call it ValueType.
struct ValueType {
  Prim prim = Prim::I32;
  std::vector<int64_t> shape;
  std::string str() const;  // "[2][3]i32"
  bool operator==(const ValueType&) const = default;
};
ValueType value_type_of(const Value& v);  // v must be a scalar or an array of a primitive type
// The corresponding semantic type ([2][3]i32 with constant sizes), made
// here without the type checker's constructors.
TypePtr semantic_type(const ValueType& t);

// Reads values one at a time from an in-memory input (all of stdin, a data
// file, the body of a test block). Errors are Error(ErrorKind::Input) with
// the position of the offending text (for text input registered as a
// SourceFile named `source_name`, so render() shows the line and a caret).
class ValueReader {
 public:
  // `first_line`/`first_col` place the text inside a larger file (test
  // blocks), so positions in errors are those of the file.
  explicit ValueReader(std::string_view input, std::string source_name = "<stdin>",
                       uint32_t first_line = 1, uint32_t first_col = 1);

  // Skips whitespace and comments; true when no value remains.
  bool at_end();

  // The next value, which must have type `expected` (a primitive type or an
  // array of one; a Param type means "any"). `what` names the value in
  // errors, e.g. "argument 2".
  Value read(const Type& expected, std::string_view what);

  // The next value with Futhark's default types; also returns its type.
  std::pair<Value, ValueType> read_any(std::string_view what);

  // Where the next value starts (after skipping blanks), for messages.
  Loc position();
  size_t offset() const { return pos_; }

 private:
  friend class ValueBuilder;
  Value read_impl(const Type* expected, std::string_view what, ValueType* type_out);
  Value read_binary(const Type* expected, std::string_view what, ValueType* type_out);
  Loc loc_at(size_t offset, size_t length = 1) const;
  void skip_blanks();

  std::string_view input_;
  std::string name_;
  uint32_t first_line_, first_col_;
  size_t pos_ = 0;
};

// Reads `types.size()` values (the arguments of an entry point, or the
// expected results of a test) and checks that nothing but blanks follows.
// `what` is "argument" or "value": errors say "argument 2: ...".
std::vector<Value> read_values(std::string_view input, const std::vector<TypePtr>& types,
                               std::string source_name = "<stdin>", std::string_view what = "argument");

// Can a value of this type be written in the value formats at all?
// (Primitive types and arrays of them; Param types are accepted as "any".)
bool is_value_format_type(const Type& t);

// ------------------------------------------------------------------ binary

// Appends the binary encoding of a scalar or an array of a primitive type.
// Throws Error(ErrorKind::Input) for other values.
void write_binary_value(std::string& out, const Value& v);
std::string binary_value(const Value& v);

// ------------------------------------------------------------------ printing

// How values are printed:
//   Data  as `futhark run` prints results: every scalar with its type suffix
//         (1i32, 2.5f64), and an empty array as empty([0]i32).
//   Repl  as `futhark repl` prints values: no suffixes (1, 2.5), an empty
//         array as [].
// Both follow Futhark's layout: an array of arrays puts each row on its own
// line aligned under the first; tuples and records break one field per line
// unless they sit inside an array and fit in 80 columns.
enum class ValueStyle { Data, Repl };

// `type` supplies what the value alone cannot tell (the element type of an
// empty array); it may be null or contain type parameters, in which case the
// value's own structure is used.
std::string format_value(const Value& v, const TypePtr& type, ValueStyle style = ValueStyle::Data);
std::string format_value(const Value& v, const Type& type, ValueStyle style = ValueStyle::Data);

// One primitive value in the given style ("1i32" or "1").
std::string format_prim(const Scalar& s, ValueStyle style);

// Futhark's notation for a type (i32, [][3]f32, (i32, bool), {a: i32}),
// written here so that the value formats need no type-checker code.
std::string type_text(const Type& t);

}  // namespace thorn
