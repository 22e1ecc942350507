#include "interp/syntax/token.hpp"

#include <fmt/format.h>

namespace thorn {

std::string_view tok_spelling(Tok kind) {
  switch (kind) {
    case Tok::End: return "end of input";
    case Tok::Ident: return "a name";
    case Tok::Keyword: return "a keyword";
    case Tok::Constructor: return "a constructor";
    case Tok::IntLit: return "an integer literal";
    case Tok::FloatLit: return "a floating-point literal";
    case Tok::StringLit: return "a string literal";
    case Tok::Symbol: return "an operator";
    case Tok::LParen: return "\"(\"";
    case Tok::RParen: return "\")\"";
    case Tok::LBracket: return "\"[\"";
    case Tok::IndexBracket: return "\"[\"";
    case Tok::RBracket: return "\"]\"";
    case Tok::LBrace: return "\"{\"";
    case Tok::RBrace: return "\"}\"";
    case Tok::HashBracket: return "\"#[\"";
    case Tok::Comma: return "\",\"";
    case Tok::Colon: return "\":\"";
    case Tok::ColonGt: return "\":>\"";
    case Tok::Arrow: return "\"->\"";
    case Tok::Backslash: return "\"\\\"";
    case Tok::Backtick: return "\"`\"";
    case Tok::Dot: return "\".\"";
    case Tok::TwoDots: return "\"..\"";
    case Tok::ThreeDots: return "\"...\"";
    case Tok::TwoDotsLt: return "\"..<\"";
    case Tok::TwoDotsGt: return "\"..>\"";
    case Tok::Equals: return "\"=\"";
    case Tok::Bang: return "\"!\"";
    case Tok::Underscore: return "\"_\"";
    case Tok::Question: return "\"?\"";
    case Tok::Tilde: return "\"~\"";
    case Tok::Apostrophe: return "\"'\"";
    case Tok::ApostropheHat: return "\"'^\"";
    case Tok::ApostropheTilde: return "\"'~\"";
  }
  return "a token";
}

std::string describe(const Token& tok) {
  switch (tok.kind) {
    case Tok::End: return "end of input";
    case Tok::Ident:
    case Tok::Keyword:
    case Tok::IntLit:
    case Tok::FloatLit: return fmt::format("\"{}\"", tok.text);
    case Tok::Constructor: return fmt::format("\"#{}\"", tok.text);
    case Tok::StringLit: return "a string literal";
    case Tok::Symbol: {
      std::string name;
      for (const auto& q : tok.quals) name += q + ".";
      return fmt::format("\"{}{}\"", name, tok.text);
    }
    default: return std::string(tok_spelling(tok.kind));
  }
}

}  // namespace thorn
