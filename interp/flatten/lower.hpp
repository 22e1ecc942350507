#pragma once
// Lowering of lambda bodies (the checked AST) to kernel IR, by symbolic
// evaluation: the body is walked once, with the SOAC's element as symbolic
// input; scalars become registers, function calls are inlined (or, for
// named functions of scalars with large bodies, lowered once into kir
// subroutines: lower_subroutine.cpp), prelude
// functions become their intrinsics, loops with scalar state become kir
// loops, free variables come from the closure's run-time environment
// (scalars as constants, arrays as reads of their buffers). Anything
// outside this subset throws Fallback with the reason.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "interp/eval/evaluator.hpp"
#include "interp/flatten/captures.hpp"
#include "interp/flatten/kernel_ir_builder.hpp"
#include "interp/flatten/sym.hpp"

namespace thorn::flatten {

struct Columns;  // sum_columns.hpp

class Lowerer {
 public:
  explicit Lowerer(kir::Function& f);

  kir::Builder& b() { return b_; }
  kir::Function& function() { return f_; }
  // Buffers read by the function, in free-array order.
  const std::vector<BufferPtr>& reads() const { return reads_; }
  // An output buffer the function writes (kir::Write): a written free array.
  int output_array(const BufferPtr& buf, std::string name);
  // The free array that reads `buf` (added if it is not one yet).
  int read_array(const BufferPtr& buf) { return array_index(buf); }
  // What got fused into the function (for :plan).
  std::vector<std::string> fused;
  // Index registers of throw-away lowerings (used to learn an element's
  // shape); never defined, accepted wherever an index is inspected.
  std::vector<kir::Reg> probe_indices;
  // > 0: a costly map over a length computed per element with no bound
  // known when the nest starts (`map f (iota k)`, k per element) is
  // materialised in private storage of this many elements, guarded by a
  // Check with kir::kBoundExceeded, instead of recomputed at every use. Set
  // only for plans that run at once (their planner retries with a larger
  // bound), never for delayed producers, which run later.
  int64_t speculative_bound = 0;
  // The most private storage an element may need (kernel_ir.hpp): more is
  // a Fallback. kir::kMaxSegMapPrivateBytes only for an element computed
  // once, at once (a row-wise map), never for one fused where it is read.
  int64_t max_private_bytes = kir::kPrivateBytes;
  // The most private storage an element keeps by choice: a costly
  // producer's result stored once instead of recomputed where it is read
  // (fits_private). kPrivateBytes where the element may be fused or
  // segmented (every executor holds that much); max_private_bytes for an
  // element computed once per row, whose per-row intermediates (flash
  // attention's [d][m*d] scores) would otherwise be recomputed once per use.
  int64_t choice_private_bytes = kir::kPrivateBytes;

  // ---- values
  Sym lower(const Expr& e, const ScopePtr& sc, bool tail = false);
  Sym apply(const Sym& fn, std::vector<Sym> args, const Loc& loc, bool tail = false);
  Sym from_value(const Value& v);
  Sym array_of(const Value& v);  // an array value as a view, or its producer inlined
  Sym constant(const Scalar& s);
  Sym index(const Sym& arr, kir::Reg i, const Loc& loc, bool check = true);
  int64_t length(const Sym& arr) const;  // a fixed length (Fallback for a dynamic one)
  kir::Reg length_reg(const Sym& arr);     // the length, fixed or dynamic
  // Whether some length of the array is only known inside the element.
  static bool dynamic(const Sym& arr) {
    return arr.kind == Sym::Kind::Array && (arr.arr->len != kir::kNoReg || !arr.arr->inner_len.empty());
  }
  // The length of dimension k as a scalar: a register or a constant.
  Sym dim_size(const Sym& arr, size_t k);
  // The lengths of an array whose rows are `row` (made by probe_code, whose
  // registers start at `probe_start`), outermost first: kNoReg where fixed,
  // empty when all are. A length the probe computed from registers of
  // before it is computed again here (hoist); one that depends on the row
  // is irregular: Fallback with `what`.
  std::vector<kir::Reg> row_lengths(const Sym& row, const kir::Block& probe_code, int probe_start, const char* what);
  kir::Reg hoist(const kir::Block& probe_code, kir::Reg r, int probe_start);
  // `row` with the lengths `lens` (row_lengths' result): a generated row
  // computes its own lengths, equal to these but registers of its code.
  static Sym with_lengths(Sym row, const std::vector<kir::Reg>& lens);
  // Sets the length of a new array: fixed when every input's is, else a
  // register (after a run-time check that the inputs' lengths agree).
  void same_length(SymArr& out, const std::vector<Sym>& inputs, const char* what, const Loc& loc);

