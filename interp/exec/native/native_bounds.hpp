#pragma once
// Bounds of the native tier's affine reads (internal header).
//
// Every read of a free array is clamped into range in native code (a
// planner bug must not touch foreign memory), but a clamped index is data
// dependent: the compiler can no longer load consecutive elements as one
// vector. Reads at the top level of the element function whose index is an
// affine function of (segment, position) — the interpreter's affine reads
// (host_affine.hpp), most reads of most kernels — are instead checked
// before each call, at the corners of the range of elements the call
// covers (an affine function over a box of (s, j) takes its extremes
// there), and emitted unclamped. A range whose corners fall outside runs on
// the interpreter, which reports the error or, when the element that would
// read out of range lies outside the range, simply computes it.
#include <cstdint>
#include <set>
#include <vector>

#include "interp/exec/host_program.hpp"
#include "interp/flatten/kernel_ir.hpp"

namespace thorn::host::native {

// The top-level reads with an affine index (only the IR's structure decides
// which: the same for every step with the same structural key).
std::set<const kir::Instr*> affine_reads(const kir::Function& element);

struct AffineBounds {
  struct Read {
    int array = 0;
    Affine form;
  };
  std::vector<Read> reads;
  std::vector<int64_t> counts;  // per free array
  int64_t segment_size = 1;
  // Whether every affine read of every element at flat positions
  // [begin, end) is in bounds.
  bool ok(int64_t begin, int64_t end) const;
};

AffineBounds affine_bounds(const kir::Function& element, std::vector<int64_t> counts, int64_t segment_size);

}  // namespace thorn::host::native
