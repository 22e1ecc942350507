#pragma once
// The flattener's plan cache: a SOAC call inside a loop is lowered and
// planned once, and later calls with the same key run the cached plan on
// their own input buffers.
//
// The kernel IR of a plan has sizes, offsets and captured scalars baked in
// as constants, so the key (built by the planner, see planner.cpp) holds
// everything the plan depends on: the call site and SOAC kind, the
// operator's identity (only operators whose meaning is fixed by name and
// argument types are cached), the neutral element's values, and the input
// array's exact shape, leaf element types, offsets and buffer sharing. The
// plan keeps no input data: a hit rebinds each input buffer to the call's
// array and allocates fresh outputs.
//
// Bounded: at most kMaxEntries plans, the least recently used one out when
// a new one comes in. Keys hold addresses of AST nodes (call sites,
// functions), so an entry also holds the *code anchor* that was current
// when it was inserted (set_anchor: the REPL input whose evaluation made
// it): the AST stays alive, and its addresses are not reused, exactly as
// long as a key may name it. A REPL input is freed once the session no
// longer reaches it and its plans are evicted.
// THORN_PLAN_CACHE=0 disables it (for measuring and bisecting).
#include <array>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "interp/flatten/captures.hpp"
#include "interp/flatten/delayed.hpp"
#include "interp/flatten/plan.hpp"
#include "interp/flatten/sym.hpp"

namespace thorn::flatten {

// One part of a row-wise map's result (planner_map.cpp, map_rows): a
// scalar (dims empty) or a regular array of each row's result, with its
// element structure, output buffers and the written free arrays of the
// element function that hold it.
struct RowPart {
  std::vector<int64_t> dims;
  Sym like;
  std::vector<BufferPtr> outs;
  std::vector<int> ids;
  // Elements of one row's part (1 for a scalar).
  int64_t elems() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

// A cached row-wise map: its one SegMap step, lowered with captured
// scalars lifted into parameters, and how a row's result is laid out.
struct CachedRows {
  plan::Step step;              // segments are set from each call
  std::vector<RowPart> parts;   // outs empty: allocated on every run
  Sym skeleton;                 // the result's tuples and records, a leaf per part
};

struct CachedPlan {
  plan::Plan plan;
  // Per plan buffer: >= 0, bound on every run to that leaf buffer of the
  // call's input array; -1, an output allocated afresh on every run.
  std::vector<int> input_leaf;

  // A map's delayed producer (plan is then empty): its element function
  // with captured scalars lifted into parameters, and how each of its free
  // arrays is found again from a later call (captures.hpp). `producer`'s
  // reads are empty and its outer size is replaced by the call's.
  ProducerPtr producer;
  // A row-wise map (plan is then empty): its step and result layout.
  std::shared_ptr<const CachedRows> rows;
  // Both: how each free array is found again from a later call.
  std::vector<CaptureSource> sources;
  std::vector<ReadBinding> reads;
  std::vector<std::tuple<int, int, int>> aliases;
  // What a producer's or rows' function was lowered with (Lowerer::speculative_bound).
  int64_t speculative_bound = 0;
  // Delayed values up to this many elements were materialised to make the
  // entry (CaptureLog::copy_delayed_up_to); a hit does the same.
  int64_t copy_delayed_up_to = 0;
};
using CachedPlanPtr = std::shared_ptr<const CachedPlan>;

struct PlanCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;     // cacheable calls that had to be planned
  uint64_t evictions = 0;  // entries dropped, least recently used first, to make room
  size_t entries = 0;
};

class PlanCache {
 public:
  static constexpr size_t kMaxEntries = 256;

  // Counts a hit or a miss.
  CachedPlanPtr find(const std::string& key);
  void insert(const std::string& key, CachedPlanPtr p);
  // A hit whose captured values no longer fit the plan (another type or
  // shape behind the same names): counted as a miss instead.
  void stale();
  PlanCacheStats stats() const;
  void clear();  // entries only; the counters stay
  // What entries inserted from now on keep alive (see above); null: nothing.
  void set_anchor(std::shared_ptr<const void> anchor);
  // Counts a call at `site` (a call site and its function's code identity);
  // true from its second call under the same anchor (set_anchor). The planner then
  // copies small delayed values so that the site's plan can be cached
  // (Planner::map). Tied to the anchor because a REPL input's nodes are
  // freed and their addresses reused by later inputs: a site seen in an
  // earlier input is not the same code, and a REPL input that runs once
  // should not fill the cache with plans (each holding its input alive).
  bool hot_site(const std::string& site);

 private:
  struct Entry {
    std::string key;
    CachedPlanPtr plan;
    std::shared_ptr<const void> anchor;
  };
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> map_;
  std::shared_ptr<const void> anchor_;
  PlanCacheStats stats_;
  // Each set_anchor starts a generation (a REPL input's evaluation); a
  // site counts calls within one. A generation, not the anchor's address:
  // a later input's anchor may be allocated where an earlier one was.
  uint64_t anchor_generation_ = 0;
  // hot_site's counts: a fixed direct-mapped table of site hashes. It
  // allocates nothing per site: a table of strings that lived across REPL
  // inputs pinned small blocks all over the heap, and the REPL's peak
  // memory grew by 5-13 MB over 30,000 inputs (tests/cli/repl_memory.py).
  // Two sites in one slot evict each other; a hash collision at worst
  // makes a site hot early (its small delayed values are copied).
  struct SiteCalls {
    uint64_t hash = 0;
    uint64_t generation = 0;
    int calls = 0;
  };
  static constexpr size_t kSiteSlots = 1024;
  std::array<SiteCalls, kSiteSlots> sites_{};
};

// The process-wide cache (plans hold no data, only code and sizes).
PlanCache& plan_cache();
// False when THORN_PLAN_CACHE=0.
bool plan_cache_enabled();
// "plan cache: 12 hits, 1 miss, 1 entry" for listings.
std::string plan_cache_summary();

}  // namespace thorn::flatten
