#include "tests/gpu/emulator/runtime.hpp"

#include <ucontext.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "tests/gpu/emulator/kernel_prelude_api.h"

namespace thorn::gpu::emu {

namespace {

enum Wait : int { kRunnable = 0, kBlockBarrier = 1, kWarpBarrier = 2 };

// Context switches: a few instructions of assembly on x86-64 (callee-saved
// registers and the stack pointer), ucontext elsewhere (which makes a system
// call per switch, some hundred times slower).
#if defined(__x86_64__)
extern "C" void thorn_emu_switch(void** save_sp, void* new_sp);
asm(R"(
  .text
  .globl thorn_emu_switch
  .hidden thorn_emu_switch
  .type thorn_emu_switch,@function
thorn_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size thorn_emu_switch, .-thorn_emu_switch
)");
#define THORN_EMU_FAST_SWITCH 1
#endif

struct Fiber {
  ucontext_t ctx;
  void* sp = nullptr;
  std::unique_ptr<char[]> stack;
  thorn_emu_dim3 tid{0, 0, 0};
  int wait = kRunnable;
  bool done = false;
};

constexpr size_t kStack = 256 * 1024;

struct Launch {
  EntryFn entry = nullptr;
  void** args = nullptr;
  thorn_emu_dim3 block_idx{0, 0, 0}, block_dim{1, 1, 1}, grid_dim{1, 1, 1};
  std::vector<Fiber> fibers;
  std::vector<unsigned long long> slots;  // one per thread, for shuffles
  std::vector<unsigned char> smem;
  ucontext_t sched;
  void* sched_sp = nullptr;
  int cur = -1;
};

Launch* g = nullptr;
LaunchStats stats;

void fiber_main() {
  g->entry(g->args);
  g->fibers[size_t(g->cur)].done = true;  // returning resumes the scheduler (uc_link)
}

void to_scheduler(Fiber& f) {
#if THORN_EMU_FAST_SWITCH
  thorn_emu_switch(&f.sp, g->sched_sp);
#else
  swapcontext(&f.ctx, &g->sched);
#endif
}

void to_fiber(Fiber& f) {
#if THORN_EMU_FAST_SWITCH
  thorn_emu_switch(&g->sched_sp, f.sp);
#else
  swapcontext(&g->sched, &f.ctx);
#endif
}

#if THORN_EMU_FAST_SWITCH
// A fresh fiber starts here, "returned to" by thorn_emu_switch.
void trampoline() {
  fiber_main();
  Fiber& f = g->fibers[size_t(g->cur)];
  thorn_emu_switch(&f.sp, g->sched_sp);  // never resumed
  __builtin_unreachable();
}
#endif

void start(Fiber& f) {
#if THORN_EMU_FAST_SWITCH
  // Initial stack: six zero registers for the pops, then the trampoline as
  // the return address; 16-byte aligned so that the trampoline starts with
  // the stack as after a call.
  auto top = (reinterpret_cast<uintptr_t>(f.stack.get()) + kStack) & ~uintptr_t(15);
  auto* slots = reinterpret_cast<void**>(top - 64);
  for (int i = 0; i < 6; ++i) slots[i] = nullptr;
  slots[6] = reinterpret_cast<void*>(&trampoline);
  slots[7] = nullptr;
  f.sp = slots;
#else
  getcontext(&f.ctx);
  f.ctx.uc_stack.ss_sp = f.stack.get();
  f.ctx.uc_stack.ss_size = kStack;
  f.ctx.uc_link = &g->sched;
  makecontext(&f.ctx, fiber_main, 0);
#endif
}

void wait_at(int kind) {
  Fiber& f = g->fibers[size_t(g->cur)];
  f.wait = kind;
  to_scheduler(f);
}

void run_block() {
  const size_t n = g->fibers.size();
  for (size_t i = 0; i < n; ++i) {
    Fiber& f = g->fibers[i];
    start(f);
    f.tid = {unsigned(i), 0, 0};
    f.wait = kRunnable;
    f.done = false;
  }
  stats.fibers += n;
  for (;;) {
    bool ran = false;
    for (size_t i = 0; i < n; ++i) {
      Fiber& f = g->fibers[i];
      if (f.done || f.wait != kRunnable) continue;
      g->cur = int(i);
      ++stats.switches;
      to_fiber(f);
      ran = true;
    }
    // Release barriers whose every live participant has arrived. Threads
    // that finished the kernel no longer count, as on the device.
    size_t alive = 0, at_block = 0;
    for (const Fiber& f : g->fibers) {
      alive += !f.done;
      at_block += !f.done && f.wait == kBlockBarrier;
    }
    if (alive == 0) break;
    bool released = false;
    if (at_block == alive) {
      for (Fiber& f : g->fibers)
        if (!f.done) f.wait = kRunnable;
      released = true;
    }
    for (size_t w = 0; w < n; w += 32) {
      size_t live = 0, at_warp = 0;
      for (size_t i = w; i < std::min(n, w + 32); ++i) {
        live += !g->fibers[i].done;
        at_warp += !g->fibers[i].done && g->fibers[i].wait == kWarpBarrier;
      }
      if (live > 0 && at_warp == live) {
        for (size_t i = w; i < std::min(n, w + 32); ++i) g->fibers[i].wait = kRunnable;
        released = true;
      }
    }
    if (!ran && !released)
      throw std::runtime_error(fmt::format("emulated kernel deadlocked in block {}: threads wait at different barriers",
                                           g->block_idx.x));
  }
}

}  // namespace

void run_grid(EntryFn entry, void** args, unsigned grid, unsigned block, size_t smem) {
  Launch l;
  l.entry = entry;
  l.args = args;
  l.block_dim = {block, 1, 1};
  l.grid_dim = {grid, 1, 1};
  l.fibers.resize(block);
  for (Fiber& f : l.fibers) f.stack.reset(new char[kStack]);
  l.slots.assign(block, 0);
  l.smem.assign(smem + 16, 0);
  Launch* saved = g;
  g = &l;
  ++stats.launches;
  try {
    for (unsigned b = 0; b < grid; ++b) {
      l.block_idx = {b, 0, 0};
      ++stats.blocks;
      run_block();
    }
  } catch (...) {
    g = saved;
    throw;
  }
  g = saved;
}

LaunchStats launch_stats() { return stats; }

}  // namespace thorn::gpu::emu

