#pragma once
// The fiber runtime behind kernel_prelude.h: runs a grid of blocks, one
// fiber (ucontext) per thread of the current block.
#include <cstdint>
#include <string>

namespace thorn::gpu::emu {

using EntryFn = void (*)(void**);

struct LaunchStats {
  uint64_t launches = 0, blocks = 0, fibers = 0, switches = 0;
};

// Runs entry(args) for every thread of a grid x block launch with `smem`
// bytes of dynamic shared memory. Throws std::runtime_error on a barrier
// deadlock (threads of a block waiting at different barriers).
void run_grid(EntryFn entry, void** args, unsigned grid, unsigned block, size_t smem);
LaunchStats launch_stats();

}  // namespace thorn::gpu::emu
