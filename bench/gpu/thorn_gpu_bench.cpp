// thorn_gpu_bench: the GPU backend's benchmarks, against peers measured in
// the same run (bench/gpu/run.sh runs cub_peer first and passes its JSON):
//
//  - map a*x+y (f32) at 2^(N-2) and 2^N vs a device-to-device copy
//  - reduce (+) i32 / f32 at 2^N vs CUB DeviceReduce::Sum
//  - segmented reduce [2^k][2^(N-k)], k = 0..N: (+) f32 vs CUB
//    DeviceSegmentedReduce::Sum, and maximum segment sum (i32, 4-tuple,
//    non-commutative) vs CUB DeviceSegmentedReduce::Reduce
//  - scan (+) i32 / f32 at 2^(N-4), 2^(N-2), 2^N vs CUB DeviceScan::InclusiveSum
//    and a device-to-device copy of the same bytes (a scan reads and writes
//    each element once, as the copy does)
//  - regular segmented scan (+) i32 [2^k][2^(N-k)], k = 0..N, vs CUB
//    DeviceScan::InclusiveSumByKey with keys computed from the index
//  - histograms (hist_bench.cpp): 5e7 inputs (at most 2^N), the paper's 12
//    sizes, RF 1 and 63: (+) vs CUB HistogramEven, saturating add and
//    argmax vs CUB radix sort + reduce-by-key; the cost model's choice vs
//    the best fixed one
//  - NVRTC compile time of a new kernel (median), disk-cache load time,
//    module load time, warm launch overhead of a tiny plan
//
// Times are medians of --reps runs of GpuBackend::execute() on resident
// inputs (wall clock, including its final synchronisation), so they include
// the per-plan overhead; "overhead" below says how much that is.
//
//   thorn_gpu_bench [--peer cub_peer.json] [--out results.json] [--log-n 28] [--reps 10] [--emulate] [--hist-fixed]
//
// --emulate runs on the kernel emulator of tests/gpu (no device; for
// checking the benchmark itself with a small --log-n, timings meaningless);
// it skips the histograms' fixed choices unless --hist-fixed.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/gpu/hist_bench.hpp"
#include "gpu/codegen/skeleton.hpp"
#include "gpu/driver/cuda.hpp"
#include "gpu/driver/device.hpp"
#include "gpu/driver/nvrtc.hpp"
#include "gpu/executor.hpp"
#include "gpu/jit/kernel_cache.hpp"
#include "gpu/memory/residency.hpp"
#include "interp/util/error.hpp"
#include "tests/gpu/emulator/emulator.hpp"
#include "tests/gpu/support/hist_suite.hpp"
#include "tests/gpu/support/scan_suite.hpp"
#include "tests/gpu/support/steps.hpp"

using namespace thorn;
namespace test = thorn::gpu::test;

