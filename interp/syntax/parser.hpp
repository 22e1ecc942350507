#pragma once
// The Futhark parser: tokens (lexer.hpp) to the AST of ast.hpp. Every
// function throws Error(ErrorKind::Syntax, loc, "unexpected X; expected Y")
// on malformed input.
//
// Notes for consumers of the AST:
//  - `a.b.c` where `a` is a plain name is parsed as Var with qualifiers
//    ["a","b"] and name "c", as Futhark does: whether `a` is a module or a
//    record-valued variable is only known during name resolution. Use
//    split_qualified_var() to turn such a Var into projections. Projections
//    that are syntactically certain (`x.0`, `(e).a`, `f(x).a`, `xs[0].a`)
//    are Project nodes.
//  - `(e)` produces e itself; `()` is an empty Tuple.
//  - `-1` is Negate(IntLit 1), also in patterns (Literal pattern whose
//    literal is a Negate node).
//  - `let xs[i] = v in b` is Let(xs, Update(Var xs, [i], v), b).
//  - `loop x for ...` (no `= init`) leaves the Loop's `a` null.
//  - `{x}` in a record expression is the field x = Var x.
//  - `#foo x y` is Constructor with list [x, y]; `__intrinsic "f" a b` is
//    Intrinsic with text "f" and list [a, b].
#include <vector>

#include "interp/syntax/ast.hpp"
#include "interp/util/source.hpp"

namespace thorn {

Program parse_program(const SourceFile* file);

// The whole file is one expression.
ExprPtr parse_expression(const SourceFile* file);

// A REPL line: declarations when it starts like one (def, let-declaration,
// type, module, open, import, local, entry, or an attribute before one),
// otherwise one expression. Exactly one of the two is non-empty.
struct ReplInput {
  std::vector<DeclPtr> decls;
  ExprPtr expr;
};
ReplInput parse_repl_input(const SourceFile* file);

// The whole file is one type expression (e.g. `[0]i32` of `empty([0]i32)`).
TypeExprPtr parse_type(const SourceFile* file);

// Reinterprets the last `n_fields` components of a qualified Var as record
// projections: `r.a.b` (Var ["r","a"] "b") with n_fields = 2 becomes
// Project(Project(Var r, a), b). For the checker, once it knows where the
// module path ends. n_fields must be <= the number of qualifiers.
ExprPtr split_qualified_var(const Expr& var, size_t n_fields);

}  // namespace thorn