  // Scalars of a value, depth first (tuples, records); Fallback on anything else.
  std::vector<kir::Reg> leaves(const Sym& v) const;
  std::vector<Prim> leaf_types(const Sym& v) const;
  // A value shaped like `like` from registers (the inverse of leaves()).
  Sym rebuild(const Sym& like, const std::vector<kir::Reg>& regs, size_t& pos) const;
  // A value shaped like a run-time value (tuples/records of scalars) from registers.
  Sym rebuild_value(const Value& like, const std::vector<kir::Reg>& regs, size_t& pos) const;

  // Runs a (sequential) reduction over an array inside the function.
  Sym sequential_reduce(const Sym& op, const Sym& ne, const Sym& arr, const Loc& loc);

  // ---- private arrays (lower_local.cpp): arrays an element creates and
  // updates in place live in kir::LocalArray storage.
  // Lowers `fn` only to learn a value's shape: the code is returned (to be
  // inspected and dropped) and the private arrays it made are released.
  // `made_locals`: whether it made any.
  kir::Block probe_block(const kir::Builder::BlockFn& fn, bool* made_locals = nullptr);
  // Whether a private copy of `arr` fits the per-element storage limit.
  bool fits_private(const Sym& arr, const Loc& loc);
  // A fresh private copy of an array (any Sym array).
  Sym materialise(const Sym& arr, const Loc& loc);
  // Fresh private storage shaped like `arr` (not filled).
  Sym private_storage(const Sym& arr, const Loc& loc);
  // The whole of a private array at its current version (may be updated in place).
  bool is_private_whole(const Sym& arr) const;
  // The scalar element structure of an array (registers are probes: only types count).
  Sym element_like(const Sym& arr, const Loc& loc);
  // The code that reads one element of arr (at probe indices), dropped;
  // `element` gets the element.
  kir::Block probe_element(const Sym& arr, const Loc& loc, Sym& element);
  // `copy v`: v with its arrays that read private storage copied.
  Sym copy_value(const Sym& v, const Loc& loc);
  // dst (a whole private array) := src, element by element.
  void copy_into(const Sym& dst, const Sym& src, const Loc& loc);
  Sym sequential_scan(const Sym& op, const Sym& ne, const Sym& arr, const Loc& loc);
  Sym sequential_row_scan(const Sym& op, const Sym& ne, const Sym& arr, const Loc& loc);
  Sym sequential_hist(const Sym& dest, const Sym& op, const Sym& ne, const Sym& is, const Sym& vs, int index_dims,
                      const Loc& loc);
  Sym sequential_scatter(const Sym& dest, const Sym& is, const Sym& vs, int index_dims, const Loc& loc);
  // filter (one predicate, keep_rest false), partition and partition2
  // (lower_filter.cpp): arrays whose lengths are known only in the element.
  Sym sequential_partition(const std::vector<Sym>& preds, const Sym& arr, bool keep_rest, const Loc& loc);
  Sym counted(const Sym& storage, kir::Reg count);
  // Accumulators (lower_accumulators.cpp): scatter_stream (dest f bs) and
  // hist_stream (dest op ne f bs) run f over bs in order; acc_write writes
  // (or, in a histogram, combines) one element.
  Sym accumulator_stream(const std::vector<Sym>& args, bool hist, const Loc& loc);
  Sym acc_write(const Sym& acc, const Sym& i, const Sym& v, const Loc& loc);
  std::vector<Sym> acc_ops_;  // the operators of the histograms being streamed, outermost first
  kir::Reg private_position(const Sym& idx, const std::vector<int64_t>& dims, int d, kir::Reg& in_bounds,
                            std::vector<kir::Reg>& components, const Loc& loc);
  // Splits a value into its scalar registers and its arrays (in leaf
  // order; an array kept in parts as its parts), and back.
  void split_state(const Sym& v, std::vector<kir::Reg>& regs, std::vector<Sym>& arrays) const;
  Sym join_state(const Sym& like, const std::vector<kir::Reg>& regs, size_t& pr, const std::vector<Sym>& arrays,
                 size_t& pa);
  // ---- arrays whose elements hold arrays or sums, kept in parts
  // (SymArr::parts, lower_parts.cpp).
  // The element layout of arr when it is or must be kept in parts
  // (its elements hold arrays or sums); nullopt otherwise.
  std::optional<Sym> parts_layout(const Sym& arr, const Loc& loc);
  // The array zipping `parts`, elements laid out as `like`.
  Sym zip_parts(const Sym& like, std::vector<Sym> parts, std::vector<int64_t> dims, kir::Reg len = kir::kNoReg);
  // arr's parts for elements laid out as `like` (its own, or views).
  std::vector<Sym> unzip_parts(const Sym& arr, const Sym& like, const Loc& loc);
  // v with every array that must be kept in parts kept so (loop state,
  // if branches), so that it splits into plain arrays.
  Sym in_parts(const Sym& v, const Loc& loc);
  // v laid out as like (its sums rearranged into like's wider layout);
  // Fallback when like cannot hold it.
  Sym laid_out(const Sym& v, const Sym& like);
  // like, or the layout of like and v's sums together when like's cannot hold v.
  Sym widened(const Sym& like, const Sym& v) const;
  // A fresh private copy of arr, elements laid out as like.
  Sym materialise_as(const Sym& arr, const Sym& like, const Loc& loc);
  // Writes v as row `at` of the whole private array dest (an element, or
  // a row of a higher-rank array; part by part when kept in parts), in
  // place and without new versions: for loops that write as they go.
  void write_element(const Sym& dest, kir::Reg at, const Sym& v, const Loc& loc);
  // `arr with [idx] = v` on an array kept in parts: each part updated.
  Sym update_parts(const Sym& arr, const std::vector<kir::Reg>& idx, const Sym& v, const Loc& loc);
  // The state of a sequential loop (lower_loop, and reductions and scans
  // over arrays of arrays): scalars in registers, arrays in private storage.
  struct LoopState {
    Sym init;
    std::vector<kir::Reg> init_regs;
    std::vector<Sym> storage;
    std::vector<Prim> types;
  };
  LoopState loop_state(const Sym& init, const Loc& loc);
  // The state at the start of an iteration, from the carried registers.
  Sym state_value(const LoopState& st, const std::vector<kir::Reg>& regs);
  // An iteration's result stored as the next state; returns the registers to carry.
  std::vector<kir::Reg> next_state(const LoopState& st, const Sym& r, const Loc& loc);
  Sym final_state(const LoopState& st, const std::vector<kir::Reg>& out);
  // Private arrays whose storage was written since a view of them was made
  // are stale: reading one is a planner limitation, not a wrong answer.
  std::vector<int> local_version;
  int bump_version(int local);
  Sym with_current_versions(const Sym& arr);

