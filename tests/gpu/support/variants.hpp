#pragma once
// Every kernel variant the GPU backend can generate, as KernelSources: the
// nvrtc compile-all test compiles them all, the benchmarks pick some.
#include <vector>

#include "gpu/codegen/skeleton.hpp"

namespace thorn::gpu::test {

std::vector<cg::KernelSource> all_kernel_variants();

}  // namespace thorn::gpu::test
