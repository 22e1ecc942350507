#pragma once
// Internal to the planner (planner.cpp and planner_*.cpp): the Planner, which
// turns one SOAC call into a plan, and the helpers its parts share. One file
// per kind of nest: planner.cpp (entry, maps and their cache keys),
// planner_map.cpp (flat, nested and row-wise maps; map-of-reduce/scan),
// planner_reduce.cpp (reduce, scan, vectorised operators, their cache),
// planner_hist.cpp (reduce_by_index, scatter, multi-dimensional indices),
// planner_arrays.cpp (iota, replicate, transpose as delayed producers).
#include "interp/flatten/planner.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>

#include <fmt/format.h>

#include "interp/eval/callable.hpp"
#include "interp/eval/value_ops.hpp"
#include "interp/flatten/captures.hpp"
#include "interp/flatten/delayed.hpp"
#include "interp/flatten/elem_tree.hpp"
#include "interp/flatten/lower.hpp"
#include "interp/flatten/planner_cache.hpp"
#include "interp/flatten/sum_columns.hpp"

namespace thorn::flatten::planning {

using exec::SoacKind;
using kir::Reg;
// ------------------------------------------------------------------ plan assembly

struct Builder {
  plan::Plan plan;
  std::vector<BufferPtr> bufs;

  int add(const BufferPtr& b, std::string name) {
    for (size_t i = 0; i < bufs.size(); ++i)
      if (bufs[i] == b) return int(i);
    plan.buffers.push_back({b->elem(), b->count(), std::move(name), true});
    bufs.push_back(b);
    return int(bufs.size() - 1);
  }
  std::vector<int> reads(const Lowerer& lw) {
    std::vector<int> ids;
    for (size_t k = 0; k < lw.reads().size(); ++k) ids.push_back(add(lw.reads()[k], fmt::format("in{}", k)));
    return ids;
  }
  BufferPtr output(Prim t, int64_t count, const std::string& name, std::vector<int>& writes) {
    auto b = std::make_shared<Buffer>(t, count, Buffer::NoInit{});
    writes.push_back(add(b, name));
    return b;
  }
};


// ------------------------------------------------------------------ structure helpers
// A register-free Sym with the structure of a value (tuples/records of scalars).
Sym shape_of_value(const Value& v);

void leaf_prims(const Sym& s, std::vector<Prim>& out);

ElemShape elem_shape_of(const Sym& like);

// A tuple of scalars of these types (one: that scalar): the leaves of an element, as a structure.
Sym leaves_like(const std::vector<Prim>& prims);
Value array_from_leaves(const Sym& like, const std::vector<BufferPtr>& bufs, const std::vector<int64_t>& shape);
// The same from `columns`, an array whose leaves (tuples of scalars, in
// Lowerer::leaves' order) are like's: sums among them boxed.
Value array_from_columns(const Sym& like, const ArrayValue& columns, const std::vector<int64_t>& shape);

Value value_from_scalars(const Sym& like, const std::vector<Scalar>& xs, size_t& pos);

std::vector<Scalar> value_scalars(const Value& v);

std::string join(const std::vector<std::string>& xs);

// The operator as a kir function of 2k parameters (accumulators, then values).
// With `element`, the operator may read arrays (`\i j -> if xs[i] < xs[j]
// then i else j`): they become free arrays of the element's function, and
// the operator's free arrays are the element's, as the host executor binds
// them (the GPU runs no such step); without, reading one falls back.
kir::Function lower_operator(const std::function<Sym(Lowerer&)>& get_op, const Sym& like,
                             const Loc& loc, Lowerer* element = nullptr);

// Indexes `v` at the row-major position `flat % inner` over `dims` (whose
// product is `inner`), one index per dimension, outermost first.
Sym index_row_major(Lowerer& lw, Sym v, Reg flat, int64_t inner, const std::vector<int64_t>& dims, const Loc& loc);

Sym shape_like(const Sym& s);
// A row as map_rows writes it (planner_map.cpp): arrays of tuples with
// array components as tuples of arrays; `skeleton` gets what row_value
// needs to rebuild the rows' value.
Sym row_layout(Lowerer& lw, const Sym& r, Sym& skeleton, const Loc& loc);
// Whether v is a value of `kind` or holds one in a tuple or record.
bool value_holds(const Value& v, Value::Kind kind);

// element: f is an element function (its parameters are indices, >= 0).
void finish_function(kir::Function& f, const char* what, bool element = true);

// A step over `segments` regular segments of `size` elements each, at the
// SOAC call `loc`; its element function is written by the caller.
plan::Step new_step(plan::StepKind kind, const Loc& loc, int64_t segments, int64_t size);

struct Planner {
  exec::SoacCall& call;
  const PlanExecutor& execute;
  HostRun out;
  // Listings cost a formatted plan per call: made only when someone reads them.
  bool want_listing = true;
  // The bound given to private arrays whose length has none
  // (Lowerer::speculative_bound) in plans that run at once; run_on_host
  // plans again with a larger one when a run outgrows it, skipping the
  // cache (whose entry, with the bound too small, is then replaced).
  int64_t speculative_bound = 0;
  bool skip_cache = false;
  // Delayed inputs and captured arrays up to this many elements are
  // materialised so that the plan can be cached (0: they are fused). Set at
  // a call site's second call (Planner::map, PlanCache::hot_site).
  int64_t copy_delayed_up_to = 0;
  // About what copying costs against lowering a function again (~1 ms).
  static constexpr int64_t kCopyDelayedUpTo = int64_t(1) << 18;
  // Whether f stores arrays under a guessed bound; the plan note saying so.
  static bool speculates(const kir::Function& f);
  std::string speculation_text() const;
  void speculation_note(const kir::Function& f, plan::Plan& p) const;
  // A map's producer as a delayed array, or run at once when it speculates.
  Value delayed_or_now(const ProducerPtr& p);

