#pragma once
// Unification of the checker's types, with Futhark's constraints on type
// variables (overloaded primitives, equality types, record fields, sum
// constructors) and level-based bookkeeping for let-generalisation.
//
// Sizes: a size variable is bound to the first known size it meets. Two
// different known sizes are an error only where the checker asks for it
// (`strict_sizes`: arguments, return types, ascriptions, annotated lets), and
// only when both are sure to denote different sizes (constants, or names of
// local bindings still in scope); anywhere else the evaluator's run-time
// checks decide. Branches of `if`/`match` and array elements may differ.
#include <functional>
#include <map>
#include <string>

#include "interp/types/ty.hpp"

namespace thorn::types {

// Thrown by unify; the caller turns it into a located type error with context.
struct UnifyFailure {
  std::string detail;  // the innermost mismatch, e.g. "i32 is not a floating-point type"
  bool sizes = false;  // a static size mismatch: detail is `Sizes "n" and "m" do not match.`
  bool whole = false;  // detail is the whole message (a scope violation)
};

// Increments a counter for its lifetime (Unifier::strict_sizes, ignore_dims).
struct CounterGuard {
  int& c;
  explicit CounterGuard(int& c_) : c(c_) { ++c; }
  ~CounterGuard() { --c; }
  CounterGuard(const CounterGuard&) = delete;
  CounterGuard& operator=(const CounterGuard&) = delete;
};

class Unifier {
 public:
  int level = 0;  // the current let-nesting level for new variables
  int strict_sizes = 0;  // > 0: two sizes known to differ make unification fail
  int ignore_dims = 0;   // > 0: sizes are neither compared nor bound (`e :> t`)
  // > 0 while the results of branches (`if`, `match`) are unified: a size
  // that differs between them becomes existential (Futhark's
  // unifyMostCommon), so a variable meeting a size computed inside a branch
  // is not one Futhark would have bound (DimNode::met stays unset).
  int joining_branches = 0;
  // Whether a Name size's binding is still the one its name refers to.
  std::function<bool(const DimNode&)> binding_in_scope;
  // > 0 while a loop body's result is matched to its parameters, where a
  // size may grow from one iteration to the next.
  int loop_result = 0;
  // The first stamp of the top-level definition being checked: a stamped
  // variable from an earlier one (left in its type, say inside a size
  // expression) is not checked against this one's bindings.
  int stamp_floor = 0;
  // The stamp (Scheme::stamp) of a Name size's binding while in scope; -1
  // otherwise.
  std::function<int(const DimNode&)> binding_stamp;

  Ty fresh(Loc loc = {});
  Ty fresh_overloaded(PrimMask prims, Loc loc);
  Ty fresh_equality(Loc loc);
  // A variable that must be a record with (at least) the given field.
  Ty fresh_with_field(const std::string& field, Ty field_type, Loc loc);
  Ty fresh_with_constr(const std::string& name, std::vector<Ty> payload, Loc loc);

  void unify(const Ty& expected, const Ty& actual);
  void unify_dims(const DimRef& a, const DimRef& b);

  // Constrains t (which may be a variable) to be one of `prims`.
  void require_prims(const Ty& t, PrimMask prims, Loc loc);
  void require_equality(const Ty& t, Loc loc);

  int next_var_id() { return ++vars_; }

  // The level at which a local function's type parameter was bound
  // (Futhark's Param level): a type variable of a lower level, bound
  // outside that function, may not be unified with a type mentioning it.
  std::map<int, int> param_levels;

 private:
  void bind(const Ty& var, const Ty& t);
  void merge_vars(const Ty& a, const Ty& b);
  void apply_constraint(const Ty& var, const Ty& t);
  bool occurs(const TyNode* var, const Ty& t);
  void lower_levels(const Ty& t, int level);
  void scope_check(const Ty& var, const Ty& t);
  bool known_name(const DimRef& d) const;
  bool sizes_differ(const DimRef& a, const DimRef& b) const;
  // Binds the unsolved variables of a size expression's syntax to the
  // matching parts of `target` (same operators, operand by operand).
  void match_size_tree(const SizeTreePtr& pattern, const DimRef& target);
  static void lower_stamp(int& stamp, int to);
  static bool stamped_leaf(const SizeTreePtr& t);
  void check_size_scope(int stamp, const DimNode& name) const;
  // Whether size d names a binding introduced after scope `stamp` (so a
  // size variable of that scope cannot become d).
  bool names_deeper_binding(const DimRef& d, int stamp) const;
  void lower_stamps(const Ty& t, int stamp);
  int vars_ = 0;
};

std::string describe_prims(PrimMask m);
std::string show_size(const DimRef& d);  // "n", "3" (quoted in messages)  // "integral type", "one of i32, f32"

}  // namespace thorn::types
