#pragma once
// Pieces every step skeleton shares: the kernel environment struct, the
// uniform parameter list (gpu/codegen/skeleton.hpp), and the element function.
#include <string>
#include <vector>

#include "gpu/codegen/constants.hpp"
#include "gpu/codegen/skeleton.hpp"

namespace thorn::gpu::cg::detail {

// The pointers a step kernel receives, by kind.
struct StepLayout {
  std::vector<Prim> outs;   // OUT pointers (the step's writes)
  std::vector<Prim> parts;  // PART pointers (SegRed partials)
  std::vector<Prim> frees;  // FREE pointers (element.free_arrays)
  std::vector<bool> frees_written;  // per FREE pointer: a `written` free array (non-const, may alias nothing)
  LiftedConstants consts;   // the `kc` parameter (absent when empty)
};

StepLayout layout_of(const plan::Step& step);  // outs from element results / op results, see each kind

// `struct thorn_env { ... };` holding every kernel parameter.
std::string env_struct(const StepLayout& l);
// `extern "C" __global__ void __launch_bounds__(B) ENTRY(<uniform params>) {`
// followed by the construction of `env` from the parameters.
std::string kernel_begin(const std::string& entry, const StepLayout& l, int block_size, bool noalias);

// The element function as `thorn_elem(env, s, j, out...)`.
std::string element_function(const plan::Step& step, const StepLayout& l, bool noalias);

// A leading comment naming the skeleton and the step, and the prelude.
std::string source_header(const plan::Step& step, const std::string& skeleton);

std::string kernel_name(const plan::Step& step, const std::string& skeleton);

}  // namespace thorn::gpu::cg::detail
