#pragma once
// Device-side building blocks of the reduction skeletons (reduce.cpp), made
// per step because they depend on the operator and its accumulator tuple:
//
//   struct thorn_acc            the k accumulator values (a tuple operator has k > 1)
//   thorn_neutral()             the neutral element
//   thorn_combine(env, a, x)    a = op(a, x), false when a Check failed
//   thorn_elem_acc(env, s, j, x) the element's reduced values; writes its map-part outputs
//   thorn_store_red / thorn_store_part / thorn_load_part
//   thorn_warp_reduce           order-preserving tree over groups of 2^k lanes
//   thorn_block_reduce          warp trees, then warp 0 over the warp results (ordered)
//   thorn_tile_fold             a warp folds 32 contiguous rows through a shared-memory tile
//
// Order preservation: every tree combines a left neighbour with its right
// one (lane l with l + d for l a multiple of 2d), never the reverse, so the
// same code serves non-commutative operators (notes-segred.md §2, "Block
// size, occupancy": order-preserving tree reductions are valid for
// non-commutative operators).
#include <string>

#include "gpu/codegen/common.hpp"

namespace thorn::gpu::cg::detail {

std::string reduce_support(const plan::Step& step, const StepLayout& layout, bool noalias);

// The operator's part alone, for the other skeletons with an operator (the
// scan, scan.cpp): struct thorn_acc, thorn_neutral(), thorn_op,
// thorn_combine and thorn_acc_shfl_down, after checking that the operator
// takes 2k values of the k types it yields and that the neutral element
// has k values. `what` names the step kind in the errors.
std::string operator_support(const plan::Step& step, const StepLayout& layout, const char* what);

}  // namespace thorn::gpu::cg::detail