using thorn::gpu::emu::g;

// Exported from the driver library too (built with hidden visibility): the
// kernels' shared objects resolve these.
#pragma GCC visibility push(default)
extern "C" {
thorn_emu_dim3* thorn_emu_thread_idx(void) { return &g->fibers[size_t(g->cur)].tid; }
thorn_emu_dim3* thorn_emu_block_idx(void) { return &g->block_idx; }
thorn_emu_dim3* thorn_emu_block_dim(void) { return &g->block_dim; }
thorn_emu_dim3* thorn_emu_grid_dim(void) { return &g->grid_dim; }
void thorn_emu_syncthreads(void) { thorn::gpu::emu::wait_at(thorn::gpu::emu::kBlockBarrier); }
void thorn_emu_syncwarp(void) { thorn::gpu::emu::wait_at(thorn::gpu::emu::kWarpBarrier); }
unsigned long long thorn_emu_shfl(unsigned long long v, int mode, int delta) {
  const int t = g->cur, lane = t & 31, base = t - lane;
  g->slots[size_t(t)] = v;
  thorn_emu_syncwarp();
  const int src = mode == 0 ? lane + delta : mode == 2 ? lane - delta : lane ^ delta;  // down, up, xor
  unsigned long long r = v;
  if (src >= 0 && src < 32 && size_t(base + src) < g->slots.size()) r = g->slots[size_t(base + src)];
  thorn_emu_syncwarp();  // every lane has read before the slots change again
  return r;
}
unsigned char* thorn_emu_dyn_smem(void) {
  // 16-byte aligned, like the kernels' __align__(16) declaration.
  auto p = reinterpret_cast<uintptr_t>(g->smem.data());
  return reinterpret_cast<unsigned char*>((p + 15) & ~uintptr_t(15));
}
}
#pragma GCC visibility pop
