#pragma once
// How Futhark's primitive types look in generated CUDA C.
//
// Registers (values in a kernel) and memory (elements of a buffer) differ for
// two types:
//  - f16 is computed in a `float` register that always holds a value exactly
//    representable as a half (every f16 operation rounds its result, like the
//    host backends do); in memory it is the IEEE half bit pattern (u16).
//  - bool is a C++ `bool` in registers and one byte holding 0 or 1 in memory
//    (read as `!= 0`, so stray bytes cannot produce invalid bools).
#include <string>
#include <string_view>

#include "interp/core/prim.hpp"

namespace thorn::gpu::cg {

std::string_view reg_type(Prim p);  // "i32", "f16" (a float typedef), "bool", ...
std::string_view mem_type(Prim p);  // "i32", "thorn_half", "u8" (bool), ...
// The unsigned type of the same width ("u32" for i32; bool -> "u8").
std::string_view unsigned_type(Prim p);
int bit_width(Prim p);

// A register value loaded from memory expression `mem`, and the memory
// value for register expression `reg`.
std::string load_expr(Prim p, const std::string& mem);
std::string store_expr(Prim p, const std::string& reg);

// An exact C literal of the scalar, in its register type.
std::string literal(const Scalar& s);

}  // namespace thorn::gpu::cg
