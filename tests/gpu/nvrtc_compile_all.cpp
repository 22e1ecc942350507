// thorn_nvrtc_check: generates every GPU kernel variant (tests/gpu/support/
// variants.cpp) and compiles each with NVRTC for sm_80 and sm_90 with the
// JIT's options. Needs the CUDA toolkit's NVRTC but no GPU. Fails, printing
// NVRTC's log and the kernel source, on any compile error.
//
//   thorn_nvrtc_check [--arch 90] [--filter TEXT] [--jobs N] [--list] [--dump DIR]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "gpu/driver/nvrtc.hpp"
#include "gpu/jit/kernel_cache.hpp"
#include "interp/util/error.hpp"
#include "tests/gpu/support/variants.hpp"

using namespace thorn;
using namespace thorn::gpu;

int main(int argc, char** argv) {
  std::vector<int> archs = {80, 90};
  std::string filter, dump;
  unsigned jobs = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--arch" && i + 1 < argc) archs = {std::atoi(argv[++i])};
    else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (a == "--jobs" && i + 1 < argc) jobs = unsigned(std::max(1, std::atoi(argv[++i])));
    else if (a == "--dump" && i + 1 < argc) dump = argv[++i];
    else if (a == "--list") list = true;
    else {
      fmt::print(stderr, "usage: {} [--arch N] [--filter TEXT] [--jobs N] [--list] [--dump DIR]\n", argv[0]);
      return 2;
    }
  }

  std::vector<cg::KernelSource> kernels;
  try {
    for (auto& k : test::all_kernel_variants())
      if (filter.empty() || k.name.find(filter) != std::string::npos) kernels.push_back(std::move(k));
  } catch (const Error& e) {
    fmt::print(stderr, "FAIL: kernel generation threw: {}\n", e.render());
    return 1;
  }
  if (list) {
    for (const auto& k : kernels) fmt::print("{}\n", k.name);
    return 0;
  }
  if (!dump.empty())
    for (const auto& k : kernels) {
      std::string name = k.name;
      std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum((unsigned char)c); }, '_');
      std::ofstream(dump + "/" + name + ".cu") << k.source;
    }

  const Nvrtc& nv = Nvrtc::get();
  if (!nv.loaded()) {
    fmt::print(stderr,
               "FAIL: {}\nThe nvrtc tests compile every kernel with the CUDA toolkit's NVRTC (no GPU needed). "
               "Install the toolkit or point THORN_NVRTC at libnvrtc.so.\n",
               nv.why());
    return 1;
  }
  fmt::print("NVRTC {} ({}); {} kernels x {} architectures, {} jobs\n", nv.version_string(), nv.path(),
             kernels.size(), archs.size(), jobs);

  struct Job {
    size_t kernel;
    int arch;
  };
  std::vector<Job> work;
  for (size_t k = 0; k < kernels.size(); ++k)
    for (int a : archs) work.push_back({k, a});
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::vector<double> times;
  int failures = 0;
  auto t0 = std::chrono::steady_clock::now();
  auto worker = [&] {
    for (size_t w; (w = next++) < work.size();) {
      const cg::KernelSource& ks = kernels[work[w].kernel];
      Nvrtc::Target target{work[w].arch, true};
      NvrtcOutput out;
      std::string thrown;
      try {
        out = jit::compile_uncached(ks, target);
      } catch (const Error& e) {
        thrown = e.message;
      }
      std::lock_guard<std::mutex> lock(mu);
      if (!thrown.empty() || !out.ok) {
        ++failures;
        fmt::print(stderr, "FAIL: {} for sm_{}:\n{}\n", ks.name, target.arch, thrown.empty() ? out.log : thrown);
        if (failures <= 3) fmt::print(stderr, "---- source of {} ----\n{}\n---- end ----\n", ks.name, ks.source);
      } else {
        times.push_back(out.ms);
        if (!out.log.empty()) fmt::print("warning: {} for sm_{}:\n{}\n", ks.name, target.arch, out.log);
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < jobs; ++i) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::sort(times.begin(), times.end());
  double median = times.empty() ? 0 : times[times.size() / 2];
  double worst = times.empty() ? 0 : times.back();
  fmt::print("{} compiled, {} failed, in {:.1f} s (per kernel: median {:.0f} ms, max {:.0f} ms)\n", times.size(),
             failures, secs, median, worst);
  return failures == 0 ? 0 : 1;
}
