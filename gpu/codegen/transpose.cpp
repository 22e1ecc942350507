// Tiled transpose: in[b][rows][cols] -> out[b][cols][rows], for any element
// of 1, 2, 4 or 8 bytes (moved as raw bits).
//
// A block moves one tile of TH x TW = 1024 elements through shared memory:
// it reads the tile row by row (consecutive threads on consecutive columns)
// and writes it column by column (consecutive threads on consecutive output
// elements), so both sides are coalesced. The tile is padded to TW + 1
// columns so the column-wise reads of shared memory do not hit one bank
// (notes-segred.md §2 "Transposition": tile[T][T+1], T = 32).
//
// A square 32x32 tile wastes most of its work when a dimension is much
// smaller than 32, so the executor picks TH = 2^log_tile_h from the shape:
// a matrix of 3 rows uses 4 x 256 tiles (the "low-height" variant: one tile
// covers floor(T/height) row-blocks of a square tile), 3 columns 256 x 4
// ("low-width"). A dimension of 1 needs no transpose at all: the executor
// copies instead.
#include <fmt/format.h>

#include "gpu/codegen/prelude.hpp"
#include "gpu/codegen/skeleton.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::cg {

KernelSource gen_transpose(int elem_bytes) {
  const char* T = nullptr;
  switch (elem_bytes) {
    case 1: T = "u8"; break;
    case 2: T = "u16"; break;
    case 4: T = "u32"; break;
    case 8: T = "u64"; break;
    default: throw Error(ErrorKind::Internal, fmt::format("transpose of {}-byte elements", elem_bytes));
  }
  KernelSource ks;
  ks.name = fmt::format("transpose {}B", elem_bytes);
  ks.entries = {"thorn_transpose"};
  ks.source = fmt::format("// thorn kernel: transpose of {}-byte elements\n", elem_bytes);
  ks.source += cuda_prelude();
  ks.source += fmt::format(R"(
typedef {0} elem_t;
// 256 threads, 4 elements each per tile of 1024 elements.
extern "C" __global__ void __launch_bounds__(256) thorn_transpose(const elem_t* __restrict__ in, elem_t* __restrict__ out,
                                                                  i64 batches, i64 rows, i64 cols, i32 log_tile_h) {{
  // Padded tile: TH rows of TW + 1 elements, TH * TW = 1024, TH <= 512.
  __shared__ elem_t tile[1024 + 512];
  const int lth = log_tile_h, th = 1 << lth, ltw = 10 - lth, tw = 1 << ltw;
  const i64 tiles_x = (cols + tw - 1) >> ltw, tiles_y = (rows + th - 1) >> lth;
  const i64 per_batch = tiles_x * tiles_y;
  for (i64 blk = blockIdx.x; blk < batches * per_batch; blk += gridDim.x) {{
    const i64 b = blk / per_batch, rest = blk - b * per_batch;
    const i64 r0 = (rest / tiles_x) << lth, c0 = (rest % tiles_x) << ltw;
    const elem_t* src = in + b * rows * cols;
    elem_t* dst = out + b * rows * cols;
    for (int k = threadIdx.x; k < 1024; k += blockDim.x) {{
      const int r = k >> ltw, c = k & (tw - 1);  // row-major over the tile: coalesced reads
      if (r0 + r < rows && c0 + c < cols) tile[r * (tw + 1) + c] = src[(r0 + r) * cols + c0 + c];
    }}
    __syncthreads();
    for (int k = threadIdx.x; k < 1024; k += blockDim.x) {{
      const int c = k >> lth, r = k & (th - 1);  // column-major: coalesced writes
      if (r0 + r < rows && c0 + c < cols) dst[(c0 + c) * rows + r0 + r] = tile[r * (tw + 1) + c];
    }}
    __syncthreads();
  }}
}}
)",
                           T);
  return ks;
}

}  // namespace thorn::gpu::cg