  // Scalar operators with Futhark semantics (constant-folded when possible).
  Sym binop(std::string_view op, const Sym& a, const Sym& b, const Loc& loc);
  Sym unop(std::string_view name, const Sym& a, const Loc& loc);
  Sym convert(const Sym& a, Prim to);
  // Futhark's mul_hi: the upper half of a * b (both of one integer type).
  Sym mul_hi(const Sym& a, const Sym& b, const Loc& loc);
  // A select when both sides are cheap scalars, else an if.
  Sym select_or_if(const Sym& cond, const std::function<Sym()>& then, const std::function<Sym()>& otherwise);
  std::optional<Sym> lazy_if_of_arrays(const Sym& cond, const Sym& ts, const kir::Block& tb,
                                       const std::function<Sym()>& otherwise);
  Sym intrinsic(const std::string& name, std::vector<Sym> args, const Loc& loc, bool tail);
  // jvp2/vjp2 of a function known at plan time: its generated derivative
  // function, lowered in place (lower_ad.cpp).
  Sym lower_ad(const std::string& name, std::vector<Sym> args, const Loc& loc);

  ScopePtr root_scope(eval::EnvPtr env, int source = -1) const;

  // ---- recording for the plan cache (captures.hpp); without a log, nothing is recorded
  void set_capture_log(CaptureLog* log) { cap_ = log; }
  CaptureLog* capture_log() const { return cap_; }
  // The value of capture source `src`: its signature recorded, its scalars
  // lifted into parameters (when the log lifts), its array leaves bound.
  Sym from_source(const Value& v, int src);
  std::shared_ptr<Scope> child_scope(ScopePtr parent) const;

 private:
  Sym lookup(const QualName& name, const ScopePtr& sc, const Loc& loc);
  Sym localise(const Sym& s);  // a portable value re-made in this function

 public:
  // A value computed by another Lowerer brought into this one: constants
  // and functions only (Fallback otherwise).
  Sym import(const Sym& s);

