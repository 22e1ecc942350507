#pragma once
// Shared by the native tier's tests (native_tiers.cpp, native_lanes.cpp):
// a step run on both tiers and compared byte for byte.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <random>

#include "flatten_test_util.hpp"
#include "interp/exec/native/native_compiler.hpp"
#include "interp/exec/native/native_registry.hpp"
#include "interp/util/error.hpp"

namespace thorn::nativetest {

namespace native = thorn::host::native;
using kir::Reg;

inline std::vector<uint8_t> bytes(const BufferPtr& b) {
  const std::byte* p = b->host();
  size_t n = size_t(b->count()) * size_t(prim_bytes(b->elem()));
  return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(p), reinterpret_cast<const uint8_t*>(p) + n);
}

struct Outcome {
  std::vector<std::vector<uint8_t>> outs;  // every buffer after the step
  std::string error;
};

using MakeBuffers = std::function<std::vector<BufferPtr>()>;

inline Outcome run_tier(native::Mode m, const plan::Step& s, const MakeBuffers& make, const host::ExecOptions& o) {
  native::set_mode(m);
  Outcome r;
  std::vector<BufferPtr> bufs = make();
  try {
    host::execute_step(s, bufs, o);
  } catch (const Error& e) {
    r.error = e.what();
  }
  for (const BufferPtr& b : bufs) r.outs.push_back(bytes(b));
  return r;
}

enum class Expect { Native, Interpreted, Either };

// Runs `s` on both tiers, serially and in parallel, and compares everything
// (the buffers only when the step succeeded: after an error their contents
// are unspecified). Both must fail with `error` ("" when the step must succeed).
inline void same_on_both_tiers(const plan::Step& s, const MakeBuffers& make, Expect expect = Expect::Native,
                        const std::string& error = "") {
  native::Mode saved = native::mode();
  if (!native::toolchain().ok) {
    MESSAGE("no C++ compiler: the native tier is not tested here");
    return;
  }
  for (auto o : {testutil::serial_opts(), testutil::parallel_opts()}) {
    Outcome a = run_tier(native::Mode::Off, s, make, o);
    int64_t fallbacks = native::stats().fallbacks;
    Outcome b = run_tier(native::Mode::Sync, s, make, o);
    CHECK(a.error == error);
    CHECK(b.error == error);
    // Only a failing step may hand ranges back to the interpreter.
    if (a.error.empty()) CHECK(native::stats().fallbacks == fallbacks);
    REQUIRE(a.outs.size() == b.outs.size());
    if (a.error.empty())
      for (size_t k = 0; k < a.outs.size(); ++k) REQUIRE_MESSAGE(a.outs[k] == b.outs[k], "buffer " << k << " differs");
  }
  native::set_mode(native::Mode::Sync);
  if (expect == Expect::Native) CHECK_MESSAGE(native::lookup(s) != nullptr, "the step did not run natively");
  if (expect == Expect::Interpreted) CHECK(native::lookup(s) == nullptr);
  native::set_mode(saved);
}

// Doubles that exercise the corners: signed zeros, infinities, NaN,
// subnormals, values beyond every integer type, and ordinary random ones.
inline std::vector<double> awkward_doubles(size_t n, uint32_t seed) {
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e308, -1e308,
                           std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(), 4.9e-324, 3e9, -3e9, 1e19, -1e19, 1e-300,
                           3.14159, 7.0, -7.0};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-10.0, 10.0);
  while (v.size() < n) v.push_back(d(rng));
  v.resize(n);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

// Reads element j of a 1-D free array of each listed type: (s, j) -> xs_k[j].
struct ElemBuilder {
  kir::Function f;
  kir::Builder b{f};
  Reg s, j;
  ElemBuilder() {
    s = b.param(Prim::I64);
    j = b.param(Prim::I64);
  }
  Reg input(Prim t, const char* name) { return b.read(b.free_array(t, name), j); }
};

}  // namespace thorn::nativetest
