#pragma once
// The tree-walking evaluator over the checked AST (see DESIGN.md,
// "Evaluate"). It is the semantic reference of thorn: every other backend is
// compared against what this produces.
//
// Values carry their own primitive types, so arithmetic never consults the
// checker's types; those are needed only where a value must be built from
// nothing (empty arrays, map over an empty array), and then they are
// resolved through the run-time type environment (env.hpp).
//
// Every SOAC and array primitive goes through exec::dispatch (interp/exec),
// reached from the prelude's `__intrinsic` calls.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/eval/callable.hpp"
#include "interp/eval/env.hpp"
#include "interp/syntax/ast.hpp"
#include "interp/types/type.hpp"
#include "interp/util/error.hpp"

namespace thorn::eval {

// The context an expression is evaluated in.
struct Ctx {
  EnvPtr env;
  TypeEnvPtr tenv;
};

// A module-level scope being built, declaration by declaration: `visible`
// is what later declarations see, `exported` what the module (or file)
// offers to others (local declarations and imports are visible only).
struct ScopeBuilder {
  EnvPtr outer;  // the environment around the scope
  NamespacePtr visible = std::make_shared<Namespace>();
  NamespacePtr exported = std::make_shared<Namespace>();

  // The environment for the next declaration: the scope so far, then `outer`.
  EnvPtr env();
  void add_value(const std::string& name, Binding b, bool exported_too);
  void add_module(const std::string& name, ModulePtr m, bool exported_too);
  void add_sig(const std::string& name, SigBinding s, bool exported_too);
  void merge(const Namespace& ns, bool exported_too);  // open / import

 private:
  EnvPtr env_cache_;
};

struct EvalOptions {
  std::string backend = "reference";
  bool validate = false;
};

class Evaluator {
 public:
  explicit Evaluator(EvalOptions options = {});

  const EvalOptions& options() const { return options_; }

  // ---- expressions
  Value eval(const Expr& e, const Ctx& ctx);
  // Applies a function value to arguments (curried: more or fewer than it
  // takes are fine). `loc` is the application, for error messages.
  Value apply(const Value& fn, std::vector<Value> args, const Loc& loc);
  Value apply1(const Value& fn, Value x, const Loc& loc);
  Value apply2(const Value& fn, Value x, Value y, const Loc& loc);

  // ---- declarations
  void eval_decl(const Decl& d, ScopeBuilder& scope, const TypeEnvPtr& tenv);
  // Evaluates a whole file once (imports are cached by Program) in the
  // prelude's environment and returns its exported names.
  NamespacePtr eval_import(const std::shared_ptr<Program>& program);
  ModulePtr eval_module_expr(const ModExpr& m, const EnvPtr& env, const TypeEnvPtr& tenv);

  // The environment imported files start from (set by the session once the
  // prelude is loaded).
  EnvPtr prelude_env;

  // Where `#[trace]` output goes: the default prints "<loc>: <value>" to
  // stderr, as Futhark's interpreter does.
  std::function<void(const std::string& where, const Value& v, const TypePtr& type)> on_trace;
  // How values are printed in trace output and some messages; the session
  // installs value_io's printer.
  std::function<std::string(const Value&, const TypePtr&)> format_value;
  // Called by the host backend (interp/exec/host_backend.hpp) with the plan
  // listing of every SOAC it runs, or why it left one to the reference;
  // set by `:plan` and `--log plan`. Null: nobody is listening.
  std::function<void(const std::string& listing)> on_plan;
  // The innermost application written outside the prelude: SOAC calls made
  // by the prelude's `__intrinsic`s report this location (plan listings,
  // --validate errors point at user code). Maintained by apply(). [thorn wiring]
  Loc user_call_loc;
  // The saturated application about to call a closure with size
  // parameters, and its context: the callee may need the call's result
  // type to find sizes its arguments do not give (size_infer.hpp). Set by
  // eval_apply, taken (and cleared) by call_closure.
  const Expr* pending_call = nullptr;
  const Callable* pending_callee = nullptr;  // the closure it is meant for
  Ctx pending_call_ctx;
  // Automatic differentiation (ad.hpp): how many jvp/vjp calls are running,
  // and the last level handed out (levels only grow).
  int ad_active = 0;
  uint64_t ad_levels = 0;

  // ---- helpers shared with intrinsics and the dispatcher
  // Runs `f`, giving a location to any run-time error that lacks one.
  template <class F>
  auto with_loc(const Loc& loc, F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (Error& err) {
      if (!err.loc.known() && err.kind == ErrorKind::Runtime) throw Error(err.kind, loc, err.message, err.notes);
      throw;
    }
  }

 private:
  friend struct CallFrame;
  EvalOptions options_;
  std::map<const Program*, NamespacePtr> imports_;
  int depth_ = 0;  // nesting of eval/apply, against native stack overflow
  // Inside `#[unsafe] e` (and what it calls) the reference evaluator does not
  // check assertions, as compiled Futhark removes them (tests/assert3.fut).
  // Flattened code keeps its checks: a cached plan may serve a call site
  // inside and outside such an expression.
  int unsafe_depth_ = 0;

