#pragma once
// The checker's environments: what names mean at some point of a program.
// Module-level environments are maps of shared, immutable bindings, so
// copying one (for a snapshot or a nested module) is cheap enough.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "interp/syntax/ast.hpp"
#include "interp/types/ty.hpp"

namespace thorn::types {

// A value's (possibly polymorphic) type.
struct Scheme {
  Ty type;
  std::vector<int> quantified;          // Param ids replaced by fresh variables at each use
  std::vector<std::string> size_params;  // dim names replaced by fresh sizes at each use
  // Explicit type parameters declared without ^ ('a, not '^a): they may not
  // be instantiated with function types. (id, name as written)
  std::vector<std::pair<int, std::string>> nonlifted;
  std::string builtin;                   // non-empty: a built-in overloaded operator
  // A size bound from a value's shape (`let [n] xs = e`, loop sizes): as a
  // size in types it is not checked statically against other sizes.
  bool loose_size = false;
  // Specified in a module type as one of its abstract types (`val x : t`,
  // `val g : gen [1] i32`), parametric and lifted ones included, which
  // stay transparent to the checker: as in Futhark its uses carry no aliases.
  bool abstract_type = false;
  // A local binding: its place in the order of bindings (see TyNode::stamp).
  int stamp = -1;
  // A function definition's count of parameters (-1: not known, as for a
  // module type's `val`). Sizes in the parameters of a function it returns
  // (`def f [n] (x: i32) : [n]i32 -> i32`) are not given by its arguments
  // when its body runs: they come from the instantiation.
  int arity = -1;
  // A function definition with a declared return type: its result's
  // uniqueness is as written (inference may lose it, see ascribe).
  bool declared_result = false;
};
using SchemePtr = std::shared_ptr<const Scheme>;

// A type abbreviation (or a type parameter in scope, which has no params).
struct TypeDef {
  std::vector<TypeParam> params;
  std::vector<int> param_ids;  // aligned with params; -1 for size params
  Ty body;
  // Futhark's liftedness as declared: 0 `type`, 1 `type~` (may hide
  // sizes), 2 `type^` (may be a function). Type parameters likewise.
  int liftedness = 0;
};
using TypeDefPtr = std::shared_ptr<const TypeDef>;

struct Env;
using EnvPtr = std::shared_ptr<const Env>;
struct ModBinding;
using ModPtr = std::shared_ptr<const ModBinding>;

// A module: a structure (env) or a parametric module (functor).
struct ModBinding {
  EnvPtr env;  // structure; null for a functor
  // Functor: parameters still to be applied, the body, and the environment
  // it was defined in (applications check a copy of the body there).
  std::vector<std::pair<std::string, SigExprPtr>> params;
  // Arguments given so far (partial application): structures, or functors
  // where the parameter's module type is parametric.
  std::vector<ModPtr> applied;
  ModExprPtr body;
  SigExprPtr result_sig;
  EnvPtr closure;
};

// A module type, evaluated lazily in the environment it was defined in.
struct SigBinding {
  SigExprPtr expr;
  EnvPtr closure;
};
using SigPtr = std::shared_ptr<const SigBinding>;

struct Env {
  std::map<std::string, SchemePtr> values;
  std::map<std::string, TypeDefPtr> types;
  std::map<std::string, ModPtr> mods;
  std::map<std::string, SigPtr> sigs;

  // Adds (and shadows with) all of other's bindings.
  void add_all(const Env& other) {
    for (const auto& [k, v] : other.values) values[k] = v;
    for (const auto& [k, v] : other.types) types[k] = v;
    for (const auto& [k, v] : other.mods) mods[k] = v;
    for (const auto& [k, v] : other.sigs) sigs[k] = v;
  }
};

// The module currently being checked: what its declarations see, and what
// it exports (local declarations and imports are visible but not exported).
struct ModScope {
  Env visible;
  Env exports;
  bool in_module = false;  // a module's body (not a file's top level)
};

}  // namespace thorn::types
