#pragma once
// Internals of the array-level AD (ad_sweep.hpp): the abstract interpreter
// (ad_sweep.cpp) and its rules (ad_sweep_rules.cpp).
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/eval/ad_lambda.hpp"
#include "interp/eval/callable.hpp"
#include "interp/eval/env.hpp"
#include "interp/eval/evaluator.hpp"

namespace thorn::eval::ad {

// A value of the differentiated program: its primal value and, if it depends
// on the input, its tangent (forward mode) or tape node (reverse mode). A
// tuple whose components differ in that respect keeps them in `parts`.
struct AV {
  Value v;
  int id = -1;               // reverse: the node holding this value's adjoint
  std::optional<Value> dot;  // forward: the tangent
  std::vector<AV> parts;     // a tuple of values (is_tuple)
  bool is_tuple = false;
  // A function whose closure uses values that carry derivatives (a lambda
  // over an active variable): active, though it has no derivative itself.
  bool captures = false;
  // An operator section `(op c)`/`(c op)` whose operand c carries a
  // derivative: c's value (map_rule maps the operator over the array and a
  // replicate of c instead).
  std::shared_ptr<AV> section_operand;
  // A partial application `g a1 .. ak` of a named function: the arguments
  // (the map rule differentiates g with respect to those that are active).
  std::shared_ptr<std::vector<AV>> partial_args;
  bool active() const;
};

// Names bound in one function body; `parent` is the scope of the caller (for
// free variables of mapped functions, found by their binding's identity).
struct Scope {
  EnvPtr env;
  TypeEnvPtr tenv;
  std::map<std::string, AV> active;
  const Scope* parent = nullptr;
};

class Sweep {
 public:
  Sweep(Evaluator& ev, bool reverse, Loc loc) : ev(ev), reverse(reverse), loc(loc) {}

  Evaluator& ev;
  const bool reverse;
  Loc loc;

  // Reverse mode's tape: one node per array-level operation; `back` adds
  // the operation's operands' adjoints given its own.
  struct Node {
    std::function<void(const Value& adjoint)> back;
  };
  std::vector<Node> nodes;
  std::vector<std::optional<Value>> adj;
  int inline_depth = 0;

  int new_node(std::function<void(const Value&)> back);
  void accumulate(int id, const Value& contribution);
  // Nodes below keep_below (inputs) keep their adjoint; with `last` false
  // the nodes' actions are kept for another return sweep (mjp2's seeds).
  void run_backward(int keep_below, bool last = true);

  // ad_sweep.cpp: the walk.
  AV eval(const ExprPtr& e, Scope& s);
  AV call(const Value& fn, std::vector<AV> args, Scope& s, const Loc& at);
  void bind(const Pattern& p, const AV& v, Scope& s, std::vector<std::pair<std::string, Binding>>& frame);

  // ad_sweep_rules.cpp
  AV intrinsic_rule(const std::string& name, const Value& fn, std::vector<AV>& args, Scope& s, const Loc& at);
  AV scalar_rule(const std::string& op, const Value& y, std::vector<AV>& args);
  AV index_rule(const AV& xs, int64_t i, const Value& y);
  AV map_rule(const Value& fn, std::vector<AV>& args, Scope& s, const Loc& at);
  // ad_sweep_nest.cpp: map of an element function over arrays (ad_rev.hpp).
  AV nested_map_rule(const Value& fn, std::vector<AV>& args, Scope& s, const Loc& at);
  AV reduce_rule(const Value& fn, std::vector<AV>& args, const Loc& at);
  AV scan_rule(const Value& fn, std::vector<AV>& args, const Loc& at);
  AV scan_generic_rule(const Value& fn, std::vector<AV>& args, Prim p, const Loc& at);
  AV scan_tuple_rule(const Value& fn, std::vector<AV>& args, const Loc& at);    // ad_sweep_scan.cpp
  AV reduce_tuple_rule(const Value& fn, std::vector<AV>& args, const Loc& at);  // ad_sweep_scan.cpp
  size_t tuple_operator(const std::vector<AV>& args, const char* what);
  AV hist_rule(const Value& fn, std::vector<AV>& args, const Loc& at);
  AV scatter_rule(const Value& fn, std::vector<AV>& args, const Loc& at);
  AV hist_generic_rule(std::vector<AV>& args, Prim p);
  // ad_sweep_vec.cpp: reduce_by_index with `map2 op` over rows, as one
  // histogram of the flattened rows; views of [n][m] arrays as [n*m].
  AV hist_vectorised_rule(const Value& fn, std::vector<AV>& args, const Value& op, int depth, const Loc& at);
  AV reduce_vectorised_rule(std::vector<AV>& args, const Value& op, int depth, const Loc& at);
  AV flat_view(const AV& a, Prim p);
  Value flat_all(const Value& v, Prim p);
  Value unflat_all(const Value& v, const std::vector<int64_t>& shape, Prim p);
  AV hist_mul_rule(const AV& dest, const Value& is, const AV& vs, Prim p);
  AV hist_arg_rule(bool is_max, const AV& dest, const Value& is, const AV& vs, Prim p);
  AV loop(const ExprPtr& e, Scope& s);

  // Helpers (ad_sweep_rules.cpp).
  Value prelude(const std::string& name);                  // a prelude function
  Value rule(Prim t, const std::string& name);             // ad_rules_f64.name / ad_rules_f32.name
  Value apply(const Value& fn, std::vector<Value> args) { return ev.apply(fn, std::move(args), loc); }
  Value add_values(const Value& a, const Value& b);
  Value zeros_like(const Value& v);
  AV dual(Value v, std::optional<Value> dot) {
    AV r;
    r.v = std::move(v);
    r.dot = std::move(dot);
    return r;
  }
  AV constant(Value v) {
    AV r;
    r.v = std::move(v);
    return r;
  }
};

// The float type of a scalar or of a 1-D array of floats; throws Unsupported otherwise.
Prim float_elem(const Value& v, const char* what);
// An array of tuples of scalars as its component arrays (any other value: itself).
std::vector<Value> split_components(const Value& v);
// The map intrinsic over `arrays` arrays (the prelude's map2..map5 stop at 5).
Value map_of(size_t arrays);
// The array of tuples with these component arrays (one: that array).
Value tuple_array(const std::vector<Value>& comps);
// The scalar operator g of a vectorised operator `map2 g`, `map2 (map2 g)`
// ..., and the number of map2s; nullopt for any other function.
std::optional<std::pair<Value, int>> vectorised_operator(const Value& op);
// f of `map2 f`, or nullopt.
std::optional<Value> map2_operand(const Value& op);
// The name of a reduction operator: "+", "*", "max", "min", or "".
std::string operator_name(const Value& op);

}  // namespace thorn::eval::ad
