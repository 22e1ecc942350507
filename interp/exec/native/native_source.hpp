#pragma once
// Kernel IR of a plan step -> one C++ translation unit for the system
// compiler (internal header; entries and their contract in native_abi.hpp).
//
// The element and operator functions are translated by the GPU code
// generator's emitter (gpu/codegen/kir_to_cuda.hpp) in its host dialect and
// inlined into lane-batched loops: an entry processes a whole range of
// elements per call, so the compiler sees a counted loop around the element
// code (and can vectorise it), and the call costs once per range, not once
// per element.
#include <string>

#include "interp/flatten/plan.hpp"

namespace thorn::host::native {

// Why the step cannot run natively ("" when it can): f16 anywhere (its
// rounding lives in the interpreter's runtime, not worth a copy), operators
// reading free arrays.
std::string unsupported(const plan::Step& step);

struct Source {
  std::string text;
  bool segmap = false, tile = false, apply = false, fold = false;  // which entries it defines
};

// Constants the flattener baked into the IR are lifted into Args::consts as
// the GPU kernels do (gpu/codegen/constants.hpp), so a new size or captured
// scalar reuses the compiled code.
Source generate(const plan::Step& step);

// The run-time values of the constants generate() lifted out of the source,
// in its slot order: every numeric constant, not only the GPU's first 128,
// so that a captured scalar that changes between calls (LocVolCalib's time
// step) does not change the source and compile a new kernel each call.
std::vector<uint64_t> lifted_constant_bits(const plan::Step& step);

// The text before every unit (typedefs, shims for the CUDA intrinsics the
// emitter uses, the scalar helpers), exposed for the compiler's probe.
std::string prelude();

}  // namespace thorn::host::native
