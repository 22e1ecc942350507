#pragma once
// Symbolic values: what the flattener's lowering (lower.hpp) computes for
// each expression of a lambda body. A value is either known at plan time
// (a function, a constant) or lives in kernel IR registers (scalars), and
// arrays are described structurally: a view on real buffers, or a
// generator (an element function) when they were never materialised
// (`map`, `iota`, `replicate`, a delayed array).
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/eval/env.hpp"
#include "interp/exec/dispatch.hpp"
#include "interp/flatten/kernel_ir.hpp"
#include "interp/syntax/ast.hpp"

namespace thorn::flatten {

// Thrown when a nest cannot be lowered; the message says why, and the nest
// runs on the reference backend instead.
struct Fallback : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The Fallback of a map whose rows' lengths are computed per element.
inline constexpr const char* kIrregularRows = "map producing arrays whose length depends on the element (irregular)";

// A SOAC's neutral element or operator that cannot be shared by all
// segments of one step (it differs per element, or reads arrays): a
// mapped function can still run that SOAC itself, sequentially.
struct PerElementOperands : Fallback {
  using Fallback::Fallback;
};

// A vectorised operator or neutral element that is not column by column
// (an operator reading other columns, a neutral element that differs
// between them): a reduction may still fold whole rows (reduce_rows_chunked).
struct NotColumnwise : Fallback {
  using Fallback::Fallback;
};

struct Sym;
struct SymArr;
struct SymFn;
struct SymSoac;
struct Scope;
using ScopePtr = std::shared_ptr<const Scope>;

struct Sym {
  // Sum: a value of a sum type (lower_match.cpp). names are the
  // constructors it may hold (every constructor of its type, or only the
  // one of a captured value); elems[0] is the constructor's index into
  // names (an i32 scalar, known when fixed at plan time) and elems[1 + k]
  // a tuple of constructor k's payload, present whatever the index, so
  // that branches merge register by register like a record's.
  enum class Kind { Scalar, Tuple, Record, Array, Function, Soac, Sum };
  Kind kind = Kind::Scalar;
  // Scalar
  kir::Reg reg = kir::kNoReg;
  Prim prim = Prim::I32;
  std::optional<Scalar> known;  // the value, when it is a plan-time constant
  // Tuple / Record (fields in Value's order)
  std::vector<Sym> elems;
  std::shared_ptr<const std::vector<std::string>> names;
  std::shared_ptr<const SymArr> arr;
  std::shared_ptr<const SymFn> fn;
  std::shared_ptr<const SymSoac> soac;

