#include "gpu/launch/hist_cost.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace thorn::gpu::launch {

const char* hist_atomic_name(HistAtomic a) {
  switch (a) {
    case HistAtomic::Hardware: return "hdw";
    case HistAtomic::Cas: return "cas";
    case HistAtomic::Lock: return "lock";
  }
  return "?";
}

const char* hist_memory_name(HistMemory m) { return m == HistMemory::Shared ? "shared" : "global"; }

int hist_max_shared_passes(HistAtomic a) {
  switch (a) {
    case HistAtomic::Hardware: return 3;
    case HistAtomic::Cas: return 4;
    case HistAtomic::Lock: return 6;
  }
  return 3;
}

namespace {
int64_t ceil_to_int(double v) { return int64_t(std::ceil(v)); }
int64_t floor_to_int(double v) { return int64_t(std::floor(v)); }
}  // namespace

HistModelChoice hist_shared_model(const HistModelInput& in) {
  HistModelChoice c;
  c.memory = HistMemory::Shared;
  const double H = std::max(1.0, in.bins), B = in.block, L = in.shared_bytes;
  // (1) The input a block sees bounds M too: more copies than elements
  // per block only cost initialisation and combining.
  const double blocks = std::ceil(std::max(1.0, in.threads) / B);
  const double m_prime = std::min(std::floor(L / in.el_size), std::ceil(in.n / blocks)) / H;
  // (2)
  c.m = std::max<int64_t>(1, std::min<int64_t>(floor_to_int(m_prime), int64_t(B)));
  c.c = ceil_to_int(B / double(c.m));
  // (3) Bins one pass holds with M copies; several passes only when even
  // M = 1 does not fit.
  const double len = std::floor(L / (in.el_size * double(c.m)));
  c.s = len < 1 ? 0 : std::max<int64_t>(1, ceil_to_int(H / len));  // 0: not even one bin fits
  c.chunk = c.s == 0 ? 0 : ceil_to_int(H / double(c.s));
  c.why = fmt::format("shared: M={} C={} S={} chunk={} (L={}, el={})", c.m, c.c, c.s, c.chunk, L, in.el_size);
  return c;
}

HistModelChoice hist_global_model(const HistModelInput& in) {
  HistModelChoice c;
  c.memory = HistMemory::Global;
  const double H = std::max(1.0, in.bins), T = std::max(1.0, in.threads);
  // (4), corrected: with only H/RF bins active, M may grow by RF, divided
  // by the bins sharing a cache line (the worst case: no two active bins
  // share one).
  const double race = std::max(1.0, kHistKRf * in.race_factor / std::max(1.0, in.l2_line / in.el_avg));
  const double l2 = kHistFL2 * in.l2_bytes * race;
  // (5) The passes that fit the subhistograms of cooperation level H/k_min.
  const double c_max = std::min(T, H / kHistKMin);
  const double m_min = std::max(1.0, std::floor(T / c_max));
  c.s = std::max<int64_t>(1, ceil_to_int(m_min * H * in.el_avg / l2));
  c.chunk = ceil_to_int(H / double(c.s));
  // (6) The M that fits the L2 with this chunk: k_max elements per thread.
  const double u = in.atomic == HistAtomic::Hardware ? 2.0 : 1.0;
  const double k_max = std::min(l2 / in.el_size, in.n) / T;
  const double cc = std::min(T, u * double(c.chunk) / std::max(k_max, 1e-9));
  c.m = std::max<int64_t>(1, floor_to_int(T / cc));
  c.c = ceil_to_int(cc);
  c.why = fmt::format("global: M={} C={} S={} chunk={} (RACE_exp={:.3g}, k_max={:.3g})", c.m, c.c, c.s, c.chunk, race,
                      k_max);
  return c;
}

HistModelChoice hist_choose(const HistModelInput& in) {
  HistModelChoice sh = hist_shared_model(in);
  if (sh.s >= 1 && sh.s <= hist_max_shared_passes(in.atomic)) return sh;
  HistModelChoice gl = hist_global_model(in);
  gl.why += fmt::format("; shared would need S={}", sh.s);
  return gl;
}

}  // namespace thorn::gpu::launch
