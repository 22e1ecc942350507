// Scatter: element(s, j) = (index, v_1..v_k);
//   dest_r[s*dest_size + index] = v_r   when 0 <= index < dest_size.
// Out-of-bounds indices are ignored (Futhark's scatter). The destination
// buffers already hold the array being updated; with duplicate indices the
// winner is unspecified, as in Futhark. A grid-stride loop like map.cpp.
#include <fmt/format.h>

#include "gpu/codegen/common.hpp"
#include "gpu/codegen/ctypes.hpp"
#include "gpu/codegen/kir_to_cuda.hpp"
#include "gpu/codegen/skeleton.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::cg {

KernelSource gen_scatter(const plan::Step& step, const CodegenOptions& opts) {
  detail::StepLayout l = detail::layout_of(step);
  std::vector<Prim> results = function_results(step.element);
  if (!is_integral(results.at(0)))
    throw Error(ErrorKind::Internal, "Scatter: the element's first result (the index) must be an integer");
  KernelSource ks;
  ks.name = detail::kernel_name(step, "scatter");
  ks.entries = {"thorn_scatter"};
  std::string s = detail::source_header(step, "scatter");
  s += detail::env_struct(l);
  s += detail::element_function(step, l, opts.noalias);

  std::string decls = fmt::format("    {} idx;\n", reg_type(results[0]));
  std::string args = ", idx", stores;
  for (size_t k = 0; k < l.outs.size(); ++k) {
    decls += fmt::format("    {} v{};\n", reg_type(l.outs[k]), k);
    args += fmt::format(", v{}", k);
    stores += fmt::format("      env.out{0}[at] = {1};\n", k, store_expr(l.outs[k], fmt::format("v{}", k)));
  }
  // An unsigned index above the i64 range becomes negative here: ignored too.
  s += detail::kernel_begin("thorn_scatter", l, opts.block_size, opts.noalias);
  s += fmt::format(R"(  const i64 dest_size = p1;
  const i64 total = segments * n;
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const i64 stride = (i64)gridDim.x * blockDim.x;
  i64 s = i / n, j = i - s * n;
  const i64 ds = stride / n, dj = stride - ds * n;
  for (; i < total; i += stride) {{
{0}    if (!thorn_elem(env, s, j{1})) return;
    const i64 where = (i64)idx;
    if (where >= 0 && where < dest_size) {{
      const i64 at = s * dest_size + where;
{2}    }}
    s += ds; j += dj;
    if (j >= n) {{ j -= n; ++s; }}
  }}
}}
)",
                   decls, args, stores);
  ks.source = std::move(s);
  return ks;
}

}  // namespace thorn::gpu::cg
