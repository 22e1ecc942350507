// SegMap: out[r][s*n + j] = element(s, j)[r] for every s < segments, j < n.
//
// A grid-stride loop over the flat index: the grid is sized to the device
// (gpu/launch), so large maps do not launch millions of blocks, and each
// thread keeps (s, j) up to date incrementally instead of dividing by n per
// element (one 64-bit division per thread at the start). Consecutive threads
// handle consecutive flat indices, so fused reads of inputs indexed by
// s*n + j and all writes are coalesced.
#include <fmt/format.h>

#include "gpu/codegen/common.hpp"
#include "gpu/codegen/ctypes.hpp"
#include "gpu/codegen/skeleton.hpp"

namespace thorn::gpu::cg {

KernelSource gen_segmap(const plan::Step& step, const CodegenOptions& opts) {
  detail::StepLayout l = detail::layout_of(step);
  KernelSource ks;
  ks.name = detail::kernel_name(step, "map");
  ks.entries = {"thorn_map"};
  std::string s = detail::source_header(step, "map");
  s += detail::env_struct(l);
  s += detail::element_function(step, l, opts.noalias);

  // The store of one element's results at flat index i.
  std::string decls, args, stores;
  for (size_t k = 0; k < l.outs.size(); ++k) {
    decls += fmt::format("    {} v{};\n", reg_type(l.outs[k]), k);
    args += fmt::format(", v{}", k);
    stores += fmt::format("    env.out{0}[i] = {1};\n", k, store_expr(l.outs[k], fmt::format("v{}", k)));
  }

  s += detail::kernel_begin("thorn_map", l, opts.block_size, opts.noalias);
  s += fmt::format(R"(  const i64 total = segments * n;
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const i64 stride = (i64)gridDim.x * blockDim.x;
  // (s, j) of i, advanced by (ds, dj) per step with a carry.
  i64 s = i / n, j = i - s * n;
  const i64 ds = stride / n, dj = stride - ds * n;
  for (; i < total; i += stride) {{
{0}    if (!thorn_elem(env, s, j{1})) return;  // a Check failed: the host reports it
{2}    s += ds; j += dj;
    if (j >= n) {{ j -= n; ++s; }}
  }}
}}
)",
                   decls, args, stores);
  ks.source = std::move(s);
  return ks;
}

}  // namespace thorn::gpu::cg
