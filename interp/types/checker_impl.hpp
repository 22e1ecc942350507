#pragma once
// The checker's internals, shared by its translation units (one per
// concern: expressions, patterns, type expressions, declarations, modules,
// zonking). Not for use outside interp/types.
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "interp/types/checker.hpp"
#include "interp/types/consumption.hpp"
#include "interp/types/env.hpp"
#include "interp/types/unify.hpp"
#include "interp/util/error.hpp"

namespace thorn::types {

// Names bound inside an expression (parameters, let, loop, match), or a
// module opened with M.(e).
struct Frame {
  std::map<std::string, SchemePtr> values;
  std::map<std::string, TypeDefPtr> types;
  EnvPtr opened;  // M.(e)
};

// Annotations waiting for the end of the enclosing top-level definition,
// when every variable is known (or defaulted) and they can be zonked.
struct Pending {
  std::vector<std::pair<Expr*, Ty>> exprs;
  std::vector<std::pair<Expr*, Ty>> literals;
  std::set<const Expr*> negated_literals;  // integer literals under a unary minus (`-128`)
  std::vector<std::pair<Pattern*, Ty>> patterns;
  std::vector<std::pair<Expr*, std::vector<Ty>>> instantiations;
  std::vector<std::pair<Expr*, std::vector<std::pair<std::string, DimRef>>>> size_instantiations;
  std::vector<std::pair<Decl*, Ty>> decls;
  // Instantiations of non-lifted type parameters: (use, function, 'a, type).
  struct NonLifted {
    Loc loc;
    std::string fn, param;
    Ty type;
  };
  std::vector<NonLifted> nonlifted;
  // Existential result sizes of the functions referenced in this
  // definition (freshen_result_sizes): the sizes the causality check follows.
  std::vector<DimRef> existentials;
  // Size variables that must be determined by the end of the definition
  // (Futhark's detectAmbiguousSizes), where thorn can tell: a `let [m]`
  // size, a size parameter only function-typed parameters mention.
  struct Ambiguous {
    DimRef var;
    std::string name, why;
    Loc loc;
  };
  std::vector<Ambiguous> ambiguous;
};

bool mentioned_in_function_param(const Ty& t, const std::string& n);
// The names a pattern binds, with where each is bound, in order
// (check_pattern.cpp).
void collect_pattern_names(const Pattern& p, std::vector<std::pair<std::string, Loc>>& out);
// The size names of `t` (resolved), as Futhark's determineSizeWitnesses
// sees them: `witnessed` where one is the size of a concrete value (an
// array dimension outside any function type), `other` where it is only
// inside a function type or part of a size expression (check_binding.cpp).
void size_witnesses(const Ty& t, bool in_function, std::set<std::string>& witnessed, std::set<std::string>& other);

class CheckerImpl;
// Size rules of module ascription (ascribe_sizes.cpp). Futhark's
// matchTypeAbbr: a type made abstract (`type t [n]` specified, `def` given
// as `name`) must use each size parameter as an array size.
void check_abstract_size_params(CheckerImpl& c, const TypeDef& def, const std::string& name, Loc loc);
// Futhark's check for #2120: a value `name` specified as `spec_type` that
// names one of the `abstract` types outside a function type, which `env`
// defines with a hidden size (`type~ dict = []bool`), would get a size of
// its own at the top level.
void check_top_level_size(CheckerImpl& c, const TypeExpr& spec_type, const std::set<std::string>& abstract,
                          const Env& env, const std::string& name, Loc loc);

struct CheckerState {
  ModScope top;
  std::map<const Program*, EnvPtr> imports;
  std::shared_ptr<Env> prelude;
};

class CheckerImpl {
 public:
  CheckerImpl();

  // ---- public entry points (checker.cpp)
  void check_decls(std::vector<DeclPtr>& decls);
  // Two definitions of one name in one namespace of a module or file.
  void check_duplicates(const std::vector<DeclPtr>& decls) const;
  TypePtr check_expression(ExprPtr& e, bool generalise);
  SchemePtr lookup_top_value(const QualName& name) const;