  Sym input(Lowerer& lw, size_t k) { return lw.array_of(call.args.at(k)); }

  Value run(Builder& pb);

  // ---- map
  Value map();

  // The key of a map: call site, the function's code identity and the
  // inputs' structure without their outer size (captures.hpp). Captured
  // values are not in it: a hit finds and checks them again (map_hit).
  bool map_key(std::string& k);

  void call_site_key(std::string& k) const;

  // Whether an input is (or holds) a delayed array; materialises them all.
  bool delayed_inputs() const;
  void materialise_inputs();
  // The set of call sites whose rows are built from materialised inputs:
  // add one, or ask whether `site` is in it.
  static bool rows_site(const std::string& site, bool add);

  // A cached map: its producer with this call's buffers and parameters.
  std::optional<Value> map_hit(const CachedPlan& c, int64_t n);
  // The plan cache's entry for `key` run on this call (a hit), or nullopt
  // (a miss, or skip_cache); a hit whose captures no longer fit is stale.
  std::optional<Value> cached_map(const std::string& key, int64_t n);

  // map whose element is a scalar (dims empty) or an array of constant dims:
  // a delayed array over the flattened domain. With a key, the producer is
  // cached with its captured scalars lifted into parameters; if the
  // lowering needed one of them as a constant (a size, a range bound), it
  // is lowered again the old way, with constants, and not cached.
  Value map_flat(int64_t n, const std::vector<int64_t>& dims, const std::string* key = nullptr);

  Value map_flat_once(int64_t n, const std::vector<int64_t>& dims, CaptureLog* log, const std::string* key);

  // Caches a map's lowering under `key` when every free array of f can be
  // found again from a later call (`fill` adds the producer or the rows);
  // returns the listing's remark on it.
  // A producer whose elements hold sums: a delayed array cannot hold
  // them, so its columns (tags and payloads) are computed now and boxed
  // as the evaluator holds arrays of sums.
  Value boxed_now(const std::shared_ptr<Producer>& p, const Sym& like);

  std::string cache_map(const std::string& key, const CaptureLog& log, const kir::Function& f,
                        const std::function<void(CachedPlan&)>& fill);

  static bool has_array(const Sym& s);

  void row_parts(Lowerer& lw, const Sym& r, std::vector<RowPart>& parts);
  // Makes r's parts (row_layout's form) outputs of lw's function, with n
  // rows, and writes them as row s: scalars at s, arrays row-major.
  std::vector<RowPart> write_row(Lowerer& lw, const Sym& r, Reg s, int64_t n);