  // eval_expr.cpp
  Value eval_var(const Expr& e, const Ctx& ctx);
  Value eval_binop(const Expr& e, const Ctx& ctx);
  Value eval_op_section(const Expr& e, const Ctx& ctx);
  Value eval_loop(const Expr& e, const Ctx& ctx);
  Value eval_match(const Expr& e, const Ctx& ctx);
  Value eval_intrinsic(const Expr& e, const Ctx& ctx);
  Value eval_attr(const Expr& e, const Ctx& ctx);
  Value instantiate(const Binding& b, const Expr& ref, const Ctx& ctx);
  // size_syntax.cpp: the value of a size the checker instantiated a size
  // parameter with at a reference (Expr::size_args), computed in its scope.
  std::optional<int64_t> size_arg_value(const Dim& d, const Ctx& ctx, const Loc& loc);
  Value size_syntax_value(const SizeSyntax& s, const Ctx& ctx, const Loc& loc);
  Value operator_value(const QualName& op, const Expr* ref, const Ctx& ctx);

  // eval_index.cpp
  // Evaluates a variable that is being consumed (an in-place update, a
  // unique parameter): a local array variable is moved out of its frame and
  // marked consumed; anything else is evaluated normally.
  Value take_variable(const Expr& var, const Ctx& ctx);
  Value eval_apply(const Expr& e, const Ctx& ctx);
  std::vector<IndexValue> eval_indices(const std::vector<IndexArg>& args, const Ctx& ctx);
  Value eval_update(const Expr& e, const Ctx& ctx);
  Value eval_range(const Expr& e, const Ctx& ctx);
  Value eval_record_update(const Expr& e, const Ctx& ctx);

  // eval_apply.cpp
  Value apply_curried(const Value& fn, std::vector<Value> args, const Loc& loc);
  Value call_closure(const Callable& c, std::vector<Value>& args, const Loc& loc);
  Value apply_exact(const Callable& c, std::vector<Value>& args, const Loc& loc);

 public:
  // eval_pattern.cpp: binds `p` to `v`, appending to `frame`. With
  // `refutable`, literal and constructor patterns may fail (returns false);
  // otherwise a mismatch is an internal error.
  struct SizeScope;
  // `site` is where size mismatches are reported (a call site), p.loc if null.
  bool bind_pattern(const Pattern& p, Value v, std::vector<std::pair<std::string, Binding>>& frame,
                    SizeScope* sizes, const Ctx& ctx, bool refutable = false, const Loc* site = nullptr);
  // Checks `v` against the sizes of a type expression; binds size names
  // listed in `sizes` on first sight, checks them afterwards.
  // `what` is "return", "coerce" (messages as Futhark's) or a description of
  // the value ("`xs`"); `shown` is the type named in the message.
  void check_type_sizes(const TypeExpr& te, const Value& v, SizeScope& sizes, const Ctx& ctx, const Loc& loc,
                        const std::string& what, const TypePtr& shown = nullptr);
  // The same on a checked type, for size parameters only reachable through
  // type abbreviations.
  void bind_sizes_from_type(const Type& t, const Value& v, SizeScope& sizes);
  // After c's parameter patterns bound what they show (bind_pattern): the
  // size parameters still unbound, through the checked types (sizes behind
  // type abbreviations), the hints from where c was named, `from_result`
  // (what the call's result type says, when the caller knows it), then
  // solved from the arguments' shapes.
  void bind_hidden_sizes(const Callable& c, const std::vector<Value>& args, SizeScope& sizes,
                         const std::function<void()>& from_result = nullptr);

  // The value an empty array (or other value built from nothing) of type t.
  Value empty_value_of_type(const Type& t, const Loc& loc);
};

// Names of size parameters being bound during one binding (a call, a let
// with [n], a loop) and the frame they are bound into.
struct Evaluator::SizeScope {
  std::vector<std::string> to_bind;  // size parameter names
  std::vector<std::pair<std::string, Binding>>* frame = nullptr;
  bool is_bound(const std::string& name) const;
  std::optional<int64_t> lookup(const QualName& name, const EnvPtr& env) const;
};

// Futhark's notation for a value's shape: [2][3].
std::string shape_string(const std::vector<int64_t>& shape);
std::string shape_of(const Value& v);

// Built-in (overloaded) operators: the ones not defined in the prelude.
bool is_builtin_operator(std::string_view name);

// Ctrl-C in the REPL: the SIGINT handler sets the flag while an evaluation
// runs; the evaluator checks it at calls and loop iterations and stops with
// an "Interrupted." error, returning to the prompt. The flag is
// interp/util/cancel.hpp's, which the host and GPU executors check too.
void request_interrupt();
void clear_interrupt();
bool interrupt_requested();
// Throws the interruption error if one was requested (the flag stays set).
void check_interrupt(const Loc& loc);
// Whether `e` contains a use of the unqualified name (shadowing ignored: an
// over-approximation). Used to give recursive functions a self binding.
bool mentions_name(const Expr& e, const std::string& name);
// Whether a function named `name` with this body refers to itself: a name
// (not an operator) that the environment around the definition does not
// bind yet, and that the body mentions. The checker makes the same choice
// (check_binding.cpp, [recursion]).
bool may_recurse(const std::string& name, const Expr& body, const EnvPtr& env);

}  // namespace thorn::eval
