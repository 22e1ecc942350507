#pragma once
// Helpers shared by the syntax unit tests.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interp/syntax/lexer.hpp"
#include "interp/syntax/parser.hpp"
#include "interp/syntax/print.hpp"
#include "interp/util/error.hpp"

namespace thorn::test {

inline const SourceFile* src(std::string_view text) { return register_source("test.fut", std::string(text)); }

inline std::vector<Token> tokens(std::string_view text) {
  auto toks = lex(src(text));
  toks.pop_back();  // End
  return toks;
}

// The fully parenthesised rendering of a parsed expression.
inline std::string pe(std::string_view text) { return to_string(*parse_expression(src(text))); }

inline std::string pt(std::string_view text) { return to_string(*parse_type(src(text))); }

// Each declaration rendered, one per line.
inline std::string pp(std::string_view text) {
  Program p = parse_program(src(text));
  std::string out;
  for (const auto& d : p.decls) out += to_string(*d) + "\n";
  return out;
}

// The syntax error that parsing `text` (as a program, or as an expression
// when `as_expr`) raises; nullopt when it parses.
inline std::optional<Error> syntax_error(std::string_view text, bool as_expr = false) {
  try {
    if (as_expr) parse_expression(src(text));
    else parse_program(src(text));
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace thorn::test
