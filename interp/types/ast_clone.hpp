#pragma once
// Deep copies of AST subtrees, for parametric modules: each application of
// a functor checks (and so annotates) its own copy of the functor's body.
// Type and module-type expressions are shared (the checker never writes them).
#include "interp/syntax/ast.hpp"

namespace thorn::types {

ExprPtr clone_expr(const ExprPtr& e);
PatternPtr clone_pattern(const PatternPtr& p);
DeclPtr clone_decl(const DeclPtr& d);
ModExprPtr clone_mod_expr(const ModExprPtr& m);

}  // namespace thorn::types