  ModScope top;                              // the session's top-level module
  std::set<int> lifted_abstract;             // Param ids of `type^ t` specs (may be functions)
  // Param ids of `'~a`/`'^a` type parameters and `type~`/`type^` abstract
  // types: (name, where bound; unknown for an abstract type). A non-lifted
  // type parameter may not be instantiated with a type mentioning them.
  std::map<int, std::pair<std::string, Loc>> lifted_vars;
  int lifted_var_in(const Ty& t) const;  // a Param id of lifted_vars in t, or -1
  // ty_functional, or an abstract type declared lifted.
  bool may_be_functional(const Ty& t) const;
  std::map<const Program*, EnvPtr> imports;  // each imported file is checked once
  std::shared_ptr<Env> prelude;              // start of imported files, if marked

  // ---- errors and unification (checker.cpp)
  [[noreturn]] void error(Loc loc, std::string msg) const;
  void check_literal_bounds(const Expr& e, Prim t, bool negated) const;
  // Unifies; on failure reports "<context>: expected E, got A" at loc.
  void expect(Loc loc, const Ty& expected, const Ty& actual, const std::string& context = "");
  // expect, with sizes that certainly differ an error (Futhark's static
  // size check): `Sizes "n" and "m" do not match.`
  void expect_sized(Loc loc, const Ty& expected, const Ty& actual, const std::string& context = "");
  // Unifies; on failure reports the message produced by `message`.
  void unify_or(Loc loc, const Ty& a, const Ty& b, const std::function<std::string()>& message);

  // ---- scopes and lookup (checker.cpp)
  const Env& visible() const { return scope_->visible; }
  SchemePtr find_value(const std::string& name) const;  // unqualified
  TypeDefPtr find_type(const std::string& name) const;
  ModPtr find_mod(const std::string& name) const;
  SigPtr find_sig(const std::string& name) const;
  // The environment of module path M.N (all qualifiers), or error.
  const Env& module_path(const std::vector<std::string>& quals, Loc loc) const;
  Ty qualify_module_sizes(const Ty& body, const TypeDef& td, const std::vector<std::string>& quals, Loc loc) const;
  SchemePtr lookup_value(const QualName& name, Loc loc) const;
  TypeDefPtr lookup_type(const QualName& name, Loc loc) const;
  ModPtr lookup_mod(const QualName& name, Loc loc) const;
  bool is_module_name(const std::string& name) const;
  bool is_local_value(const std::string& name) const;
  // The binding (Scheme) a local name refers to here, or null if not local.
  const void* local_binding(const std::string& name) const;

  // `sizes`: the fresh sizes given to the scheme's size parameters, by name.
  Ty instantiate(const Scheme& s, std::vector<Ty>* inst,
                 std::vector<std::pair<std::string, DimRef>>* sizes = nullptr);
  // Records the instantiations of s's non-lifted type parameters, checked
  // when the definition is finished.
  void note_nonlifted(const Scheme& s, const std::vector<Ty>& inst, Loc loc, const std::string& fn);
  int new_param_id() { return ++param_ids_; }