namespace {

int reps = 10;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

template <class F>
double time_ms(F&& f, int warmups = 1) {
  for (int i = 0; i < warmups; ++i) f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(t);
}

struct PeerKey {
  std::string name;
  int64_t segments, n;
  bool operator<(const PeerKey& o) const { return std::tie(name, segments, n) < std::tie(o.name, o.segments, o.n); }
};
std::map<PeerKey, double> peer;  // ms

void load_peer(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    fmt::print("no peer results at {}: ratios omitted\n", path);
    return;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::regex entry(R"re(\{"name": "([a-z0-9_]+)", "segments": (\d+), "n": (\d+), "ms": ([0-9.eE+-]+))re");
  for (std::sregex_iterator it(text.begin(), text.end(), entry), end; it != end; ++it)
    peer[{(*it)[1], std::stoll((*it)[2]), std::stoll((*it)[3])}] = std::stod((*it)[4]);
  fmt::print("loaded {} peer results from {}\n", peer.size(), path);
}

std::vector<std::string> json;

void record(const std::string& name, const std::string& peer_name, int64_t segments, int64_t n, double bytes,
            double ms, const std::string& note = "") {
  double gbs = bytes / (ms * 1e-3) / 1e9;
  auto it = peer.find({peer_name, segments, n});
  std::string ratio = "";
  double r = 0;
  if (it != peer.end() && it->second > 0) {
    r = ms / it->second;
    ratio = fmt::format("{:6.2f}x {}", r, peer_name);
  }
  fmt::print("{:<22} [{:>9}][{:>9}] {:10.4f} ms {:8.1f} GB/s  {}{}\n", name, segments, n, ms, gbs, ratio,
             note.empty() ? "" : "  (" + note + ")");
  json.push_back(fmt::format(
      R"({{"name": "{}", "segments": {}, "n": {}, "ms": {:.6f}, "gbs": {:.2f}, "peer": "{}", "peer_ms": {:.6f}, "ratio": {:.4f}}})",
      name, segments, n, ms, gbs, peer_name, it == peer.end() ? 0.0 : it->second, r));
}

BufferPtr filled(Prim t, int64_t count) {
  auto b = std::make_shared<Buffer>(t, count);
  if (t == Prim::F32) {
    float* p = b->data_mut<float>();
    for (int64_t i = 0; i < count; ++i) p[i] = float(int64_t(i * 2654435761u % 17) - 8) / 4.0f;
  } else {
    int32_t* p = b->data_mut<int32_t>();
    for (int64_t i = 0; i < count; ++i) p[i] = int32_t(i * 2654435761u % 201) - 100;
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  std::string peer_path, out_path = "thorn_gpu_bench.json";
  int log_n = 28;
  bool emulate = false, hist_fixed = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--peer" && i + 1 < argc) peer_path = argv[++i];
    else if (a == "--out" && i + 1 < argc) out_path = argv[++i];
    else if (a == "--log-n" && i + 1 < argc) log_n = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--emulate") emulate = true;
    else if (a == "--hist-fixed") hist_fixed = true;
    else {
      fmt::print(stderr, "usage: {} [--peer FILE] [--out FILE] [--log-n N] [--reps R] [--emulate] [--hist-fixed]\n",
                 argv[0]);
      return 2;
    }
  }
  if (emulate) gpu::emu::install({});
  std::string why;
  gpu::GpuBackend* gpu = gpu::GpuBackend::get(&why);
  if (!gpu) {
    fmt::print(stderr, "no usable GPU: {}\n", why);
    return 77;
  }
  const gpu::DeviceProps& props = gpu->props();
  fmt::print("thorn GPU benchmarks on {}\n{}", gpu::availability(), props.details());
  if (!peer_path.empty()) load_peer(peer_path);
  const int64_t N = int64_t(1) << log_n;

  try {
    // ---- map a*x+y vs a device-to-device copy
    BufferPtr x = filled(Prim::F32, N), y = filled(Prim::F32, N);
    const gpu::Device& dev = *gpu::Device::get();
    for (int lg : {log_n - 2, log_n}) {
      int64_t n = int64_t(1) << lg;
      plan::Plan p;
      p.buffers = {test::desc(Prim::F32, N, "", true), test::desc(Prim::F32, N, "", true), test::desc(Prim::F32, n, "", false)};
      plan::Step st = test::map_axpy(Prim::F32, 1, n);
      st.reads = {0, 1};
      st.writes = {2};
      p.steps.push_back(std::move(st));
      std::vector<BufferPtr> bufs = {x, y, nullptr};
      double ms = time_ms([&] { gpu->execute(p, bufs); });
      // The peer: the same bytes moved by the copy engine.
      CUdeviceptr src = gpu::resident_for_read(dev, *x);
      CUdeviceptr dst = gpu::resident_for_write(dev, *bufs[2]);
      double copy_ms = time_ms([&] {
        CU_CALL(cuMemcpyDtoDAsync, dst, src, size_t(n) * 4, dev.stream());
        CU_CALL(cuStreamSynchronize, dev.stream());
      });
      peer[{"copy_d2d_f32_thorn", 1, n}] = copy_ms;
      record("copy_d2d_f32", "", 1, n, 2.0 * double(n) * 4, copy_ms, "driver copy, this run");
      record("map_axpy_f32", "copy_d2d_f32_thorn", 1, n, 3.0 * double(n) * 4, ms,
             fmt::format("copy moves 2 of these 3 words per element; cub_peer copy: {}",
                         peer.count({"copy_d2d_f32", 1, n}) ? fmt::format("{:.4f} ms", peer[{"copy_d2d_f32", 1, n}]) : "-"));
    }
    x.reset();
    y.reset();

    // ---- 1-D and segmented reductions
    BufferPtr xi = filled(Prim::I32, N), xf = filled(Prim::F32, N);
    auto segred_plan = [&](Prim t, test::RedOp op, bool comm, int64_t segs, int64_t n) {
      plan::Plan p;
      p.buffers = {test::desc(t, N, "", true)};
      plan::Step st = test::segred(t, op, comm, 0, segs, n);
      st.reads = {0};
      for (int i = 0; i < test::red_op_arity(op); ++i) {
        st.writes.push_back(int(p.buffers.size()));
        p.buffers.push_back(test::desc(t, segs, "", false));
      }
      p.steps.push_back(std::move(st));
      return p;
    };
    for (Prim t : {Prim::I32, Prim::F32}) {
      plan::Plan p = segred_plan(t, test::RedOp::Sum, true, 1, N);
      std::vector<BufferPtr> bufs = {t == Prim::I32 ? xi : xf, nullptr};
      double ms = time_ms([&] { gpu->execute(p, bufs); });
      record(fmt::format("reduce_sum_{}", prim_name(t)), fmt::format("reduce_sum_{}", prim_name(t)), 1, N,
             double(N) * 4, ms);
    }
    for (int k = 0; k <= log_n; ++k) {
      int64_t segs = int64_t(1) << k, n = int64_t(1) << (log_n - k);
      plan::Plan ps = segred_plan(Prim::F32, test::RedOp::Sum, true, segs, n);
      std::vector<BufferPtr> bs = {xf, nullptr};
      double ms = time_ms([&] { gpu->execute(ps, bs); });
      record("segred_sum_f32", "segred_sum_f32", segs, n, double(N) * 4 + double(segs) * 4, ms);
      plan::Plan pm = segred_plan(Prim::I32, test::RedOp::Mss, false, segs, n);
      std::vector<BufferPtr> bm = {xi, nullptr, nullptr, nullptr, nullptr};
      double mms = time_ms([&] { gpu->execute(pm, bm); });
      record("segred_mss_i32", "segred_mss_i32", segs, n, double(N) * 4 + double(segs) * 16, mms, "non-commutative");
    }
    // ---- scans (gpu/codegen/scan.cpp)
    auto scan_plan = [&](Prim t, int64_t segs, int64_t n) {
      plan::Plan p;
      p.buffers = {test::desc(t, N, "", true), test::desc(t, segs * n, "", false)};
      plan::Step st = test::segscan(t, test::ScanOp::Sum, segs, n);
      st.reads = {0};
      st.writes = {1};
      p.steps.push_back(std::move(st));
      return p;
    };
    for (int lg : {log_n - 4, log_n - 2, log_n}) {
      if (lg < 0) continue;
      int64_t n = int64_t(1) << lg;
      for (Prim t : {Prim::I32, Prim::F32}) {
        plan::Plan p = scan_plan(t, 1, n);
        std::vector<BufferPtr> bufs = {t == Prim::I32 ? xi : xf, nullptr};
        double ms = time_ms([&] { gpu->execute(p, bufs); });
        if (t == Prim::I32) {
          // The copy of the same bytes, on this run's device and stream.
          CUdeviceptr src = gpu::resident_for_read(dev, *xi);
          CUdeviceptr dst = gpu::resident_for_write(dev, *bufs[1]);
          double copy_ms = time_ms([&] {
            CU_CALL(cuMemcpyDtoDAsync, dst, src, size_t(n) * 4, dev.stream());
            CU_CALL(cuStreamSynchronize, dev.stream());
          });
          record("copy_d2d_i32", "", 1, n, 2.0 * double(n) * 4, copy_ms, "driver copy, this run");
          peer[{"copy_d2d_scan", 1, n}] = copy_ms;
        }
        std::string name = fmt::format("scan_sum_{}", prim_name(t));
        record(name, name, 1, n, 2.0 * double(n) * 4, ms,
               fmt::format("{:.0f}% of the copy's bandwidth", 100.0 * peer[{"copy_d2d_scan", 1, n}] / ms));
      }
    }
    for (int k = 0; k <= log_n; ++k) {
      int64_t segs = int64_t(1) << k, n = int64_t(1) << (log_n - k);
      plan::Plan p = scan_plan(Prim::I32, segs, n);
      std::vector<BufferPtr> bufs = {xi, nullptr};
      double ms = time_ms([&] { gpu->execute(p, bufs); });
      record("segscan_sum_i32", "segscan_sum_i32", segs, n, 2.0 * double(N) * 4, ms,
             fmt::format("{:.0f}% of the copy's bandwidth", 100.0 * peer[{"copy_d2d_scan", 1, N}] / ms));
    }
    xi.reset();
    xf.reset();

    // ---- histograms (hist_bench.cpp)
    {
      bench::HistBenchHooks hooks;
      hooks.time_ms = [](const std::function<void()>& f, int r) {
        const int saved = reps;
        if (r > 0) reps = r;
        const double ms = time_ms(f);
        reps = saved;
        return ms;
      };
      hooks.record = [](const std::string& name, const std::string& peer_name, int64_t segments, int64_t n,
                        double bytes, double ms, const std::string& note) {
        record(name, peer_name, segments, n, bytes, ms, note);
      };
      bench::run_hist_benchmarks(*gpu, std::min<int64_t>(50000000, N), !emulate || hist_fixed, hooks);
    }

    // ---- compilation, caches, launch overhead
    const gpu::Nvrtc& nv = gpu::Nvrtc::get();
    gpu::Nvrtc::Target target = nv.target_for(props.arch());
    for (auto [name, ks] : std::vector<std::pair<std::string, gpu::cg::KernelSource>>{
             {"nvrtc_map", gpu::cg::gen_segmap(test::map_axpy(Prim::F32, 1, 1000), {})},
             {"nvrtc_segred_large", gpu::cg::gen_segred(test::segred(Prim::I32, test::RedOp::Mss, false, 0, 1, 1000),
                                                        gpu::cg::RedStrategy::Large, true, {})},
             {"nvrtc_segscan", gpu::cg::gen_segscan(test::segscan(Prim::I32, test::ScanOp::Sum, 1, 1000), 12, {})},
             {"nvrtc_seghist", gpu::cg::gen_seghist(test::seghist(Prim::I32, test::HistOp::ArgMax, 1, 1000, 100),
                                                    gpu::launch::HistAtomic::Lock, {})}}) {
      std::vector<double> t;
      for (int r = 0; r < std::max(3, reps / 2); ++r) t.push_back(gpu::jit::compile_uncached(ks, target).ms);
      fmt::print("{:<22} {:10.1f} ms (median of {} compilations, {})\n", name, median(t), t.size(), target.option());
      json.push_back(fmt::format(R"({{"name": "{}", "ms": {:.3f}}})", name, median(t)));
    }
    if (!emulate) {
      std::string dir = (std::filesystem::temp_directory_path() / "thorn-bench-cache").string();
      std::filesystem::remove_all(dir);
      gpu::jit::KernelCache cache{gpu::jit::DiskCache(dir)};
      gpu::cg::KernelSource ks = gpu::cg::gen_segmap(test::map_axpy(Prim::F64, 1, 1000), {});
      auto bin = cache.binary(ks, props.arch());
      double disk = time_ms([&] {
        cache.forget_memory();
        cache.binary(ks, props.arch());
      });
      double load = time_ms([&] {
        CUmodule m;
        CU_CALL(cuModuleLoadData, &m, bin->data.data());
        CU_CALL(cuModuleUnload, m);
      });
      fmt::print("{:<22} {:10.3f} ms (read + checksum of a {} KiB cubin)\n", "disk_cache_load", disk,
                 bin->data.size() / 1024);
      fmt::print("{:<22} {:10.3f} ms (cuModuleLoadData)\n", "module_load", load);
      json.push_back(fmt::format(R"({{"name": "disk_cache_load", "ms": {:.4f}}})", disk));
      json.push_back(fmt::format(R"({{"name": "module_load", "ms": {:.4f}}})", load));
      std::filesystem::remove_all(dir);
    }
    {
      plan::Plan p;
      p.buffers = {test::desc(Prim::F32, 1, "", true), test::desc(Prim::F32, 1, "", true), test::desc(Prim::F32, 1, "", false)};
      plan::Step st = test::map_axpy(Prim::F32, 1, 1);
      st.reads = {0, 1};
      st.writes = {2};
      p.steps.push_back(std::move(st));
      std::vector<BufferPtr> bufs = {filled(Prim::F32, 1), filled(Prim::F32, 1), nullptr};
      reps *= 10;
      double ms = time_ms([&] { gpu->execute(p, bufs); }, 5);
      reps /= 10;
      fmt::print("{:<22} {:10.1f} us (execute() of a one-element map: codegen, cache lookups, launch, sync)\n",
                 "warm_launch_overhead", ms * 1000);
      json.push_back(fmt::format(R"({{"name": "warm_launch_overhead", "ms": {:.5f}}})", ms));
    }
  } catch (const Error& e) {
    fmt::print(stderr, "benchmark failed: {}\n", e.render());
    return 1;
  }

  std::ofstream out(out_path);
  out << fmt::format("{{\"device\": \"{}\", \"log_n\": {}, \"reps\": {}, \"results\": [\n", props.name, log_n, reps);
  for (size_t i = 0; i < json.size(); ++i) out << "  " << json[i] << (i + 1 < json.size() ? ",\n" : "\n");
  out << "]}\n";
  fmt::print("wrote {}\n{}", out_path, gpu->report());
  return 0;
}
