#pragma once
// Uniformity of an element function's registers across the elements of a
// step (internal header), for the native tier's block form: THORN_B
// consecutive elements run together, each varying register an array of
// lanes, so the compiler vectorises across elements what it cannot within
// one (a dot product's sequential additions in matmul's row loop, k-means'
// distance loops).
//
// The parameters (segment, position) vary; a register computed from varying
// ones varies, and so do private-array contents and what a loop carries
// from a varying start or body. The block form needs all control flow
// uniform (If conditions, For counts, While conditions): lanes never
// diverge, which is what makes it a plain loop over lanes per statement.
#include <optional>
#include <vector>

#include "interp/flatten/kernel_ir.hpp"

namespace thorn::host::native {

// Per register: does it vary across elements? nullopt when some control
// flow depends on a varying value.
std::optional<std::vector<char>> varying_registers(const kir::Function& f);

// Whether f has a loop (the block form pays off there; straight-line code
// vectorises as a loop over elements already).
bool has_loop(const kir::Function& f);

}  // namespace thorn::host::native
