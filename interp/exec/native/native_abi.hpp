#pragma once
// The calling convention between the host executor and the native kernels
// that interp/exec/native compiles from kernel IR (internal header). The
// generated source declares the same struct (native_source.cpp); both sides
// must change together.
//
// Every entry returns 0 on success and 1 when the element or operator code
// failed a Check or indexed outside an array. The caller then runs the same
// range on the interpreter, which reports the program's own error (or, were
// the native code ever wrong, computes the right result): the native tier
// never has to reproduce the interpreter's error messages.
#include <cstdint>

namespace thorn::host::native {

struct Args {
  const void* const* arrays = nullptr;  // free array k (element.free_arrays order), storage representation
  const int64_t* counts = nullptr;      // its element count
  void* const* outs = nullptr;          // SegMap: the step's `writes`, storage representation
  const uint64_t* consts = nullptr;     // lifted constants (gpu/codegen/constants.hpp)
  int64_t segment_size = 0;
  const void* cancel = nullptr;  // the Ctrl-C flag (interp/util/cancel.hpp), polled in loops
};

// SegMap: elements at flat positions [begin, end) stored into Args::outs.
using SegMapFn = int (*)(const Args*, int64_t begin, int64_t end);
// Any step: the element's results at flat positions [flat0, flat0 + n),
// n <= kLanes, into lane arrays in register representation (host_program.hpp).
using TileFn = int (*)(const Args*, int64_t flat0, int32_t n, void* const* lanes);
// The operator, lane-wise: out[r][l] = op(acc[..][l], x[..][l]) for l < n.
using ApplyFn = int (*)(const Args*, const void* const* acc, const void* const* x, void* const* out, int32_t n);

// SegRed without map outputs, commutative operator: the positions
// [begin, end) of one segment tile by tile, as the host folds them: for
// each tile of kLanes positions p, acc[..][l] = op(acc[..][l],
// element(p)) with l = p - the tile's first position; the lane
// accumulators in register representation. On failure (a Check, an index,
// Ctrl-C) acc is unchanged.
using FoldFn = int (*)(const Args*, int64_t begin, int64_t end, void* const* acc);

// A loaded module's entries (null where the step has none).
struct Entries {
  SegMapFn segmap = nullptr;
  TileFn tile = nullptr;
  ApplyFn apply = nullptr;
  FoldFn fold = nullptr;
};

}  // namespace thorn::host::native