  static Sym scalar(kir::Reg r, Prim p, std::optional<Scalar> k = std::nullopt) {
    Sym s;
    s.reg = r;
    s.prim = p;
    s.known = k;
    return s;
  }
  static Sym tuple(std::vector<Sym> xs);  // one element: that element
  static Sym record(std::vector<std::pair<std::string, Sym>> fields);  // sorted as Value's fields
  bool is_scalar() const { return kind == Kind::Scalar; }
  // Sum: the index of constructor `name` in names (elems[1 + index] is its
  // payload), or -1 when this sum cannot hold it.
  int constructor_index(const std::string& name) const {
    for (size_t k = 0; names && k < names->size(); ++k)
      if ((*names)[k] == name) return int(k);
    return -1;
  }
};

// An array value. Every array the lowering sees has a shape known at plan
// time (regular nested parallelism); `dims` is it, outermost first.
struct SymArr {
  std::vector<int64_t> dims;
  // The outer length when it is only known inside the element (a slice
  // `xs[:i]`, `take (j+1) xs`, `iota k` with k computed per element): an
  // i64 register. dims[0] is then an upper bound (-1: none known). Such
  // arrays can be indexed, mapped, zipped, reduced, scanned and copied to
  // private storage (with a bound); anything that needs a fixed length
  // falls back (Lowerer::length).
  kir::Reg len = kir::kNoReg;
  // The same for the inner dimensions (`a[i:, j:]` in a loop over i and
  // j): inner_len[k] is the length of dims[k + 1] (a bound then), kNoReg
  // where fixed; empty when all are. Every row has these lengths (a
  // regular nest), so they are registers of the scope the array lives
  // in, never of one row's code.
  std::vector<kir::Reg> inner_len;
  // Sets inner_len from one length per inner dimension (kNoReg where
  // fixed), left empty when all are fixed.
  void set_inner_len(std::vector<kir::Reg> lens) {
    while (!lens.empty() && lens.back() == kir::kNoReg) lens.pop_back();
    inner_len = std::move(lens);
  }
  // The length of dimension k: a register, or kNoReg where dims[k] is it.
  kir::Reg len_of(size_t k) const {
    if (k == 0) return len;
    return k - 1 < inner_len.size() ? inner_len[k - 1] : kir::kNoReg;
  }
  // A view on buffers: leaf k is free array `leaves[k].array` of the
  // function being built, the element at multi-index idx is at
  // base + rel + row-major(idx). `elem` rebuilds a tuple/record element.
  struct Leaf {
    int array = -1;        // free array, or private array when `local`
    int64_t base = 0;
    Prim prim = Prim::I32;
    bool local = false;    // a kir::LocalArray of the function being built
    int version = 0;       // local: the array's version this view reads (Lowerer::local_version)
  };
  std::vector<Leaf> leaves;
  ElemShape elem;
  kir::Reg rel = kir::kNoReg;  // i64 offset added to every leaf's base; kNoReg: 0
  // A generator: the element at an outer index (an array Sym when dims has
  // more than one entry). Set instead of leaves.
  std::function<Sym(kir::Reg index)> gen;
  std::string fused;  // what the generator stands for ("map", "iota", ...), for :plan
  // An array whose elements hold arrays or sums (`[n](i64, [b]u8)`), kept
  // as Futhark's core language keeps it: one array per leaf of the element
  // (a scalar or an array), depth first, each with this array's dims in
  // front; `like` is an element (only its structure counts) and gen
  // rebuilds elements from the parts'. Private storage, in-place updates
  // and loop state work part by part (lower_parts.cpp).
  std::vector<Sym> parts;
  std::shared_ptr<const Sym> like;
};

// An array Sym over `a`.
inline Sym array_sym(std::shared_ptr<const SymArr> a) {
  Sym s;
  s.kind = Sym::Kind::Array;
  s.arr = std::move(a);
  return s;
}

// A function known at plan time: a run-time function value, or a lambda /
// local function of the body being lowered (with its symbolic scope), or
// an operator, possibly partially applied.
struct SymFn {
  enum class Kind { Value, Ast, Operator, RightSection, Projection, Intrinsic };
  Kind kind = Kind::Value;
  CallablePtr value;                                   // Value
  const std::vector<PatternPtr>* params = nullptr;     // Ast
  const Expr* body = nullptr;                          // Ast
  const std::vector<TypeParam>* type_params = nullptr; // Ast
  ScopePtr scope;                                      // Ast
  std::string name;                                    // Ast (for recursion), Operator, Intrinsic
  std::vector<std::string> path;                       // Projection
  int arity = 0;                                       // Intrinsic
  std::vector<Sym> args;                               // applied so far (RightSection: the right operand)
  // Size parameters no argument gives, as the checker instantiated them
  // where the function was named (Expr::size_args), known at plan time.
  std::vector<std::pair<std::string, int64_t>> size_hints;
};

// A SOAC in the tail position of a mapped function's body, kept symbolic
// so that the enclosing map can become a segmented step.
struct SymSoac {
  exec::SoacKind kind = exec::SoacKind::Reduce;
  Sym op, ne, arr;  // ReduceByIndex, Scatter: arr is the destination
  Sym is, vs;       // ReduceByIndex, Scatter: the indices and the values
  Loc loc;
};

// Lexical scope of the lowering: symbolic frames over a run-time
// environment (the closure's), which supplies everything not bound here.
struct Scope {
  ScopePtr parent;
  std::vector<std::pair<std::string, Sym>> vars;
  eval::EnvPtr env;            // used at the root (parent == null)
  // `M.(e)`: M's namespace, opened in front of every name bound outside
  // this frame (as the evaluator's extend_scope does); vars is empty.
  eval::NamespacePtr opened;
  const void* owner = nullptr;  // the Lowerer whose registers `vars` refer to
  // Root scopes: the capture source (captures.hpp) of the closure whose
  // environment `env` is; -1 a module-level function, -3 a closure the
  // plan cache cannot find again.
  int source = -1;
};

}  // namespace thorn::flatten
