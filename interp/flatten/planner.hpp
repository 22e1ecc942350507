#pragma once
// The flattener's entry point: a SOAC call with its real arguments becomes
// a segmented plan run by the host executor, or a delayed array (a `map`,
// `iota`, `replicate`, `transpose` result that a later SOAC may fuse).
//
// Moderate flattening, on the shapes the call actually has:
//   map f xs                 -> delayed array (SegMap when materialised)
//   map (map g) xss          -> one delayed array over the flattened domain
//   map (\r -> reduce ...)   -> SegRed over [n][m]
//   map (\r -> scan ...)     -> SegScan over [n][m]
//   reduce/scan op ne xs     -> SegRed / SegScan, with xs's producer fused
//   reduce_by_index, scatter -> SegHist / Scatter
// Nested SOACs that are not the mapped function's result run sequentially
// inside each element (a loop in the element function), or, when the map
// is too narrow to fill the machine, exec distributes the body into one map
// per let before planning (exec/map_distribute.hpp). A map around a loop
// may instead be interchanged, one flattened map per iteration
// (exec/map_interchange.hpp).
//
// Plan cache (planner_cache.hpp): maps are planned once per call site,
// function code and input structure, their captured scalars lifted into
// parameters and their outer size free (captures.hpp); reduce/scan calls
// with a fixed operator over plain arrays once per call site, operator,
// neutral element and exact input layout.
#include <functional>
#include <optional>
#include <string>

#include "interp/eval/evaluator.hpp"
#include "interp/exec/dispatch.hpp"
#include "interp/flatten/plan.hpp"

namespace thorn::flatten {

struct HostRun {
  std::optional<Value> value;  // empty: the call must run on the reference backend
  std::string fallback;        // why, when value is empty (empty: not a SOAC we flatten)
  std::string listing;         // the plan (or delayed producer) for :plan
};

// Runs a plan whose buffers are all bound (inputs and outputs allocated):
// the host executor, or the GPU backend's. Passed in by exec, so that the
// planner never calls an executor of its own accord.
using PlanExecutor = std::function<void(const plan::Plan&, std::vector<BufferPtr>&)>;

// Plans `call` if it can be flattened and hands the plan to `execute`.
// `call.args` may be consumed (destinations of reduce_by_index and
// scatter) only when a value is returned. Delayed arrays are materialised
// by the host executor when read (delayed.hpp). The planner does not
// evaluate code or dispatch calls: map interchange and distribution, which
// do, are rewrites exec applies before it (exec/map_interchange.hpp,
// exec/map_distribute.hpp). Without want_listing, HostRun::listing stays
// empty (it costs a formatted plan per call).
HostRun run_on_host(exec::SoacCall& call, const PlanExecutor& execute, bool want_listing = true);

// xs: [n]t repeated element by element, m times each: a delayed [n*m]t
// whose element f is xs[f / m] (the outer element each inner one of a
// flattened map of maps belongs to). Null when xs is not an array the
// flattener can read (then the caller builds the nest another way).
std::optional<Value> repeat_each(const Value& xs, int64_t m, const Loc& loc);

// xs: [m]t repeated whole, n times: a delayed [n*m]t whose element f is
// xs[f % m] (an array every outer element's inner map reads alike). Null
// as for repeat_each.
std::optional<Value> repeat_whole(const Value& xs, int64_t n, const Loc& loc);

}  // namespace thorn::flatten
