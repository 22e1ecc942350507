#pragma once
// Unification of the checker's types, with Futhark's constraints on type
// variables (overloaded primitives, equality types, record fields, sum
// constructors) and level-based bookkeeping for let-generalisation.
//
// Sizes never make unification fail: a size mismatch that can happen at all
// is checked by the evaluator at run time, so dims only carry information.
#include <string>

#include "interp/types/ty.hpp"

namespace thorn::types {

// Thrown by unify; the caller turns it into a located type error with context.
struct UnifyFailure {
  std::string detail;  // the innermost mismatch, e.g. "i32 is not a floating-point type"
};

class Unifier {
 public:
  int level = 0;  // the current let-nesting level for new variables

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

 private:
  void bind(const Ty& var, const Ty& t);
  void merge_vars(const Ty& a, const Ty& b);
  void apply_constraint(const Ty& var, const Ty& t);
  bool occurs(const TyNode* var, const Ty& t);
  void lower_levels(const Ty& t, int level);
  int vars_ = 0;
};

std::string describe_prims(PrimMask m);  // "integral type", "one of i32, f32"

}  // namespace thorn::types
