#pragma once
// The checker's working representation of types. Unlike the immutable
// `Type` stored on the AST, these contain unification variables (union-find
// nodes bound in place) and size variables. Each top-level definition is
// checked in this representation and then "zonked" into `Type`s.
//
// Arrays have one dimension per node ([n][m]t is Array(n, Array(m, t))) so a
// type variable can later turn out to be an array without special cases.
// Tuples are records with fields "0", "1", ... as in Futhark.
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/core/prim.hpp"
#include "interp/util/source.hpp"

namespace thorn::types {

struct DimNode;
using DimRef = std::shared_ptr<DimNode>;

// A size expression (`[n + 1]`, `[n * m]`, an argument `n + 1` for a named
// parameter) in normal form: a polynomial over size names. Monomials are
// sorted lists of names (with repetition); the empty one is the constant.
// Each name keeps the local binding it referred to (null: a top-level or
// loose name), so that two expressions are only compared when their names
// denote the same bindings.
struct SizePoly {
  std::map<std::vector<std::string>, int64_t> terms;  // no zero coefficients
  std::map<std::string, std::shared_ptr<const void>> bindings;
};

// The syntax of a size expression, kept beside its normal form so that
// sizes unify structurally as in Futhark: `[n * m]` (n, m to be solved)
// against `[(b + 1) * (b + 1)]` gives n = b + 1 and m = b + 1, which the
// polynomial b*b + 2*b + 1 no longer shows. Leaves are Constant, Name or
// Var dims (a size parameter being instantiated). An application of a
// named function (`[cap nb n]`) is kept as syntax too: it has no normal
// form, but unifies with an application of the same function argument by
// argument, as Futhark's similarExps does.
struct SizeTree {
  enum class Op { Leaf, Add, Sub, Mul, Neg, Apply };
  Op op = Op::Leaf;
  DimRef leaf;                          // Leaf
  // Leaf: a literal written with a type (`1u32` in `[i64.u32 (1u32 << k)]`),
  // which the evaluator computes at that type.
  std::optional<Prim> lit_type;
  std::shared_ptr<const SizeTree> a, b;  // operands (Neg: a only)
  // Apply: the function's (qualified) name; `.f` projects field f of its
  // one argument (`[s.0]` with s a local record).
  std::string fn;
  std::vector<std::shared_ptr<const SizeTree>> args;  // Apply
};
using SizeTreePtr = std::shared_ptr<const SizeTree>;

struct DimNode {
  enum class Kind { Var, Constant, Name, Unknown, Expr };
  Kind kind = Kind::Unknown;
  int64_t value = 0;
  std::string name;
  DimRef link;  // Var: what it was unified with
  // Name: the local binding (parameter, size parameter, let) the name
  // referred to where this size was written, or null (a top-level or module
  // value, a size in a module type). Only sizes whose binding is still the
  // one in scope are compared strictly (see Unifier::strict_sizes).
  std::shared_ptr<const void> binding;  // kept alive: its address identifies it
  std::shared_ptr<const SizePoly> poly;  // Expr (name: its text, for messages)
  // Expr (or a Constant written as an expression, `2 * 2`): its syntax,
  // when written as one. An Expr whose tree still has an
  // unsolved Var leaf has no poly until the leaf is bound (dim_poly
  // computes it then).
  SizeTreePtr tree;
  // Unknown: an existential size of a function's result (`[]t`, `?[n].t`),
  // fresh per use of the function (see freshen_result_sizes). The size is
  // computed by the application that supplies the last argument.
  bool existential = false;
  // Unknown: an anonymous size written in a function's declared return type
  // (`: []t`), which Futhark makes existential (mark_result_existentials).
  bool declared = false;
  // Var: the first existential size it was unified with. Unification does
  // not bind a variable to an unknown size (that is left to run time), but
  // Futhark would have: the causality check (causality.cpp) follows this.
  DimRef met;
  // Var: it met a size it was not bound to: an unknown one (`met_unknown`,
  // existential or not) or a size expression mentioning itself (`met_self`,
  // `acc ++ x` as a loop's next `acc`). A loop parameter's size that met
  // either is loop-variant (infer_loop).
  bool met_unknown = false;
  bool met_self = false;
  // Var: stands for a named parameter's argument (`(n: i64) -> [n]t`
  // unified with an unnamed function type): a size bound inside an argument's
  // type, which may not become a parameter size of an application's result.
  bool bound_inside = false;
  // Var: the scope stamp when it was introduced (see TyNode::stamp); -1:
  // not checked.
  int stamp = -1;
  // Unknown (existential): why, for messages ("unknown due to a
  // conditional expression ...").
  std::string origin;
};

DimRef dim_var();
DimRef dim_const(int64_t v);
DimRef dim_name(std::string name, std::shared_ptr<const void> binding = nullptr);
DimRef dim_unknown();
DimRef dim_existential();  // a fresh Unknown with `existential` set
DimRef dim_resolve(DimRef d);

// Size polynomials. dim_poly: the polynomial of a Constant, Name or Expr
// (false for Var/Unknown). dim_of_poly: the simplest dim for p (a Constant,
// a Name when p is a single name, otherwise an Expr).
bool dim_poly(const DimRef& d, SizePoly& out);
DimRef dim_of_poly(SizePoly p);
// A dim for a size expression's syntax: its normal form (with the tree kept
// when that is an Expr), or, while a leaf is an unsolved variable, an Expr
// with only the tree.
DimRef dim_of_tree(const SizeTreePtr& t);
SizeTreePtr tree_leaf(DimRef d);
SizeTreePtr tree_node(SizeTree::Op op, SizeTreePtr a, SizeTreePtr b = nullptr);
SizeTreePtr tree_apply(std::string fn, std::vector<SizeTreePtr> args);
// Whether the tree has a leaf that is still an unbound variable.
bool tree_pending(const SizeTreePtr& t);
bool tree_mentions(const SizeTreePtr& t, const DimRef& var);
// The size names a (resolved) Name or Expr dim mentions, an application's
// arguments included.
std::set<std::string> dim_names(const DimRef& d);
std::string show_tree(const SizeTreePtr& t);
SizePoly poly_const(int64_t v);
SizePoly poly_add(const SizePoly& a, const SizePoly& b, int64_t sign = 1);
SizePoly poly_mul(const SizePoly& a, const SizePoly& b);
// Whether a - b is a known nonzero constant, with every name of both sides
// bound (non-null) and the same name denoting the same binding on both.
bool poly_certainly_differ(const SizePoly& a, const SizePoly& b);
bool poly_same(const SizePoly& a, const SizePoly& b);
std::string show_poly(const SizePoly& p);

using PrimMask = uint16_t;
constexpr PrimMask prim_bit(Prim p) { return static_cast<PrimMask>(1u << static_cast<int>(p)); }
PrimMask numeric_mask();
PrimMask integral_mask();
PrimMask float_mask();
PrimMask all_prims_mask();

struct TyNode;
using Ty = std::shared_ptr<TyNode>;
using Fields = std::vector<std::pair<std::string, Ty>>;                // sorted by field_less
using Constrs = std::vector<std::pair<std::string, std::vector<Ty>>>;  // sorted by name

enum class Constraint {
  None,
  Equality,    // must support == (not a function)
  Overloaded,  // one of `prims`
  HasFields,   // a record with at least `fields`
  HasConstrs,  // a sum type with at least `constrs`
};

struct TyNode {
  enum class Kind { Var, Prim, Array, Record, Sum, Function, Param };
  Kind kind = Kind::Prim;
  bool unique = false;