 private:
  Sym lower_binop(const Expr& e, const ScopePtr& sc, bool tail = false);
  Sym lower_if(const Expr& e, const ScopePtr& sc);
  // Sum types and `match` (lower_match.cpp).
  Sym lower_constructor(const Expr& e, const ScopePtr& sc);
  Sym lower_match(const Expr& e, const ScopePtr& sc);
  Sym sum_value(const Value& v, const std::function<Sym(const Value&)>& payload);
  Sym zero_scalar(Prim p);
  // Two values of one type whose sums hold different constructors: the
  // layout both can take (every constructor either holds), and a value
  // rearranged into it (lower_match.cpp).
  std::optional<Sym> sum_union(const Sym& a, const Sym& b) const;

 public:
  // The zero of type t: its sums in the layout of every constructor.
  Sym zero_of(const Type& t, const Loc& loc);
  // s with its sums rearranged into like's layout (zeros for payloads s
  // cannot hold).
  Sym conform_sums(const Sym& s, const Sym& like);

 private:
  Sym zeros_like_sym(const Sym& like);
  Sym pattern_test(const Pattern& p, const Sym& v, const ScopePtr& sc);
  Sym lower_loop(const Expr& e, const ScopePtr& sc);
  Sym lower_range(const Expr& e, const ScopePtr& sc);  // lower_range.cpp
  Sym lower_index(const Expr& e, const ScopePtr& sc);
  Sym lower_update(const Expr& e, const ScopePtr& sc);
  Sym update_slices(const Expr& e, const ScopePtr& sc);
  // arr with [idx] = v (idx indexes arr's outer dimensions; v an element
  // or a block), in place when arr is a whole private array; `checked`:
  // the indices were checked against arr's bounds already.
  Sym update_at(Sym arr, const std::vector<kir::Reg>& idx, const Sym& v, const Loc& loc, bool checked = false);
  // Part k of elements laid out as `like` at `path`: an array of `dims`
  // over a's elements, `outer` of a's dimensions still to index.
  Sym leaf_part(const Sym& a, const std::vector<size_t>& path, const Sym& like, std::vector<int64_t> dims,
                size_t outer, const Loc& loc);
  void write_leaves(const SymArr& dest, kir::Reg at, const Sym& value, const char* mismatch);
  // Stores src's elements, row-major, into the private array dest from
  // dimension k on: the block at row-major position `base` of dest's
  // first k dimensions (kNoReg with k = 0: the whole array). One loop per
  // dimension, over dest's lengths (len_of).
  void store_elements(const SymArr& dest, kir::Reg base, const Sym& src, size_t k, const char* mismatch,
                      const Loc& loc);
  bool is_input_view(const Sym& arr) const;
  Sym pick(const std::vector<Sym>& xs, kir::Reg i, const Loc& loc);
  void check_update_bounds(const std::vector<int64_t>& dims, const std::vector<kir::Reg>& idx, const Loc& loc);
  struct LoweredIndex {
    bool is_slice = false;
    kir::Reg i = kir::kNoReg;
    std::optional<Sym> start, end, stride;
    std::optional<int64_t> span;  // end is start + span, span known
  };
  Sym index_all(const Sym& arr, const std::vector<LoweredIndex>& ix, size_t k, const Loc& loc);
  Sym slice(const Sym& arr, const LoweredIndex& ix, const Loc& loc);
  // A slice's bounds check, with Futhark's message.
  void check_slice(kir::Reg ok, const Sym& arr, const LoweredIndex& ix, const Loc& loc);
  Sym index_lengths(const Sym& sliced, const std::vector<LoweredIndex>& ix, size_t k, const Loc& loc);
  struct SliceRange {
    kir::Reg start, end, len;
  };
  SliceRange slice_range(kir::Reg n, const LoweredIndex& ix, int64_t s);
  Sym eq(const Sym& a, const Sym& b, bool negate, const Loc& loc);
  Sym logical(bool is_and, const Expr& lhs, const Expr& rhs, const ScopePtr& sc);
  void bind(const Pattern& p, const Sym& v, std::vector<std::pair<std::string, Sym>>& out,
            const std::vector<TypeParam>* sizes);
  void bind_sizes(const TypeExpr& t, const Sym& v, std::vector<std::pair<std::string, Sym>>& out);
  // Sizes named by `sizes` (a function's size parameters) bound from a
  // checked type, abbreviations expanded.
  void bind_type_sizes(const Type& t, const Sym& v, const std::vector<TypeParam>& sizes,
                       std::vector<std::pair<std::string, Sym>>& out);
  // What the checker knew of a call's result sizes (lower_sizes.cpp):
  // outer dims first, nullopt where not a constant.
  struct CallHint {
    std::vector<std::optional<int64_t>> dims;
    // The callee's size parameters as the checker instantiated them at the
    // call (Expr::size_args), where known when the nest starts.
    std::vector<std::pair<std::string, int64_t>> sizes;
  };
  CallHint call_hint(const Expr& call, const ScopePtr& sc);
  std::optional<int64_t> dim_value(const Dim& d, const ScopePtr& sc, const Loc& loc);
  // `v :> [k]t`: lengths v computes per element that the type fixes (k
  // known when the nest starts) become fixed, checked at run time.
  Sym coerce(const Sym& v, const Expr& e, const ScopePtr& sc);
  void solve_sizes(const std::vector<TypeParam>& tps, const std::vector<PatternPtr>& params, const std::vector<Sym>& args,
                   const TypeExpr* ret, const CallHint& hint, std::vector<std::pair<std::string, Sym>>& vars);
  // Size parameters solve_sizes could not find (`unflatten_3d (iota (n * 6))`
  // with n the element's): what an "unbound name" of that name means.
  std::set<std::string> unsolved_sizes_;
  Sym call_body(const std::vector<PatternPtr>& params, const Expr& body, ScopePtr scope,
                const std::vector<TypeParam>* sizes, std::vector<Sym>& args, const std::string& name,
                const Loc& loc, bool tail, const TypeExpr* ret = nullptr, const CallHint* hint = nullptr);
  Sym project(const Sym& v, const std::string& field, const Loc& loc) const;
  // A call of a named function as a kir subroutine (lower_subroutine.cpp);
  // nullopt: inline it.
  std::optional<Sym> subroutine_call(const CallablePtr& fn, const std::vector<Sym>& args, const Loc& loc, bool tail,
                                     const CallHint* hint);
  Sym parameterise(const Sym& s, std::vector<kir::Reg>& params, std::vector<Sym>& storage, const Loc& loc);
  Sym call_result(const Sym& like, const std::vector<kir::Reg>& regs, size_t& pos, const Loc& loc);
  Sym sub_result(const Sym& r, std::vector<kir::Reg>& regs, size_t first_local, const Loc& loc);
  Sym if_with_arrays(kir::Reg cond, const std::function<Sym()>& then, const std::function<Sym()>& otherwise);
  std::vector<Prim> types_of(const std::vector<kir::Reg>& regs) const;
  int array_index(const BufferPtr& buf);
  Sym view_of(const ArrayValue& a);
  // A boxed array of sums (sum_columns.hpp): read as columns.
  Sym sum_array_view(const ArrayValue& a);
  Sym column_element(const Columns& c, kir::Reg flat);
  Sym producer_array(const ArrayValue& a);
  Sym lift_value(const Value& v, int src, int& scalar_leaf, int depth);
  Sym param(const Scalar& s, int src, int leaf);
  int source_of(const Callable& c) const;
  Sym held_arg(const Callable& c, size_t k);  // c.args[k], through its source when recorded
  Sym held_fn(const Callable& c);             // c.fn likewise

