#pragma once
// Function values (value.hpp's `struct Callable`). They are immutable and
// shared; applying one never changes it.
//
// What a consumer that analyses functions (the flattener) can rely on:
//  - Closure: a lambda or a named function. `params` and `body` are the AST
//    (annotated by the checker), `env` the captured value environment (look
//    free variables up with eval::lookup_value), `tenv` the type
//    environment its types are resolved in (eval::resolve_type).
//    intrinsic_alias() names the intrinsic when the body is nothing but an
//    intrinsic applied to the parameters in order (most prelude functions).
//  - Partial: `fn` applied to the first `args.size()` arguments.
//  - Operator: a built-in operator (`+`, `==`, `&&`, ...) on primitive (or,
//    for == and !=, any) values; `name` is the operator.
//  - RightSection: `(op x)` i.e. \y -> op y x: `fn` is the operator's value,
//    args[0] the right operand.
//  - Projection: `(.a.b)`: `path` is the field path.
//  - IndexSection: `(.[i, j:k])`: `index_args` are the evaluated indices.
//  - Intrinsic: an intrinsic not yet given all its arguments; `name`, and
//    `args` so far, `arity` the number it needs.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/eval/env.hpp"
#include "interp/syntax/ast.hpp"

namespace thorn {

namespace eval {
// One evaluated component of an index: a fixed index or a slice. Slice
// bounds are optional as in the source (`a:`, `:b`, `::s`).
struct IndexValue {
  bool is_slice = false;
  int64_t index = 0;
  std::optional<int64_t> start, end, stride;
};
}  // namespace eval

struct Callable {
  enum class Kind { Closure, Partial, Operator, RightSection, Projection, IndexSection, Intrinsic };
  Kind kind = Kind::Closure;
  std::string name;  // Closure: the function's name ("" for a lambda); Operator; Intrinsic
  Loc loc;           // where the function was written

  // Closure
  const std::vector<PatternPtr>* params = nullptr;    // AST-owned
  const Expr* body = nullptr;                         // AST-owned
  const TypeExpr* ret_type = nullptr;                 // declared return type, or null
  const std::vector<TypeParam>* type_params = nullptr;  // size parameters to bind, or null
  eval::EnvPtr env;
  eval::TypeEnvPtr tenv;
  // A named function whose body refers to its name: itself, bound under
  // `name` in each call's frame (recursion). Weak, so no cycle.
  std::weak_ptr<const Callable> self;
  // Whatever `params`/`body` need kept alive beyond the AST they came from
  // (the flattener's interchange builds parameter lists of its own); null
  // for closures over the AST.
  std::shared_ptr<const void> keep;
  // Size parameters no argument gives, as the checker instantiated them
  // where this function was named (Expr::size_args), computed there.
  std::vector<std::pair<std::string, int64_t>> size_hints;

  // Partial / RightSection: the function applied
  CallablePtr fn;
  std::vector<Value> args;

  // Projection
  std::vector<std::string> path;
  // IndexSection
  std::vector<eval::IndexValue> index_args;
  // Intrinsic
  int arity = 0;

  // How many arguments the function takes before it runs (1 for sections).
  int param_count() const;
  // The intrinsic a closure merely forwards to, if any (see above).
  std::optional<std::string> intrinsic_alias() const;
  // A short description for messages: "function f", "lambda", "operator +".
  std::string describe() const;
};

}  // namespace thorn
