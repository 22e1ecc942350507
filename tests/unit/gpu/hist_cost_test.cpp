// The histogram cost model (gpu/launch/hist_cost.cpp) against the paper's
// Table I, computed from the paper's own constants (notes-hist.md §2, §3:
// RTX 2080 Ti, L = 48 KiB, L2 = 5.5 MiB, T = 69632, B = 1024, N = 5e7,
// 64-byte L2 lines), and the choice of atomic update by operator and type.
#include <doctest/doctest.h>

#include <cstdlib>
#include <utility>
#include <vector>

#include "gpu/codegen/skeleton.hpp"
#include "gpu/launch/hist_cost.hpp"
#include "gpu/launch/hist_launch.hpp"
#include "tests/gpu/support/hist_suite.hpp"

using namespace thorn;
using namespace thorn::gpu;
using launch::HistAtomic;

namespace {

// The paper's benchmark operators: HDW and CAS on 32-bit ints; XCG on
// (int, int) pairs with a lock: el_size 8 + 4, locks in their own array
// (el_avg = (8 + 4) / 2).
launch::HistModelInput paper(HistAtomic a, double bins, double rf = 1) {
  launch::HistModelInput in;
  in.n = 5e7;
  in.bins = bins;
  in.atomic = a;
  in.el_size = a == HistAtomic::Lock ? 12 : 4;
  in.el_avg = a == HistAtomic::Lock ? 6 : 4;
  in.threads = 69632;
  in.block = 1024;
  in.shared_bytes = 49152;
  in.l2_bytes = 5.5 * 1024 * 1024;
  in.l2_line = 64;
  in.race_factor = rf;
  return in;
}

const double K = 1024;
using MS = std::pair<int64_t, int64_t>;

void check_shared(HistAtomic a, const std::vector<double>& hs, const std::vector<MS>& want) {
  for (size_t i = 0; i < hs.size(); ++i) {
    launch::HistModelChoice c = launch::hist_shared_model(paper(a, hs[i]));
    INFO(launch::hist_atomic_name(a), " H=", hs[i], ": ", c.why);
    CHECK(MS{c.m, c.s} == want[i]);
    CHECK(c.chunk * c.s >= int64_t(hs[i]));
  }
}

void check_global(HistAtomic a, double rf, const std::vector<double>& hs, const std::vector<MS>& want) {
  for (size_t i = 0; i < hs.size(); ++i) {
    launch::HistModelChoice c = launch::hist_global_model(paper(a, hs[i], rf));
    INFO(launch::hist_atomic_name(a), " RF=", rf, " H=", hs[i], ": ", c.why);
    CHECK(MS{c.m, c.s} == want[i]);
  }
}

}  // namespace

TEST_CASE("hist cost model: Table I, shared memory (eqs. 1-3)") {
  const std::vector<double> hs = {31, 127, 505, 2 * K, 6 * K, 12 * K, 24 * K, 48 * K};
  const std::vector<MS> hdw = {{396, 1}, {96, 1}, {24, 1}, {6, 1}, {2, 1}, {1, 1}, {1, 2}, {1, 4}};
  check_shared(HistAtomic::Hardware, hs, hdw);
  check_shared(HistAtomic::Cas, hs, hdw);
  check_shared(HistAtomic::Lock, hs, {{132, 1}, {32, 1}, {8, 1}, {2, 1}, {1, 2}, {1, 3}, {1, 6}, {1, 12}});
}

TEST_CASE("hist cost model: Table I, global memory (eqs. 4-6, eq. 4 corrected)") {
  const std::vector<double> hs = {12 * K, 24 * K, 48 * K, 192 * K, 384 * K, 768 * K, 1536 * K};
  check_global(HistAtomic::Hardware, 1, hs, {{23, 1}, {11, 1}, {5, 1}, {1, 1}, {1, 1}, {1, 2}, {1, 3}});
  check_global(HistAtomic::Hardware, 63, hs, {{69, 1}, {34, 1}, {17, 1}, {4, 1}, {2, 1}, {1, 1}, {1, 1}});
  check_global(HistAtomic::Cas, 1, hs, {{46, 1}, {23, 1}, {11, 1}, {2, 1}, {1, 1}, {1, 2}, {1, 3}});
  check_global(HistAtomic::Cas, 63, hs, {{138, 1}, {69, 1}, {34, 1}, {8, 1}, {4, 1}, {2, 1}, {1, 1}});
  check_global(HistAtomic::Lock, 1, hs, {{15, 1}, {7, 1}, {3, 1}, {1, 1}, {1, 2}, {1, 3}, {1, 5}});
  check_global(HistAtomic::Lock, 63, hs, {{69, 1}, {34, 1}, {17, 1}, {4, 1}, {2, 1}, {1, 1}, {1, 1}});
}

