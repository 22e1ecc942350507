#pragma once
// The type checker: name resolution and Hindley–Milner inference with
// Futhark's overloading, records, sums, sizes and modules. It annotates the
// AST in place (Expr::type, Pattern::type, literal prims, Var
// instantiations, quantified variables of polymorphic definitions) and
// throws Error(ErrorKind::Type, loc, msg) on the first error.
//
// One Checker holds one growing top-level environment: a program is the
// prelude's declarations followed by the file's, and a REPL session checks
// one input after another (save()/restore() undo an input that fails).
#include <memory>
#include <vector>

#include "interp/syntax/ast.hpp"
#include "interp/types/type.hpp"

namespace thorn {

namespace types {
class CheckerImpl;
struct CheckerState;
}  // namespace types

class Checker {
 public:
  Checker();
  ~Checker();
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  // Checks top-level declarations in order and adds them to the environment.
  // On error the environment may hold the declarations checked before the
  // failing one; use save()/restore() for all-or-nothing.
  void check_decls(std::vector<DeclPtr>& decls);

  // Checks an expression in the current environment, applies defaulting
  // (1 is i32, 1.0 is f64) and returns its type. The expression may be
  // replaced (a qualified name `r.a` becomes a projection), hence the reference.
  // With `generalise` (for the REPL's :type), unconstrained type variables
  // stay polymorphic (`map` is `(a -> b) -> []a -> *[]b`, not defaulted to
  // unit); without it the expression is ready to evaluate.
  TypePtr check_expression(ExprPtr& e, bool generalise = false);

  // The type of a top-level value in the current environment (an entry
  // point: its full function type), or null when there is none.
  TypePtr lookup_value(const QualName& name) const;
  // The quantified variable ids of that value (empty when monomorphic).
  std::vector<int> lookup_quantified(const QualName& name) const;

  // The environment imported files start from: by default the environment
  // at the time of the import; after mark_prelude() the environment as it
  // was then (builtins + prelude), so imported files do not see the names of
  // the file importing them.
  void mark_prelude();

  using State = std::shared_ptr<const types::CheckerState>;
  State save() const;
  void restore(State state);

 private:
  std::unique_ptr<types::CheckerImpl> impl_;
};

}  // namespace thorn
