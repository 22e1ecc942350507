#pragma once
// The tiled schedule of matmul-like nests (issue 12): a SegMap whose
// element computes one row i of a product,
//
//   for j < cols: acc = init; for k < depth: acc = acc + A[i, k] * B[k, j];
//                 out[i, j] = acc          (directly, or through a private row)
//
// which is what the flattener makes of
// `map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose b)) a` and its
// spellings (`reduce (+) 0`, f32, i32, i64): `transpose b` is already index
// arithmetic on the untransposed b, so B[k, j] is b's row k, contiguous
// in j. The recogniser reads that structure off the element's kernel IR;
// the host executor (interp/exec/host_tiled.cpp) then runs the step as
// blocks of rows x columns with j across vector lanes, each A[i, k]
// broadcast, one accumulator per output element and k in order 0..depth-1:
// every output element's sum is evaluated in exactly the order of the
// element code (same operations, same operands), so both tiers' results
// are bit-identical to the interpreter's.
#include <cstdint>
#include <optional>
#include <string>

#include "interp/flatten/plan.hpp"

namespace thorn::plan {

struct TiledProduct {
  Prim type = Prim::F64;     // A, B, out and the accumulator
  int a = -1, b = -1, out = -1;  // free arrays of the element
  int64_t a0 = 0, ai = 0, ak = 0;  // A[i, k] = a[a0 + ai*i + ak*k]
  int64_t b0 = 0, bk = 0;          // B[k, j] = b[b0 + bk*k + j]
  int64_t o0 = 0, oi = 0;          // out[i, j] = out[o0 + oi*i + j]
  int64_t rows = 0, cols = 0, depth = 0;
  Scalar init;  // the accumulator's initial value
};

// The step's tiled schedule, or nullopt when its element is anything else
// (the step then runs as planned).
std::optional<TiledProduct> recognise_tiled(const Step& s);
std::string describe(const TiledProduct& t);

}  // namespace thorn::plan
