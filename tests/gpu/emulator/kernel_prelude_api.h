// The fiber runtime's C interface (emulator/runtime.cpp), used by emulated kernels.
#pragma once
extern "C" {
struct thorn_emu_dim3 {
  unsigned x, y, z;
};
thorn_emu_dim3* thorn_emu_thread_idx(void);
thorn_emu_dim3* thorn_emu_block_idx(void);
thorn_emu_dim3* thorn_emu_block_dim(void);
thorn_emu_dim3* thorn_emu_grid_dim(void);
void thorn_emu_syncthreads(void);
void thorn_emu_syncwarp(void);
unsigned long long thorn_emu_shfl(unsigned long long v, int mode, int delta);
unsigned char* thorn_emu_dyn_smem(void);
}
