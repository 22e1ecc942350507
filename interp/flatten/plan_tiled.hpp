#pragma once
// The tiled schedule of product-like nests (issue 12): a SegMap whose
// element computes one row i of
//
//   for j < cols: acc = init; for k < depth: acc = acc + term(A[i, k], B[k, j])
//
// with term x * y (matmul) or (x - y) * (x - y) (squared distances), and
// then either stores the row (out[i, j] = acc, directly or through a
// private row) or reduces it to one value per row with an argmin over j
// (k-means's nearest centre: a running (value, index) pair from (best0,
// idx0), kept or replaced at each j by the element code's own comparison).
//
// The flattener makes the first of
// `map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose b)) a` and its
// spellings (`reduce (+) 0`, f32, i32, i64; b's rows instead of
// `transpose b`): `transpose b` is index arithmetic on the untransposed
// b, so B[k, j] = b[b0 + bk*k + bj*j] with any strides. The second is
// `map nearest points` with the distances to every centre reduced by
// `reduce closer (f64.inf, 0) (zip ds (iota k))`.
//
// The recogniser reads that structure off the element's kernel IR; the
// host executor (interp/exec/host_tiled.cpp) then runs the step as blocks
// of rows x columns with j across vector lanes, one accumulator per output
// element and k in order 0..depth-1: every sum is evaluated in exactly the
// order of the element code (same operations, same operands), and the
// argmin sees the values in the order j = 0, 1, ..., so both tiers'
// results are bit-identical to the interpreter's.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "interp/flatten/plan.hpp"

namespace thorn::plan {

struct TiledProduct {
  enum class Term : uint8_t { Mul, SqDiff };  // A * B, or (A - B) * (A - B)
  enum class Use : uint8_t { Store, ArgMin };  // out[i, j] = acc, or out[i] = argmin over j
  Term term = Term::Mul;
  Use use = Use::Store;
  Prim type = Prim::F64;  // A, B and the accumulator (Store: the output too)
  int a = -1, b = -1;     // free arrays of the element
  int out = -1;           // Store: the free array written; ArgMin: -1, the step's writes[0]
  int64_t a0 = 0, ai = 0, ak = 0;          // A[i, k] = a[a0 + ai*i + ak*k]
  int64_t b0 = 0, bk = 0, bj = 1;          // B[k, j] = b[b0 + bk*k + bj*j]
  int64_t o0 = 0, oi = 0;                  // Store: out[i, j] = out[o0 + oi*i + j]
  int64_t rows = 0, cols = 0, depth = 0;
  Scalar init;  // the accumulator's initial value

  // ArgMin: the running pair starts as (best0, idx0); at column j with the
  // row's value x, bit (lt | eq << 1 | ilt << 2) of `keep` says whether it
  // stays (else it becomes (x, j)), where lt = best < x, eq = best == x,
  // ilt = index < j. The element returns the index (want_index) or the value.
  Scalar best0;
  int64_t idx0 = 0;
  uint8_t keep = 0;
  bool want_index = true;

  // Conditions the element checks that do not depend on the element (the
  // captured sizes of iota and zip): operand `xa` >= 0 is array xa's
  // element x (an i64), else the constant x; same for y.
  struct Check {
    kir::CmpOp op = kir::CmpOp::Eq;
    int xa = -1, ya = -1;
    int64_t x = 0, y = 0;
  };
  std::vector<Check> checks;
};

// The step's tiled schedule, or nullopt when its element is anything else
// (the step then runs as planned).
std::optional<TiledProduct> recognise_tiled(const Step& s);
std::string describe(const TiledProduct& t);

}  // namespace thorn::plan
