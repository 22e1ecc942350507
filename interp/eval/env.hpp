#pragma once
// The evaluator's environments.
//
//  - Env: lexical value scopes, an immutable chain of frames. A Local frame
//    holds the few names one pattern (or one local function) binds; a Scope
//    frame holds a snapshot of a module-level namespace. Closures capture an
//    EnvPtr, so later declarations never leak into earlier closures (the
//    REPL's redefinitions behave lexically, as in Futhark).
//  - Namespace / Module: what `module M = {...}`, a file, and the prelude
//    evaluate to. Namespaces are copied on write: each declaration makes a
//    new snapshot, so a closure's captured scope never changes.
//  - TypeEnv: the run-time type environment. Polymorphic definitions are
//    checked once with quantified type variables (Type::Kind::Param); when a
//    polymorphic name is referenced, a frame binds its quantified ids to the
//    reference's instantiation, resolved lazily (only empty arrays and a few
//    intrinsics ever need a concrete type).
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/eval/env_index.hpp"
#include "interp/syntax/ast.hpp"
#include "interp/types/type.hpp"

namespace thorn::eval {

struct Env;
struct TypeEnv;
struct Module;
struct Namespace;
using EnvPtr = std::shared_ptr<const Env>;
using TypeEnvPtr = std::shared_ptr<const TypeEnv>;
using ModulePtr = std::shared_ptr<const Module>;
using NamespacePtr = std::shared_ptr<const Namespace>;

// What a name is bound to.
struct Binding {
  // The value; for a lazily evaluated polymorphic constant, empty until referenced.
  Value value;
  // Quantified type variable ids of a polymorphic definition (AST-owned), or null.
  const std::vector<int>* quantified = nullptr;
  // A polymorphic definition without parameters (`def empty 't : []t = []`)
  // is evaluated at each reference, under that reference's instantiation.
  const Decl* lazy = nullptr;
  EnvPtr lazy_env;
  TypeEnvPtr lazy_tenv;
  // Set when an in-place update consumed the variable (Futhark forbids any
  // later use; the checker should have rejected it, this is the backstop).
  bool consumed = false;
};

// A module type, with the environment its names are resolved in. Kept at
// run time only to restrict what an ascribed module exports (an ascription
// hides names, which matters when the module is opened).
struct SigBinding {
  SigExprPtr sig;
  EnvPtr env;
};

// Transparent string hashing: lookups by string_view without building a
// std::string (every miss in a Scope frame used to allocate one).
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class T>
using NameMap = std::unordered_map<std::string, T, NameHash, std::equal_to<>>;

struct Namespace {
  NameMap<Binding> values;
  NameMap<ModulePtr> modules;
  NameMap<SigBinding> sigs;
};

// A module: a namespace, or a parametric module (functor) awaiting arguments.
struct Module {
  NamespacePtr ns;  // set for a plain module
  // Functor: the remaining parameter names, the body, and the environment it closes over.
  std::vector<std::string> params;
  ModExprPtr body;
  EnvPtr env;
  TypeEnvPtr tenv;
  SigExprPtr result_sig;  // the functor's declared result module type, or null
  bool is_functor() const { return !params.empty(); }
};

struct Env {
  EnvPtr parent;
  // Local frame (when ns is null): names bound by one pattern. `mutable`
  // only so that an in-place update can mark a variable consumed.
  mutable std::vector<std::pair<std::string, Binding>> locals;
  // Scope frame: a module-level namespace snapshot.
  NamespacePtr ns;
  // Local frames only (env_index.hpp): a checkpoint table covering this
  // frame and the Local frames below it down to the nearest Scope frame,
  // or null; `run` counts the frames since the last checkpoint.
  std::shared_ptr<const EnvIndex> index;
  uint32_t run = 0;
  // Local frames: a one-word Bloom filter of the names bound here (bit
  // name_hash & 63), so that the walk to the checkpoint skips frames
  // without comparing strings.
  uint64_t names_bloom = 0;
  // The same over this frame and the frames below it down to `run_base`
  // (the checkpoint, Scope frame or root below them): a name it rules out
  // jumps there without visiting the frames in between.
  uint64_t run_bloom = 0;
  const Env* run_base = nullptr;
};

// A new Local frame in front of `parent`.
EnvPtr extend(EnvPtr parent, std::vector<std::pair<std::string, Binding>> locals);
EnvPtr extend_scope(EnvPtr parent, NamespacePtr ns);

// Lookup of an unqualified value name; null when unbound.
const Binding* lookup_value(const EnvPtr& env, std::string_view name);
// The same, telling whether the binding lives in a Local frame (which an
// in-place update may consume) rather than a module scope.
Binding* lookup_value_local(const EnvPtr& env, std::string_view name, bool* local);
// Lookup of a possibly qualified value name; null when unbound.
const Binding* lookup_value(const EnvPtr& env, const QualName& name);
ModulePtr lookup_module(const EnvPtr& env, std::string_view name);
// Lookup of a possibly qualified module type name; null when unbound.
const SigBinding* lookup_sig(const EnvPtr& env, const QualName& name);
// Follows a module path (`M.N`); null when some part is unbound.
ModulePtr lookup_module_path(const EnvPtr& env, const std::vector<std::string>& path);

struct TypeEnv {
  TypeEnvPtr parent;
  // AST-owned: the quantified ids and the types they are instantiated with.
  const std::vector<int>* ids = nullptr;
  const std::vector<TypePtr>* types = nullptr;
  // Where `types` are to be resolved (the referencing context).
  TypeEnvPtr where_tenv;
  EnvPtr where_env;
};

TypeEnvPtr bind_types(TypeEnvPtr parent, const std::vector<int>* ids, const std::vector<TypePtr>* types,
                      TypeEnvPtr where_tenv, EnvPtr where_env);

// Substitutes quantified variables from the type environment and named
// dimensions bound to i64 values in `env` (sizes become constants).
// Unresolvable parts are kept as they are.
TypePtr resolve_type(const TypePtr& t, const TypeEnvPtr& tenv, const EnvPtr& env);
// One dimension resolved in env: a size name or a size expression whose
// names are bound there becomes a constant.
Dim resolve_size(const Dim& d, const EnvPtr& env);

}  // namespace thorn::eval
