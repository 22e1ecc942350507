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
// The one exception is a While whose condition varies (Mandelbrot's
// escape loop): it runs masked, as ISPC and XLA run such loops, while any
// lane's condition holds, a lane's carried values frozen (selected back)
// once its own fails. Each lane then sees exactly its own element's
// operations; the lanes that are done compute values nobody keeps, so
// the condition and the body must be straight-line code without effects.
#include <map>
#include <optional>
#include <vector>

#include "interp/flatten/kernel_ir.hpp"

namespace thorn::host::native {

// Per register: does it vary across elements? nullopt when some control
// flow depends on a varying value.
std::optional<std::vector<char>> varying_registers(const kir::Function& f);

// Lane loops, for elements that are not in the block form (a row of
// Mandelbrot: a For over the pixels of the row, a masked While per
// pixel): a For with no carried values whose body has a While with a
// condition that depends on the counter, and whose iterations are
// independent (no stores to free arrays, private arrays written only at
// the counter and not read in the loop, no calls). Its iterations run
// THORN_B at a time, as lanes of the block form. Per such For (in f's body
// or its subroutines): which registers vary across its iterations.
using LaneLoops = std::map<const kir::Instr*, std::vector<char>>;
LaneLoops lane_loops(const kir::Function& f);

// Whether f has a loop (the block form pays off there; straight-line code
// vectorises as a loop over elements already).
bool has_loop(const kir::Function& f);

}  // namespace thorn::host::native