  kir::Function& f_;
  kir::Builder b_;
  std::vector<BufferPtr> reads_;
  std::map<const Buffer*, int> array_ids_;
  std::vector<const void*> active_;        // functions being inlined (recursion check)
  std::vector<std::string> active_names_;  // and their names (a recursive call's name is unbound in their scope)
  // The result sizes of the application being lowered, for the function it
  // calls directly (apply() takes it, so nested calls never see it).
  std::optional<CallHint> call_hint_;
  CaptureLog* cap_ = nullptr;
  int cur_src_ = -1;    // the source whose value is being lowered (array leaves bind to it)
  int array_leaf_ = 0;  // next array leaf of cur_src_
  std::map<int, Sym> src_syms_;  // lifted sources, lowered once (parameters live in the entry block)
  // Subroutines by specialisation key (lower_subroutine.cpp); index -1: inlined.
  struct SubEntry {
    int index = -1;
    Sym result;  // the value's shape, the leaves known in every call, arrays' result storage
    std::vector<Sym> storage;  // array parameters' storage, in argument leaf order
    CallablePtr fn;            // keeps the key's addresses from being reused
  };
  std::map<std::string, SubEntry> subs_;
  int probing_ = 0;  // inside probe_block: code that is dropped, and private arrays released
};

// Whether s is or holds an array (in any component, sum payloads too).
bool has_array(const Sym& s);

// Whether a and b have one structure, and their sums one layout.
bool same_layout(const Sym& a, const Sym& b);

}  // namespace thorn::flatten
