#pragma once
// Tokens of Futhark source text, as produced by the lexer (lexer.cpp) and
// consumed by the recursive-descent parser.
//
// Two pieces of layout survive lexing because Futhark's grammar depends on
// them: whether whitespace (or a comment) preceded a token, and whether a `[`
// directly follows something indexable (`xs[i]` is indexing, `f [i]` is an
// application to an array literal).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interp/core/prim.hpp"
#include "interp/util/source.hpp"

namespace thorn {

enum class Tok : uint8_t {
  End,          // end of input
  Ident,        // x, xs', i32, __intrinsic (also names that happen to be prim types)
  Keyword,      // if then else def let ... (text holds which)
  Constructor,  // #foo (text: "foo")
  IntLit,       // 42, 0xff, 1_000i64, 'c'
  FloatLit,     // 1.5, 1e3, 2f32, 0x1.8p1
  StringLit,    // "abc" (text: decoded bytes)
  Symbol,       // operator: + - * <= |> +^ i32.+ (qualifiers in `quals`)
  LParen, RParen,
  LBracket,     // `[` after whitespace or a non-indexable character
  IndexBracket, // `[` glued to an identifier, literal, `)` or `]`: indexing
  RBracket,
  LBrace, RBrace,
  HashBracket,  // #[  (attribute)
  Comma,
  Colon,        // :
  ColonGt,      // :>
  Arrow,        // ->
  Backslash,    // \   (lambda)
  Backtick,     // `
  Dot,          // .
  TwoDots,      // ..
  ThreeDots,    // ...
  TwoDotsLt,    // ..<
  TwoDotsGt,    // ..>
  Equals,       // =   (a lone `=` is not an operator)
  Bang,         // !   (a lone `!` is only the prefix operator)
  Underscore,   // _
  Question,     // ?
  Tilde,        // ~
  Apostrophe,   // '   (type parameter)
  ApostropheHat,    // '^
  ApostropheTilde,  // '~
};

struct Token {
  Tok kind = Tok::End;
  Loc loc;                  // line/col of the first byte, end_col of the last
  uint32_t offset = 0;      // byte offset of the first byte in the file
  uint32_t length = 0;      // bytes of source text
  bool space_before = false;  // whitespace, a comment or start of file precedes it
  std::string text;         // Ident/Keyword/Symbol name; Constructor name; decoded StringLit
  std::vector<std::string> quals;  // Symbol: qualifiers of `i32.+`

  // IntLit / FloatLit
  uint64_t int_value = 0;
  double float_value = 0;
  std::optional<Prim> suffix;
  bool is_char = false;     // IntLit written as a character literal

  bool is(Tok k) const { return kind == k; }
  bool is_keyword(std::string_view kw) const { return kind == Tok::Keyword && text == kw; }
  bool is_symbol(std::string_view s) const { return kind == Tok::Symbol && quals.empty() && text == s; }
  bool is_left_bracket() const { return kind == Tok::LBracket || kind == Tok::IndexBracket; }
};

// How a token is named in "unexpected X" messages: `"foo"`, `end of input`.
std::string describe(const Token& tok);
// How a token kind is named in "expected X" messages: `")"`.
std::string_view tok_spelling(Tok kind);

bool is_keyword(std::string_view word);

}  // namespace thorn