  // The result value: parts as arrays with n rows, tuples of them zipped
  // into arrays of tuples (components with more dimensions than [n]).
  Value row_value(const Sym& r, std::vector<RowPart>& parts, size_t& k, int64_t n);

  // map whose function builds its result in private arrays (a scan inside
  // it, in-place updates, a loop over an array) or returns a tuple with
  // array components: a SegMap with one element per row, which computes
  // its row once and writes each part to its outputs (written free
  // arrays), instead of once per element of the row.
  // With a key, the step is cached with its captured scalars lifted into
  // parameters (as map_flat's producers are).
  Value map_rows(int64_t n, const std::string* key = nullptr);
  Value map_rows_once(int64_t n, CaptureLog* log, const std::string* key);
  // Runs a row-wise map's step over n rows: `bound` holds a buffer per
  // free array of its element, null for the outputs, which are made here.
  // `remark` (whether it was cached) ends the listing; `source` and
  // `note` replace the map's in the listing when given.
  Value run_rows(plan::Step st, std::vector<BufferPtr> bound, std::vector<RowPart> parts, const Sym& skeleton,
                 int64_t n, const std::string& remark, const std::string& source = "", const std::string& note = "");

  Value map_nested(int64_t n, const std::vector<int64_t>& dims, const std::string* key = nullptr);

  // map (\x -> reduce/scan op ne (... x ...)) xs: one segmented step.
  Value segmented(const SymSoac& probe_soac, int64_t n);
  // The mapped function applied to row s of the inputs, in tail position:
  // the SOAC its body ends in (the probe found one), lowered in lw.
  SymSoac tail_soac(Lowerer& lw, Reg s);
  // map (\x -> hist ...) xs: one batched SegHist, or rows built one by one.
  Value map_of_hist(const SymSoac& probe_soac, int64_t n);
  Value map_of_scatter(const SymSoac& probe_soac, int64_t n);

  struct Internal : std::exception {};

  // The scalar operator f of a vectorised operator (`map2 f`, or any
  // function that combines two [m] arrays element by element), found by
  // applying it to arrays whose every element is the scalar parameters:
  // an element access at any index but the one asked for is not
  // elementwise, and falls back.
  // With `tuple_of_arrays`, the operator takes and returns tuples (or
  // records) of [m] arrays, each combined element by element (`\(a, b) (c,
  // d) -> (map2 f a c, map2 g b d)`), and like is the tuple of scalars.
  // Components marked in `scalar_parts` are scalars the same in every
  // column (a segmented scan's flag beside its rows): passed as they are,
  // and the operator's result for them must not depend on the arrays.
  kir::Function elementwise_operator(const Value& opv, const Sym& like, int64_t m, bool tuple_of_arrays = false,
                                     const std::vector<bool>* scalar_parts = nullptr);

  // reduce (map2 f) (replicate m ne) xss: column-wise, one segment per
  // column; scan likewise, its [m][n] result handed back transposed (a
  // delayed transpose: a consumer reads it in place).
  Value reduce_vectorised(bool scan = false);
  // reduce or scan over a tuple of [m] arrays (`(replicate m 0, replicate
  // m 0)`, the elements tuples of [m] rows), possibly beside scalars
  // (`(false, replicate m 0)`, a segmented scan of rows): column-wise as
  // above, the columns' components side by side, each scalar repeated in
  // every column.
  Value reduce_vectorised_tuple(bool scan = false);
  // reduce with an operator on [m] rows that is not elementwise (a loop
  // building the combined row), or on tuples of arrays of any ranks:
  // chunks of rows folded in parallel, one element per chunk with the
  // accumulator in private storage, then the chunks' rows folded by one
  // element.
  Value reduce_rows_chunked();
  // Folds rows [s*chunk, min((s+1)*chunk, n)) of xsv for each of `segments`
  // segments s: one SegMap writing each segment's [m] row.
  Value fold_row_chunks(const Value& xsv, int64_t segments, int64_t chunk);
  // scan with such an operator: the chunks' rows folded (fold_row_chunks),
  // their exclusive prefixes scanned by one element, then every chunk
  // scanned again from its prefix, each row written as it is reached.
  Value scan_rows_chunked();
  // Scans rows [s*chunk, min((s+1)*chunk, n)) of xsv for each of `segments`
  // segments s, starting from row s of `carries` (the neutral element
  // when null): one SegMap writing the [n][m] result. Exclusive: each
  // row's result is the fold of the rows before it.
  Value scan_row_chunks(const Value& xsv, int64_t segments, int64_t chunk, const Value* carries, bool exclusive);