  // ---- expressions (check_expr.cpp, check_ops.cpp)
  Ty infer(ExprPtr& e);
  Ty infer_var(ExprPtr& e);
  Ty infer_apply(Expr& e);
  Ty apply_function(Loc loc, Ty fn, ExprPtr& arg, int arg_no, const std::string& fn_name);
  // "Existential size would appear in function parameter of return type"
  // (check_ops.cpp): a size bound inside an argument's type as a parameter
  // size of the application's result.
  void check_existential_params(Loc loc, const Ty& result, const std::string& context) const;
  Ty infer_binop(Expr& e);
  Ty infer_op_section(Expr& e);
  Ty infer_let(Expr& e);
  Ty infer_letfun(Expr& e);
  Ty infer_lambda(Expr& e);
  Ty infer_loop(Expr& e);
  // `let [n] p = e`: each size must be an array dimension in p outside
  // function types (not only inside them or in size expressions).
  void check_size_binders_witnessed(const std::vector<TypeParam>& sizes, const Ty& pattern_type);
  Ty infer_match(Expr& e);
  Ty infer_index(Expr& e);
  // `rigid`: a slice's size is the expression Futhark gives it (sliceShape:
  // `xs[i:j]` is [j - i], `xs[:j]` [j], `xs[i:]` [n - i]) where its bounds are
  // size expressions of local names; else, and in an in-place update's
  // target, a size to infer.
  Ty index_result(Loc loc, Ty array, std::vector<IndexArg>& indices, bool rigid = false);
  std::optional<DimRef> slice_size(const DimRef& orig, const IndexArg& ix) const;
  Ty infer_range(Expr& e);
  Ty infer_record_update(Expr& e);
  Ty field_of(Loc loc, Ty record, const std::string& field);
  DimRef dim_of_arg(const Expr& arg) const;
  // The size an expression of names, integer literals, +, - and * denotes
  // (`n + 1` as an argument for a named parameter or in `[n + 1]`); false
  // for anything else.
  bool size_poly_of(const Expr& e, SizePoly& out) const;
  // size_poly_of, naming local values only (sizes of ranges and slices).
  bool local_size_poly(const Expr& e, SizePoly& out) const;
  // Its syntax (for structural unification), and d with it attached when d
  // is an Expr.
  SizeTreePtr size_tree_of(const Expr& e) const;
  SizeTreePtr app_size_tree_of(const Expr& e) const;
  SizeTreePtr size_syntax_tree_of(const Expr& e) const;
  SizeTreePtr opaque_size_tree_of(const Expr& e) const;
  // `[s.0]`, `[p.x.n]`: a field of a local record, as an application of
  // the projection `.0` (see SizeTree::fn); null for anything else.
  SizeTreePtr projection_size_tree(const Expr& e) const;
  SizeTreePtr projection_size_tree(const QualName& name) const;  // `[r.a]`, parsed as a qualified name
  DimRef with_tree(DimRef d, const Expr& e) const;
  // `[n + m]` in an annotation: the local variables it names are i64.
  void require_i64_names(const Expr& e);
  // The applications in a size expression, inferred as i64 expressions.
  void infer_size_apps(const ExprPtr& e);
  // Static size rules on type expressions (size_rules.cpp): no anonymous
  // size inside a function type of an abbreviation; no size bound inside a
  // tuple/record parameter in a function's annotations.
  // A non-lifted abbreviation (`type t = ...`) may not hide sizes.
  void check_unlifted_abbreviation(const TypeExprPtr& body, const std::string& name, Loc loc);
  void check_abbreviation_sizes(const TypeExprPtr& body, Loc loc);
  void check_hidden_param_sizes(const std::vector<TypeParam>& tparams, const std::vector<PatternPtr>& params,
                                const TypeExprPtr& ret_type);
  // The size named by a local variable (with its binding, so that it is
  // checked statically while in scope), or by a top-level/module value.
  DimRef named_dim(const std::string& name) const;
  // After bind_type_params for `let [n] ...`/`loop [n] ...`: those sizes
  // come from values, so they are loose (Scheme::loose_size).
  static void loosen_sizes(const std::vector<TypeParam>& params, Frame& frame);

  // ---- patterns (check_pattern.cpp)
  // Infers a pattern's type, binding its variables in `frame`.
  Ty bind_pattern(PatternPtr& p, Frame& frame, bool refutable);
  // The name of a parameter pattern (x, or x: t), or empty.
  static std::string pattern_name(const Pattern& p);

  // ---- type expressions (check_type_expr.cpp)
  Ty eval_type(const TypeExprPtr& te);
  DimRef eval_dim(const SizeExpr& s);
  // Futhark's liftedness of a type expression (0, 1 `~`, 2 `^`; see TypeDef).
  int type_expr_liftedness(const TypeExprPtr& te);
  // Binds type parameters as rigid types (and size parameters as i64
  // values) in frame; returns the Param ids (-1 for sizes).
  std::vector<int> bind_type_params(const std::vector<TypeParam>& params, Frame& frame);

