#pragma once
// A segmented plan: what the flattener makes of one SOAC nest, given the
// real shapes it sees at run time. Steps are segmented primitives over flat
// buffers with *regular* segments (every segment has the same size); element
// computations are kernel IR functions. The host executor (interp/exec) and
// the GPU backend (gpu/) both execute plans; the reference backend never
// sees them.
//
// Conventions for every step:
//  - `element` is a kir::Function of two i64 parameters (segment s, position
//    j within the segment; the flat position is s * segment_size + j). It
//    reads inputs through its free arrays, bound to plan buffers by `reads`.
//    Fused producers (map chains, iota, replicate, zip, transpose) are code
//    inside `element`, not passes over memory.
//  - `op` (SegRed, SegScan, SegHist) is a kir::Function of 2k parameters
//    (k accumulator values, then k element values) returning k values.
#include <cstdint>
#include <string>
#include <vector>

#include "interp/core/prim.hpp"
#include "interp/flatten/kernel_ir.hpp"
#include "interp/util/source.hpp"

namespace thorn::plan {

enum class StepKind {
  SegMap,   // out[r][s*size + j] = element(s, j)[r]                       (writes: one per result)
  SegRed,   // out[r][s] = fold op over j of element(s, j)[map_outputs + r]  (writes: map-part outputs first,
            //   each of segments*segment_size elements, then one buffer of `segments` per reduced value)
  SegScan,  // out[r][s*size + j] = inclusive scan of element(s, 0..j) within segment s
  SegHist,  // element(s, j) = (bin, v_1..v_k); hist[r][s*bins + bin] op= v_r for 0 <= bin < bins;
            //   `writes` buffers hold the destination histograms, initialised before the step
  Scatter,  // element(s, j) = (index, v_1..v_k); dest[r][s*dest_size + index] = v_r when in bounds
};

std::string_view step_kind_name(StepKind k);

struct BufferDesc {
  Prim elem = Prim::I32;
  int64_t count = 0;
  std::string name;     // for :plan
  bool is_input = false;  // bound to an existing array; otherwise allocated by the executor
};

struct Step {
  StepKind kind = StepKind::SegMap;
  Loc loc;                    // the SOAC call this step comes from
  int64_t segments = 1;       // number of regular segments (product of the mapped outer dims)
  int64_t segment_size = 0;   // elements per segment (the SOAC's own width)
  kir::Function element;      // (s: i64, j: i64) -> values
  std::vector<int> reads;     // buffer id bound to element.free_arrays[k]
  kir::Function op;           // SegRed / SegScan / SegHist operator
  std::vector<Scalar> neutral;
  bool commutative = false;   // SegRed / SegHist: the operator is commutative (reduce_comm, hist)
  int num_map_outputs = 0;    // SegRed redomap: leading element results written per element
  int64_t bins = 0;           // SegHist: bins per segment
  int64_t dest_size = 0;      // Scatter: destination elements per segment
  std::vector<int> writes;    // output buffer ids (see StepKind)
  std::string fused;          // what was fused into `element`, for :plan ("map, iota, zip")
};

struct Plan {
  std::vector<BufferDesc> buffers;
  std::vector<Step> steps;
  std::string source;  // the SOAC nest this plan came from, for :plan
  Loc loc;             // where that nest is
  // Non-empty: the nest could not be flattened and runs on the reference
  // backend; says why (shown by :plan). `steps` is then empty.
  std::string fallback;
  std::vector<std::string> notes;  // decisions worth showing: fusions, sequentialised loops
  std::vector<int> results;        // buffer ids holding the nest's results, in order
};

// Readable listing for :plan and `--log plan`.
std::string to_string(const Plan& p);

}  // namespace thorn::plan
