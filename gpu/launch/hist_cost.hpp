#pragma once
// The histogram cost model of seed 001 (Henriksen et al., SC20;
// notes-hist.md §2): how many subhistograms (M), threads per subhistogram
// (C) and sequential passes over bin chunks (S, chunk = ceil(H/S)) a
// generalised histogram uses, in shared memory (eqs. 1-3) or in global
// memory sized to the L2 cache (eqs. 4-6, with eq. 4 as corrected in the
// notes: RF is divided by L2_line / el_avg, not by a min), and which of the
// two to use (shared when its S is at most 3 / 4 / 6 for hardware atomics /
// CAS / locks).
//
// Pure functions of the inputs, so that the unit test can reproduce the
// paper's Table I from its own constants (tests/unit/gpu/hist_cost_test.cpp)
// and the runtime can feed the real device's properties (plan_seghist).
#include <cstdint>
#include <string>

namespace thorn::gpu::launch {

// The atomic update a histogram's operator and type allow (notes-hist.md
// §2): hardware atomics (integer add/min/max/and/or/xor, float add), a CAS
// loop over the bit pattern of a 32/64-bit value, or a lock per bin.
enum class HistAtomic { Hardware, Cas, Lock };
const char* hist_atomic_name(HistAtomic a);  // "hdw", "cas", "lock"

enum class HistMemory { Shared, Global };
const char* hist_memory_name(HistMemory m);  // "shared", "global"

struct HistModelInput {
  double n = 0;              // N: input elements
  double bins = 0;           // H: bins (all segments' together for a batched histogram)
  HistAtomic atomic = HistAtomic::Hardware;
  double el_size = 4;        // sizeof(β), plus 4 bytes for a lock (Lock)
  double el_avg = 4;         // the average element size in memory (eq. 4; locks in their own array)
  double threads = 0;        // T = min(T_hw, N)
  double block = 1024;       // B: the shared-memory kernel's block
  double shared_bytes = 0;   // L: shared memory one block may use
  double l2_bytes = 0;       // L2
  double l2_line = 64;       // L2 line size in bytes
  double race_factor = 1.0;  // RF: H / (distinct bins among H consecutive inputs)
};

struct HistModelChoice {
  HistMemory memory = HistMemory::Global;
  int64_t m = 1;      // subhistograms (per block in shared memory; in all in global memory)
  int64_t c = 1;      // threads per subhistogram
  int64_t s = 1;      // passes over chunks of bins
  int64_t chunk = 0;  // bins per pass: ceil(H / S)
  std::string why;    // the numbers, for :plan and the benchmarks
};

// Model constants (notes-hist.md §2).
constexpr double kHistKRf = 0.75, kHistKMin = 2.0, kHistFL2 = 0.4;

// Eqs. 1-3: the largest M that fits L (at most B), C = ceil(B/M), and as
// many passes as M = 1 needs to fit.
HistModelChoice hist_shared_model(const HistModelInput& in);
// Eqs. 4-6: the number of passes that keeps the subhistograms of a
// cooperation level of at most H/k_min in the f_L2 part of the L2 (expanded
// by the race factor), then the M that fits.
HistModelChoice hist_global_model(const HistModelInput& in);
// The shared model when its S is small enough for the atomic kind (3 / 4 /
// 6), else the global model.
HistModelChoice hist_choose(const HistModelInput& in);
int hist_max_shared_passes(HistAtomic a);

}  // namespace thorn::gpu::launch
