#pragma once
// Delayed arrays: producer–consumer fusion at run time.
//
// The host backend does not compute `map f xs` (nor iota, replicate,
// transpose) when it is called: it returns an ordinary array value whose
// leaf buffers are *delayed*. A delayed buffer's data does not exist yet;
// it is described by a Producer, a kernel IR function from a flat element
// index to the element's leaf values. Two things can happen next:
//
//  - a later SOAC consumes the array whole (`reduce (+) 0 (map f xs)`,
//    `scan`, `hist`, another `map`): the flattener inlines the producer into
//    the consumer's element function, and the array is never written;
//  - anything else touches the data (the evaluator indexes it, prints it,
//    passes it to the reference backend): Buffer::host() calls the
//    residency hook (value.hpp's Buffer::DeviceSide), which runs the
//    producer once, filling all leaf buffers together.
//
// The mechanism is the one value.hpp already has for GPU residency, so the
// evaluator needs no changes: a delayed buffer is "not on the host yet".
// The producer holds references to its input buffers, which keeps them
// from being updated in place underneath it (storage_unique fails).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/flatten/kernel_ir.hpp"
#include "interp/flatten/plan.hpp"
#include "interp/util/source.hpp"

namespace thorn::flatten {

struct Producer {
  kir::Function elem;            // (i: i64) -> one value per leaf, in leaf order
  std::vector<BufferPtr> reads;  // bound to elem.free_arrays
  std::vector<int64_t> shape;    // full shape of the array (every leaf has it)
  ElemShape elem_shape;          // Prim, or Tuple/Record of Prim
  std::vector<Prim> leaves;      // leaf types, in order
  std::string what;              // "map", "iota", ... for :plan
  Loc loc;
  int64_t count() const;         // product of shape
};
using ProducerPtr = std::shared_ptr<const Producer>;

// An array value whose leaf buffers are delayed on `p`.
Value make_delayed_array(ProducerPtr p);

// The producer of `a` if `a` is a whole, not yet materialised delayed array
// (offset 0, the producer's full shape); null otherwise.
ProducerPtr delayed_producer(const ArrayValue& a);

// Runs the producers of a's delayed leaf buffers now, on this thread (a
// GPU-resident buffer stays there), components included.
void materialise_leaves(const ArrayValue& a);

// Leaf prim types of an element shape of Prim or Tuple/Record of Prim;
// false when the shape has other structure.
bool prim_leaves(const ElemShape& e, std::vector<Prim>& out);

// Registers a check to run right after `a` (a delayed array) is
// materialised, on its leaf buffers; --validate compares them with the
// reference's result there, so that validation does not defeat fusion.
// Returns false when `a` is not a pending delayed array.
bool on_materialise(const ArrayValue& a, std::function<void(const std::vector<BufferPtr>&)> check);

// The step that materialises a producer: a SegMap [1][count()] reading
// the producer's inputs (buffers 0..) and writing its leaves (the buffers
// after them). The plan listing shows the schedule it would take.
plan::Step materialise_step(const Producer& p);

// The plan that writes a producer's elements into `outs` (one buffer per
// leaf, count() each): materialise_step's step. `bufs` receives the plan's
// buffers, the producer's reads and then `outs`.
plan::Plan producer_plan(const Producer& p, const std::vector<BufferPtr>& outs, std::vector<BufferPtr>& bufs);

// Runs a producer into the given leaf buffers: producer_plan, run by the
// plan runner. The runner is the host executor, installed by exec
// (host_executor.cpp), so that interp/flatten never calls an executor.
using PlanRunner = std::function<void(const plan::Plan&, std::vector<BufferPtr>&)>;
void set_plan_runner(PlanRunner run);
void run_producer(const Producer& p, const std::vector<BufferPtr>& outs);

}  // namespace thorn::flatten