TEST_CASE("hist cost model: shared memory while S is small (3 / 4 / 6), else global") {
  // HDW: 48K needs S = 4 in shared memory: global. CAS allows 4, XCG 6.
  CHECK(launch::hist_choose(paper(HistAtomic::Hardware, 24 * K)).memory == launch::HistMemory::Shared);
  CHECK(launch::hist_choose(paper(HistAtomic::Hardware, 48 * K)).memory == launch::HistMemory::Global);
  CHECK(launch::hist_choose(paper(HistAtomic::Cas, 48 * K)).memory == launch::HistMemory::Shared);
  CHECK(launch::hist_choose(paper(HistAtomic::Lock, 24 * K)).memory == launch::HistMemory::Shared);
  CHECK(launch::hist_choose(paper(HistAtomic::Lock, 48 * K)).memory == launch::HistMemory::Global);
  CHECK(launch::hist_choose(paper(HistAtomic::Hardware, 1536 * K)).memory == launch::HistMemory::Global);
}

TEST_CASE("hist: the atomic update follows the operator and its types") {
  using test::HistOp;
  auto best = [](HistOp op, Prim t) { return cg::hist_best_atomic(test::seghist(t, op, 1, 10, 10)); };
  CHECK(best(HistOp::Add, Prim::I32) == HistAtomic::Hardware);
  CHECK(best(HistOp::Add, Prim::U64) == HistAtomic::Hardware);
  CHECK(best(HistOp::Add, Prim::F32) == HistAtomic::Hardware);
  CHECK(best(HistOp::Add, Prim::F64) == HistAtomic::Hardware);
  CHECK(best(HistOp::Min, Prim::I64) == HistAtomic::Hardware);
  CHECK(best(HistOp::Xor, Prim::U32) == HistAtomic::Hardware);
  CHECK(best(HistOp::Vec3, Prim::I32) == HistAtomic::Hardware);  // one atomic per component
  CHECK(best(HistOp::Max, Prim::F32) == HistAtomic::Cas);         // no float max atomic
  CHECK(best(HistOp::Min, Prim::F64) == HistAtomic::Cas);
  CHECK(best(HistOp::SatAdd, Prim::I32) == HistAtomic::Cas);
  CHECK(best(HistOp::ArgMax, Prim::I32) == HistAtomic::Lock);
  CHECK(best(HistOp::Pair, Prim::I64) == HistAtomic::Lock);  // f64 max in a pair: not separable into atomics
  CHECK(best(HistOp::Add, Prim::U8) == HistAtomic::Lock);    // no 8-bit atomics
  CHECK(best(HistOp::Add, Prim::F16) == HistAtomic::Lock);
  CHECK(best(HistOp::Or, Prim::Bool) == HistAtomic::Lock);
  // Weaker updates are allowed where they apply.
  plan::Step add = test::seghist(Prim::I32, HistOp::Add, 1, 10, 10);
  CHECK(cg::hist_atomic_allowed(add, HistAtomic::Cas));
  CHECK(cg::hist_atomic_allowed(add, HistAtomic::Lock));
  CHECK_FALSE(cg::hist_atomic_allowed(test::seghist(Prim::I32, HistOp::ArgMax, 1, 10, 10), HistAtomic::Cas));
}

TEST_CASE("hist: launches on an H100 from its properties") {
  for (const char* v : {"THORN_HIST_ATOMIC", "THORN_HIST_MEMORY", "THORN_HIST_M", "THORN_HIST_CHUNK"}) unsetenv(v);
  const DeviceProps h100 = DeviceProps::typical(90);
  auto plan = [&](int64_t bins, int64_t n) {
    return launch::plan_seghist(h100, test::seghist(Prim::I32, test::HistOp::Add, 1, n, bins), n);
  };
  // Small histograms: many copies in shared memory, one pass.
  launch::SegHistLaunch a = plan(31, 50000000);
  CHECK(a.memory == launch::HistMemory::Shared);
  CHECK(a.m > 100);
  CHECK(a.passes == 1);
  CHECK(a.update.threads == cg::kHistSharedBlock);
  CHECK(a.update.dynamic_smem <= size_t(h100.shared_per_block_optin));
  // Huge ones: global memory.
  launch::SegHistLaunch b = plan(1536 * 1024 * 4, 50000000);
  CHECK(b.memory == launch::HistMemory::Global);
  CHECK(b.chunk * b.passes >= b.bins);
  // H > N: no more subhistograms than the input can fill.
  launch::SegHistLaunch c = plan(int64_t(1) << 24, 1000);
  CHECK(c.memory == launch::HistMemory::Global);
  CHECK(c.m == 1);
  // Forced passes split the bins.
  setenv("THORN_HIST_CHUNK", "100", 1);
  launch::SegHistLaunch d = plan(1000, 100000);
  CHECK(d.passes == 10);
  unsetenv("THORN_HIST_CHUNK");
}
