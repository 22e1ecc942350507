#pragma once
// Internal to the value reader: builds one value of the textual format from
// the events of the grammar (value_text_grammar.cpp), checking regularity,
// rank and element types as it goes, and storing elements straight into
// their final byte representation (large text inputs stay affordable).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interp/core/value_io.hpp"
#include "interp/util/error.hpp"

namespace thorn {

class ValueBuilder {
 public:
  // `target`/`rank`: the expected element type and rank, when known.
  // `expected_text` names the expected type in errors ("[][]f32").
  ValueBuilder(const ValueReader& reader, const char* base, const char* value_begin,
               std::optional<Prim> target, std::optional<int> rank, std::string_view what,
               std::string expected_text);

  // Grammar events; the pointers are into the reader's input.
  void open(const char* at);                    // '['
  void close(const char* at);                   // ']'
  void number(const char* begin, const char* end);      // 12, -0x1f, 1.5e3f32, 3u8
  void named_float(const char* begin, const char* end); // f32.inf, -f64.nan
  void boolean(const char* begin, const char* end);     // true, false
  void string(const char* begin, const char* end);      // "text" (a []u8)
  void empty(const char* begin, const char* end);       // empty([0][3]i32)

  // The finished value (a scalar or a primitive array) and its type.
  Value finish(ValueType* type_out);

  [[noreturn]] void fail(const char* at, size_t length, std::string message) const;
  std::string snippet(const char* at) const;  // the input from `at`, cut short

 private:
  struct Level {
    int64_t count = 0;
    const char* open_at = nullptr;
  };
  struct Literal;  // a decoded scalar literal

  void count_element();  // one more element in the innermost open array
  void set_dim(int depth, int64_t n, const char* at);
  void store(const Literal& lit);
  void require_rank(int rank, const char* at, size_t length);

  const ValueReader& reader_;
  const char* base_;
  const char* value_begin_;
  std::optional<Prim> prim_;
  std::optional<int> rank_;
  bool typed_;  // the element type came from the caller, not the first element
  std::string what_;
  std::string expected_text_;

  std::vector<Level> stack_;
  std::vector<int64_t> dims_;  // -1 while unknown
  std::vector<std::byte> data_;
  int64_t count_ = 0;
};

// The grammar (Boost.Spirit X3, one translation unit): parses one value from
// `first`, feeding `builder`, and leaves `first` after it and any trailing
// blanks. Returns false when no value starts at `first`; malformed values
// throw Error(ErrorKind::Input).
bool parse_text_value(const char*& first, const char* last, ValueBuilder& builder);

}  // namespace thorn
