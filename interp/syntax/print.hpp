#pragma once
// A fully parenthesised rendering of the AST, for tests and debugging: every
// compound expression is wrapped in parentheses so the tree shape is
// visible, e.g. `1 + 2 * 3` prints as `(1 + (2 * 3))` and `f x y` as
// `(f x y)`. Not meant to be re-parsed exactly (though it mostly can be).
#include <string>

#include "interp/syntax/ast.hpp"

namespace thorn {

std::string to_string(const Expr& e);
std::string to_string(const Pattern& p);
std::string to_string(const TypeExpr& t);
std::string to_string(const SizeExpr& s);
std::string to_string(const Decl& d);
std::string to_string(const ModExpr& m);
std::string to_string(const SigExpr& s);

}  // namespace thorn