  // ---- reduce / reduce_comm / scan
  Value reduce_or_scan(bool scan);
  void sum_layout(const Value& ne, bool scan, Sym& like, std::vector<Scalar>& neutral);
  // The shape of the call's result type (of its elements with `element`),
  // its sums in the layout of every constructor of their type; `what`
  // names the value in the fallback when the type is not known.
  Sym result_layout(bool element, const char* what);

  Value reduce_result(const Sym& like, bool scan, int64_t n, const std::vector<BufferPtr>& outs);

  // ---- the plan cache (planner_cache.hpp)

  // The key of a reduce/scan whose plan depends on nothing but what the key
  // holds; nullopt when the call is not cached. `leaves` gets the input
  // array's leaf buffers, which a cached plan's inputs are rebound to.
  // Cached: operators fixed by name and argument types (`(+)`, prelude
  // functions that merely forward to an intrinsic), over arrays that are
  // views (a delayed input's producer is inlined as code: not cached).
  std::optional<std::string> reduce_key(const Value& opv, const Value& ne, const Value& xsv,
                                        std::vector<BufferPtr>& leaves);

  // Runs a cached plan on this call's input leaves, with fresh outputs;
  // returns the result buffers in order.
  std::vector<BufferPtr> run_cached(const CachedPlan& c, const std::vector<BufferPtr>& leaves);

  // Caches pb's plan under `key` if every buffer it reads is one of the
  // input's leaves (rebound on a hit) and every other is written.
  void cache_plan(const std::string& key, const Builder& pb, const std::vector<BufferPtr>& leaves);

  // The destination of reduce_by_index / scatter, owned: its leaf buffers
  // whole (offset 0, exact size) and referenced by nothing else.
  Value own_destination(std::vector<BufferPtr>& leaves, Sym& like, int max_rank = 1);

  // The scalar neutral element of a vectorised one (an array whose
  // elements must all be equal).
  static void uniform_neutral(const Value& ne, Sym& like, std::vector<Scalar>& neutral);

  // hist (map2 f) (replicate d ne) k is vss (k-means): one histogram per
  // column, all updated from one pass over the input; the element yields
  // the bin and the d values of its row.
  Value hist_vectorised();
  Value scatter_components();
  Value scatter_sums();
  // reduce_by_index / scatter with nothing to write: the destination.
  Value nothing_written();
  Value sum_columns_of(const Value& arr, const Sym& like);
  kir::Function column_operator(const kir::Function& scalar_op, int64_t d, size_t L, const std::vector<Prim>& types);
  kir::Function row_operator(const Value& opv, const Sym& like, int64_t d);

  // The row-major position of index tuple `idx` in an array of `dims`, or
  // -1 when a component is out of its dimension's bounds.
  Sym linear_index(Lowerer& lw, const Sym& idx, const std::vector<int64_t>& dims);

  Value hist_or_scatter(bool hist);

  // ---- array primitives as delayed producers
  Value iota();

  Value replicate();

  // replicate n xs: element f of the result is element f % |xs| of xs.
  Value replicate_array(int64_t n, const Value& x);
  // replicate n x for any x: arrays, tuples with array components, scalars.
  Value replicate_value(int64_t n, const Value& x);

  Value transpose() { return transpose_of(call.args.at(0)); }

  // Finishes p's element function (lw, returning v) and delays an array
  // of `shape` on it.
  Value finish_producer(std::shared_ptr<Producer> p, Lowerer& lw, const Sym& v, const std::string& what,
                        std::vector<int64_t> shape);

  // flatten::repeat_each (planner.hpp).
  Value repeat_each(const Value& xs, int64_t m);
  Value repeat(const Value& xs, int64_t times, bool each);
  // flatten::repeat_whole (planner.hpp).
  Value repeat_whole(const Value& xs, int64_t n);

  // transpose swaps the two outer dimensions; rows of higher rank arrays
  // ([n][m][k] -> [m][n][k]) move whole.
  Value transpose_of(const Value& xs);
};

}  // namespace thorn::flatten::planning
