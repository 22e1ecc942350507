#pragma once
// The Futhark lexer: source text to tokens. The token rules are Boost.Spirit
// X3 parsers, all confined to lexer.cpp so that only one translation unit
// pays X3's compile time.
#include <vector>

#include "interp/syntax/token.hpp"
#include "interp/util/source.hpp"

namespace thorn {

// All tokens of `file`, ending with one Tok::End token. Throws
// Error(ErrorKind::Syntax) on malformed literals and stray characters.
std::vector<Token> lex(const SourceFile* file);

}  // namespace thorn