  // ---- declarations (check_decl.cpp)
  void check_decl(DeclPtr& d, ModScope& scope, bool local);
  void check_value_decl(Decl& d, ModScope& scope, bool local);
  void check_not_redefined(const std::string& name, const Loc& loc);
  // No name bound twice along a function type (`(x: t) -> (x: u) -> v`);
  // checked by eval_type at every function type.
  void check_names_bound_once(const TypeExpr& te);
  // > 0 while a REPL expression is checked: a record type that only field
  // accesses constrain becomes a record of those fields instead of an
  // ambiguity error (Futhark's rule for definitions).
  int lenient_records = 0;
  // "Type parameter "t" previously defined at ...".
  void check_distinct_type_params(const std::vector<TypeParam>& params);
  // An entry point's size parameters: given by its parameters' shapes.
  void check_entry_sizes(const Decl& d);
  bool irregular_elem(const Ty& t) const;
  // Whether a type expression mentions a size name (a size expression
  // counts as mentioning every name).
  static bool type_expr_mentions(const TypeExprPtr& te, const std::string& name);
  // "Name "x" also bound at ...": no name twice among a binding group's
  // type parameters and parameters.
  void check_duplicate_names(const std::vector<TypeParam>& tparams, const std::vector<const Pattern*>& pats);
  void check_type_decl(Decl& d, ModScope& scope, bool local);
  // fn (a function of `arity` parameters) with its result's uniqueness set.
  Ty with_result_uniqueness(const Ty& fn, size_t arity, const ResultUniqueness& u);
  void check_unknown_param_sizes(const Ty& result, const std::string& name, const Ty& whole, Loc loc);
  // Loops (check_binding.cpp, infer_loop).
  static bool ascribed_pattern(const Pattern& q);
  // > 0: `[]` in a type expression is a size variable, not an unknown
  // size (a loop parameter's ascription).
  int anonymous_as_vars_ = 0;
  // Local bindings made so far (Scheme::stamp), and > 0 while a named
  // function's parameters are bound: their types get stamps (TyNode::stamp).
  int scope_stamp_ = 0;
  int stamp_param_types_ = 0;
  // `every_dim`: all sizes fresh, not only the open ones.
  static Ty open_dims_fresh(const Ty& t, bool every_dim = false);
  Ty loop_result(const Ty& p, const Ty& init, const Loc& loc,
                 const std::map<const DimNode*, std::vector<DimRef>>& initial,
                 const std::map<const DimNode*, std::vector<DimRef>>& returned);
  static void loop_initial_sizes(const Ty& p, const Ty& init, std::map<const DimNode*, std::vector<DimRef>>& out);
  // Checks a function (LetFun or top-level def): returns the function type.
  struct FunResult {
    Ty type;
    std::vector<int> quantified;
    std::vector<std::string> size_params;
    std::vector<std::pair<int, std::string>> nonlifted;
    // A `[]` of the declared result that the body left unsolved, and that
    // no parameter's type has: Futhark makes it a size parameter
    // (letGeneralise), which an entry point may not have.
    bool size_polymorphic_result = false;
  };
  int inferred_size_counter_ = 0;
  bool unsolved_result_size(const Ty& declared, const std::vector<Ty>& params);
  FunResult check_function(const std::vector<TypeParam>& tparams, std::vector<PatternPtr>& params,
                           const TypeExprPtr& ret_type, ExprPtr& body, Loc loc, bool generalise,
                           const std::string* self = nullptr);  // self: the name, for recursion

