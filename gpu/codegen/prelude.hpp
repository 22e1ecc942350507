#pragma once
// The self-contained CUDA C every generated kernel starts with: integer and
// float typedefs, f16 conversions (inline PTX, no cuda_fp16.h), Futhark's
// integer division and modulo, float-to-integer conversions as the host
// backends do them, warp shuffles for every register type, and the error
// flag a failing Check sets. No #include: NVRTC compiles it in milliseconds.
#include <string_view>

namespace thorn::gpu::cg {

std::string_view cuda_prelude();

// Parts of it that C++ for the host compiles as well (interp/exec/native):
// the typedefs, and Futhark's integer division and modulo, float-to-integer
// conversions, signum, isinf and ctz; they need THORN_DEV defined and, on
// the host, shims for the CUDA intrinsics __int_as_float, __ffs, __ffsll.
std::string_view scalar_types();
std::string_view scalar_helpers();

}  // namespace thorn::gpu::cg
