#pragma once
// Semantic types, as inferred by the checker and stored on the AST. Types on
// the AST are "zonked": no unification variables remain, except the
// quantified variables of an enclosing polymorphic definition (Kind::Param),
// which the evaluator resolves through its run-time type environment.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/core/prim.hpp"

namespace thorn {

struct Type;
using TypePtr = std::shared_ptr<const Type>;

// A size expression that has no normal form as a polynomial, as syntax:
// `[(n - 1) / b + 1]`, `[2 ** k]`, `[i64.i32 n * i64.i32 m]`. Names and
// functions are looked up where it is computed (eval::Evaluator::size_value).
struct SizeSyntax {
  enum class Op { Const, Name, BinOp, Neg, Apply };
  Op op = Op::Const;
  int64_t value = 0;  // Const
  std::optional<Prim> type;  // Const: as written (`1u32`); otherwise the other operand's, or i64
  std::string name;   // Name: the value's (qualified) name; BinOp: the operator; Apply: the function
  std::vector<std::shared_ptr<const SizeSyntax>> args;  // BinOp: two; Neg: one; Apply: the arguments
};

// A size expression over local names, `[n * m]` or `[k * n + 1]`, as the
// checker inferred it: the sum of coef * product(names) over `terms`, or,
// when it is no polynomial, its syntax (`syntax`, and `terms` empty).
struct DimFormula {
  std::vector<std::pair<std::vector<std::string>, int64_t>> terms;
  std::string text;  // Futhark's notation, for messages
  std::shared_ptr<const SizeSyntax> syntax;

  // Its value with each name's from `name_value` (wrapping, as i64
  // arithmetic does); nullopt when a name has none or it is syntax.
  template <class NameValue>
  std::optional<int64_t> value(const NameValue& name_value) const {
    if (syntax) return std::nullopt;
    uint64_t sum = 0;
    for (const auto& [names, coef] : terms) {
      uint64_t term = static_cast<uint64_t>(coef);
      for (const auto& n : names) {
        std::optional<int64_t> v = name_value(n);
        if (!v) return std::nullopt;
        term *= static_cast<uint64_t>(*v);
      }
      sum += term;
    }
    return static_cast<int64_t>(sum);
  }
};

// One array dimension: a known constant, a size variable in scope (a size
// parameter or an existential), or unknown (checked at run time). An
// unknown dimension may carry the size expression the checker found for it
// (structural unification of `[n * m]`), which the evaluator computes where
// its names are in scope (eval::resolve_type) to learn the sizes of a call
// that no argument gives.
struct Dim {
  enum class Kind { Constant, Name, Unknown };
  Kind kind = Kind::Unknown;
  int64_t value = 0;
  std::string name;
  std::shared_ptr<const DimFormula> formula;  // Unknown only; may be null
  bool operator==(const Dim& o) const { return kind == o.kind && value == o.value && name == o.name; }
};

struct Type {
  enum class Kind { Prim, Array, Tuple, Record, Sum, Function, Param };
  Kind kind = Kind::Prim;
  Prim prim = Prim::I32;  // Prim
  bool unique = false;    // *t (parameters and results)

  TypePtr elem;           // Array: the element type, never itself an Array
  std::vector<Dim> dims;  // Array: outermost first, at least one

  std::vector<TypePtr> elems;                              // Tuple (two or more)
  std::vector<std::pair<std::string, TypePtr>> fields;     // Record, sorted by name
  std::vector<std::pair<std::string, std::vector<TypePtr>>> constructors;  // Sum, sorted by name

  TypePtr param, result;  // Function
  std::string param_name; // Function: named parameter `(n: i64) -> [n]i32`, or empty

  int var_id = -1;        // Param: quantified variable id (unique per checker run)
  std::string var_name;   // Param: its name as written ('t) or invented ('a)
};

// Constructors; they share structure freely (types are immutable).
TypePtr prim_type(Prim p);
TypePtr array_type(TypePtr elem, std::vector<Dim> dims);   // flattens nested arrays
TypePtr tuple_type(std::vector<TypePtr> elems);            // one element: that type; zero: unit record
TypePtr record_type(std::vector<std::pair<std::string, TypePtr>> fields);  // sorts by name
TypePtr sum_type(std::vector<std::pair<std::string, std::vector<TypePtr>>> constructors);
TypePtr function_type(TypePtr param, TypePtr result, std::string param_name = "");
TypePtr param_type(int var_id, std::string name);
TypePtr unit_type();  // () : the empty tuple

// The type of xs[i] for an array type (rank drops by one); elem when rank 1.
TypePtr row_type(const TypePtr& array);
int array_rank(const Type& t);  // 0 for non-arrays

// Futhark's notation: i32, [n][m]f32, [](i32, bool), {a: i32, b: f64},
// #none | #some i32, i32 -> i32, *[]u8. Record fields print sorted.
std::string to_string(const Type& t);
std::string to_string(const TypePtr& t);

// `[n]` for a size name. A size parameter the checker inferred (`d#3`,
// check_function) was not written by the user: `[]`, and inside a size
// expression its name without the number.
std::string show_size_name(const std::string& name);

bool same_type(const Type& a, const Type& b, bool compare_dims = false);

// Whether `pred` holds of t or of a part of it: an array's element, a
// tuple's or record's component (not inside functions or sums). False for
// a null type.
bool any_part(const TypePtr& t, const std::function<bool(const Type&)>& pred);

// Futhark's record field order: numeric names first, numerically (so tuple
// fields run 0, 1, ..., 10), then the others alphabetically.
bool field_less(const std::string& a, const std::string& b);

}  // namespace thorn