  // ---- modules (check_module.cpp)
  void check_module_decl(Decl& d, ModScope& scope, bool local);
  void check_module_type_decl(Decl& d, ModScope& scope, bool local);
  void check_open(Decl& d, ModScope& scope, bool local);
  void check_import(Decl& d, ModScope& scope);
  ModPtr eval_module(const ModExprPtr& m);
  EnvPtr check_struct(std::vector<DeclPtr>& decls, const Env& outer);
  // `prefix`: the path of a nested module (`bar.`) for error messages.
  EnvPtr ascribe(EnvPtr env, const SigExprPtr& sig, Loc loc, const std::string& prefix = "");
  // > 0 while checking a functor application's copy of the body: its
  // consumption was checked once at the definition (as in Futhark).
  int functor_instance = 0;
  // After `module M : S = ...`: S's abstract types become opaque (new rigid
  // types) in what M exports, and values whose specified types mention them
  // get those types. Zonking sees through them (`opaque`).
  EnvPtr seal(EnvPtr env, const SigExprPtr& sig, const std::string& module_name = "");
  std::map<int, Ty> opaque;  // Param id of a sealed abstract type -> its definition
  // Uses of values whose type is abstract (for check_consumption); cleared
  // after each definition.
  std::set<const Expr*> abstract_uses;
  // The environment a module type describes (abstract types as rigid types).
  EnvPtr sig_env(const SigExprPtr& sig);
  // The exports of an imported file, checked once from `base` (or the prelude).
  EnvPtr import_env(const std::shared_ptr<Program>& program, const Env& base, Loc loc);
  // `prefix`: as for ascribe, for errors matching the argument.
  ModPtr apply_functor(const ModPtr& fn, const ModPtr& arg, ModExpr& at, const std::string& prefix = "");
  bool is_functor_sig(const SigExprPtr& sig);

  // ---- parametric module types (functor_match.cpp)
  // The module a module type describes: a structure (sig_env) or, for a
  // parametric module type, an abstract functor (no body).
  ModPtr sig_module(const SigExprPtr& sig);
  // Checks that parametric module `have` matches parametric module type `sig`.
  void match_functor(const ModPtr& have, const SigExprPtr& sig, Loc loc, const std::string& prefix = "");

  // ---- causality (causality.cpp): Futhark's causalityCheck on a finished
  // definition's body, before zonking: no type may need an existential size
  // before the application computing it has been evaluated.
  void check_causality(Expr& body, const Pending& p) const;

  // ---- generalisation, defaulting and zonking (zonk.cpp)
  void begin_definition();
  // Defaults every variable left in the pending annotations and writes them.
  void finish_definition();
  // Turns unconstrained variables above the current level, free in t, into
  // rigid parameters. Returns their ids.
  // loc: the definition, where an error about a variable that cannot be generalised points.
  std::vector<int> generalise(const Ty& t, const std::vector<std::string>& taken_names, const Loc& loc = {});
  void default_vars(const Ty& t);
  Ty freeze(const Ty& t);  // no variables left (for the environment)
  TypePtr zonk(const Ty& t, bool keep_unique);

  void note(Expr& e, const Ty& t) { pending_.exprs.emplace_back(&e, t); }
  void note(Pattern& p, const Ty& t) { pending_.patterns.emplace_back(&p, t); }

  Unifier u;
  std::deque<Frame> frames;  // a deque: references to frames stay valid as more are pushed

 private:
  ModScope* scope_ = &top;
  Pending pending_;
  // A named size whose local binding is out of scope (freshen_result_sizes).
  std::function<bool(const DimNode&)> escaped_size_;
  int param_ids_ = 0;
  friend struct ScopeGuard;
  friend class ModScopeSwitch;

 public:
  // Runs f with `s` as the current module scope and no local frames.
  template <class F>
  void with_scope(ModScope& s, F&& f) {
    ModScope* saved = scope_;
    std::deque<Frame> saved_frames;
    saved_frames.swap(frames);
    int saved_level = u.level;
    Pending saved_pending;
    std::swap(saved_pending, pending_);
    scope_ = &s;
    try {
      f();
    } catch (...) {
      scope_ = saved;
      frames.swap(saved_frames);
      u.level = saved_level;
      std::swap(saved_pending, pending_);
      throw;
    }
    scope_ = saved;
    frames.swap(saved_frames);
    u.level = saved_level;
    std::swap(saved_pending, pending_);
  }
  Pending& pending() { return pending_; }
};

// Pushes a frame for the lifetime of the guard.
struct FrameGuard {
  CheckerImpl& c;
  explicit FrameGuard(CheckerImpl& c_, Frame f = {}) : c(c_) { c.frames.push_back(std::move(f)); }
  ~FrameGuard() { c.frames.pop_back(); }
  Frame& frame() { return c.frames.back(); }
};

}  // namespace thorn::types