  // Var
  Ty link;
  int var = 0;
  int level = 0;
  Constraint constraint = Constraint::None;
  PrimMask prims = 0;
  Loc constraint_loc;  // where the constraint arose, for ambiguity errors

  Prim prim = Prim::I32;       // Prim
  DimRef dim;                  // Array
  Ty elem;                     // Array
  Fields fields;               // Record; HasFields constraint
  Constrs constrs;             // Sum; HasConstrs constraint
  Ty param, result;            // Function
  std::string param_name;      // Function: `(n: i64) -> [n]i32`
  int param_id = -1;           // Param: quantified variable id
  std::string param_var_name;  // Param
  // Var: for Futhark's scope-violation check (Unify.hs, linkVarToDim),
  // the count of local bindings made when this type (a function
  // parameter's) or size (`[]` in an annotation) was introduced: it may not
  // come to name a size bound after that and still in scope (a later
  // parameter, a let or parameter of a nested scope). -1: not checked.
  int stamp = -1;
};

Ty ty_prim(Prim p);
Ty ty_array(DimRef dim, Ty elem);
Ty ty_array_n(std::vector<DimRef> dims, Ty elem);  // outermost first
Ty ty_record(Fields fields);                       // sorts
Ty ty_tuple(std::vector<Ty> elems);                // 1 element: that type
Ty ty_unit();
Ty ty_sum(Constrs constrs);                        // sorts
Ty ty_function(Ty param, Ty result, std::string param_name = "");
Ty ty_param(int id, std::string name);
Ty ty_with_unique(const Ty& t, bool unique);       // copy with the flag set
// t without uniqueness at the top and in its tuple/record/sum components
// (Futhark's StructType: what a type variable stands for).
Ty ty_nonunique(const Ty& t);

// Follows Var links (with path compression).
Ty resolve(Ty t);

bool is_tuple_fields(const Fields& f);  // fields "0".."n-1", n != 1
const Ty* find_field(const Fields& f, const std::string& name);
const std::vector<Ty>* find_constr(const Constrs& c, const std::string& name);

// Replaces rigid parameters and named dims; used to instantiate schemes and
// expand type abbreviations. Unmapped names are kept.
struct Substitution {
  std::map<int, Ty> types;         // Param id -> type
  std::map<std::string, DimRef> dims;  // Dim name -> dim
  bool empty() const { return types.empty() && dims.empty(); }
};
Ty substitute(const Ty& t, const Substitution& s);

// After a and b were unified: their common type, with the sizes on which
// they disagree made unknown (the two branches of an `if` may differ in
// size; the result has whichever size was taken at run time).
// `branches`: a and b are the results of an if's or match's branches, whose
// sizes where both are known (constants, names, expressions) and differ
// make an existential size, as in Futhark (DimNode::origin says why).
Ty join_sizes(const Ty& a, const Ty& b, bool branches = false);

// A function type with the existential sizes of its final result (after
// all parameters) replaced by fresh ones (DimNode::existential): the
// declared anonymous sizes (DimNode::declared) and named sizes whose local
// binding has escaped. Other types unchanged. Used when a function is
// referenced: each use computes its own result sizes, as Futhark
// instantiates a result's existential sizes. `created` gets the new sizes.
Ty freshen_result_sizes(const Ty& t, std::vector<DimRef>* created = nullptr,
                        const std::function<bool(const DimNode&)>& escaped = {});

// A declared return type with its anonymous result sizes marked
// (DimNode::declared), so that freshen_result_sizes makes them existential
// at each use. Not followed through type variables.
// `keep`: size variables left as they are (a parameter's size that the
// result shares).
Ty mark_result_existentials(const Ty& t, const std::set<const DimNode*>* keep = nullptr);

// Whether values of this type may be functions (resolving variables).
// Whether pred holds for t or a part of it outside function types (array
// elements, fields, payloads); t and its parts resolved.
bool ty_any_outside_functions(const Ty& t, const std::function<bool(const Ty&)>& pred);
bool ty_functional(const Ty& t);

// Human-readable form for error messages. Unresolved overloaded variables
// print as their default type (an integer literal is shown as i32).
std::string show(const Ty& t);

}  // namespace thorn::types
