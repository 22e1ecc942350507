// GpuBackend::transpose: the standalone tiled transpose (gpu/codegen/transpose.cpp).
#include <mutex>

#include <fmt/format.h>

#include "gpu/driver/cuda.hpp"
#include "gpu/exec/kernel_args.hpp"
#include "gpu/executor.hpp"
#include "gpu/jit/module_cache.hpp"
#include "gpu/launch/params.hpp"
#include "gpu/memory/residency.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu {

BufferPtr GpuBackend::transpose(const BufferPtr& in, int64_t offset, int64_t batches, int64_t rows, int64_t cols) {
  const int64_t count = batches * rows * cols;
  if (!in || offset < 0 || offset + count > in->count())
    throw Error(ErrorKind::Internal, fmt::format("transpose of [{}][{}][{}] at {} outside its buffer", batches, rows,
                                                 cols, offset));
  auto out = std::make_shared<Buffer>(in->elem(), count);
  device_.make_current();
  const size_t width = size_t(prim_bytes(in->elem()));
  CUdeviceptr src = resident_for_read(device_, *in) + CUdeviceptr(size_t(offset) * width);
  CUdeviceptr dst = resident_for_write(device_, *out);
  if (count > 0) {
    if (rows == 1 || cols == 1) {
      // Nothing moves: [b][1][c] and [b][r][1] read the same in either order.
      CU_CALL(cuMemcpyDtoDAsync, dst, src, size_t(count) * width, device_.stream());
    } else {
      cg::KernelSource ks = cg::gen_transpose(int(width));
      const jit::Module& m = jit::ModuleCache::load(device_, ks);
      KernelArgs a;
      a.ptr(src);
      a.ptr(dst);
      a.i64(batches);
      a.i64(rows);
      a.i64(cols);
      a.i32(launch::transpose_log_tile_h(rows, cols));
      launch::Grid g = launch::transpose_grid(device_.props(), batches, rows, cols);
      const jit::LoadedKernel& k = m.kernel("thorn_transpose");
      CU_CALL(cuLaunchKernel, k.fn, unsigned(g.blocks), 1, 1, unsigned(g.threads), 1, 1, 0, device_.stream(),
              a.pointers(), nullptr);
      jit::KernelCache::get().note_launch(m.stats());
    }
  }
  out->mark_device_only();
  return out;
}

}  // namespace thorn::gpu
