// The CUB side of the GPU benchmarks (bench/gpu/run.sh): the same reductions,
// scans and histograms (cub_hist.cuh) thorn_gpu_bench runs, done by CUB, timed with CUDA events (median of
// repetitions after a warm-up), written as JSON for thorn_gpu_bench to
// compute ratios against.
//
//   cub_peer [--out FILE] [--log-n 28] [--reps 10]
//
// Built by bench/gpu/build.sh with nvcc -arch=sm_90 -O3.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

namespace {

int reps = 10;
std::vector<std::string> results;

template <class F>
double time_ms(F&& f) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  f();  // warm-up (and CUB's first-call setup)
  CHECK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return t[t.size() / 2];
}

void record(const std::string& name, long long segments, long long n, double bytes, double ms) {
  double gbs = bytes / (ms * 1e-3) / 1e9;
  std::printf("%-34s [%lld][%lld] %10.4f ms %8.1f GB/s\n", name.c_str(), segments, n, ms, gbs);
  char buf[512];
  std::snprintf(buf, sizeof buf, "{\"name\": \"%s\", \"segments\": %lld, \"n\": %lld, \"ms\": %.6f, \"gbs\": %.2f}",
                name.c_str(), segments, n, ms, gbs);
  results.push_back(buf);
}

// Maximum segment sum: (mss, mis, mcs, ts), associative, not commutative.
struct Mss {
  int mss, mis, mcs, ts;
};
struct ToMss {
  __host__ __device__ Mss operator()(int x) const {
    int p = x > 0 ? x : 0;
    return {p, p, p, x};
  }
};
struct MssOp {
  __host__ __device__ Mss operator()(const Mss& a, const Mss& b) const {
    return {max(max(a.mss, b.mss), a.mcs + b.mis), max(a.mis, a.ts + b.mis), max(b.mcs, a.mcs + b.ts), a.ts + b.ts};
  }
};

// The segment of element i in [2^k][...]: the keys of a regular segmented
// scan done with InclusiveSumByKey (CUB has no regular segmented scan).
struct SegmentOf {
  int log_n;
  __host__ __device__ int operator()(long long i) const { return int(i >> log_n); }
};

__global__ void fill_offsets(int* begin, int* end, long long segments, long long n) {
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s < segments; s += (long long)gridDim.x * blockDim.x) {
    begin[s] = int(s * n);
    end[s] = int((s + 1) * n);
  }
}

__global__ void fill(int* p, long long count) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x)
    p[i] = int((i * 2654435761u) % 201) - 100;
}

}  // namespace

#include "cub_hist.cuh"

int main(int argc, char** argv) {
  std::string out = "cub_peer.json";
  int log_n = 28;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--log-n" && i + 1 < argc) log_n = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--out FILE] [--log-n N] [--reps R]\n", argv[0]);
      return 2;
    }
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("CUB peer on %s, CUDA runtime %d\n", prop.name, CUDART_VERSION);
  const long long N = 1ll << log_n;

  int *d_i = nullptr, *d_oi = nullptr;
  float *d_f = nullptr, *d_of = nullptr, *d_copy = nullptr;
  CHECK(cudaMalloc(&d_i, N * sizeof(int)));
  CHECK(cudaMalloc(&d_f, N * sizeof(float)));
  CHECK(cudaMalloc(&d_copy, N * sizeof(float)));
  CHECK(cudaMalloc(&d_oi, N * sizeof(int)));
  CHECK(cudaMalloc(&d_of, N * sizeof(float)));
  fill<<<1024, 256>>>(d_i, N);
  CHECK(cudaMemset(d_f, 0, N * sizeof(float)));
  CHECK(cudaDeviceSynchronize());

  // Device-to-device copies: the bandwidth a map can hope for.
  for (int lg : {log_n - 2, log_n}) {
    long long n = 1ll << lg;
    double ms = time_ms([&] { CHECK(cudaMemcpyAsync(d_copy, d_f, n * sizeof(float), cudaMemcpyDeviceToDevice)); });
    record("copy_d2d_f32", 1, n, 2.0 * n * sizeof(float), ms);
  }

  // 1-D reductions.
  void* temp = nullptr;
  size_t temp_bytes = 0, need = 0;
  auto ensure = [&](size_t bytes) {
    if (bytes > temp_bytes) {
      if (temp) CHECK(cudaFree(temp));
      CHECK(cudaMalloc(&temp, bytes));
      temp_bytes = bytes;
    }
  };
  CHECK(cub::DeviceReduce::Sum(nullptr, need, d_i, d_oi, N));
  ensure(need);
  record("reduce_sum_i32", 1, N, double(N) * 4,
         time_ms([&] { CHECK(cub::DeviceReduce::Sum(temp, need, d_i, d_oi, N)); }));
  CHECK(cub::DeviceReduce::Sum(nullptr, need, d_f, d_of, N));
  ensure(need);
  record("reduce_sum_f32", 1, N, double(N) * 4,
         time_ms([&] { CHECK(cub::DeviceReduce::Sum(temp, need, d_f, d_of, N)); }));

  // Segmented reductions [2^k][2^(N-k)].
  int *d_begin = nullptr, *d_end = nullptr;
  CHECK(cudaMalloc(&d_begin, N * sizeof(int)));
  CHECK(cudaMalloc(&d_end, N * sizeof(int)));
  Mss* d_mss = nullptr;
  CHECK(cudaMalloc(&d_mss, N * sizeof(Mss)));
  auto mss_in = thrust::make_transform_iterator(d_i, ToMss());
  for (int k = 0; k <= log_n; ++k) {
    long long segs = 1ll << k, n = 1ll << (log_n - k);
    fill_offsets<<<1024, 256>>>(d_begin, d_end, segs, n);
    CHECK(cudaDeviceSynchronize());
    CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, need, d_f, d_of, segs, d_begin, d_end));
    ensure(need);
    record("segred_sum_f32", segs, n, double(N) * 4 + double(segs) * 4,
           time_ms([&] { CHECK(cub::DeviceSegmentedReduce::Sum(temp, need, d_f, d_of, segs, d_begin, d_end)); }));
    // CUB does not promise non-commutative operators; the timing is the point.
    CHECK(cub::DeviceSegmentedReduce::Reduce(nullptr, need, mss_in, d_mss, segs, d_begin, d_end, MssOp(), Mss{0, 0, 0, 0}));
    ensure(need);
    record("segred_mss_i32", segs, n, double(N) * 4 + double(segs) * 16, time_ms([&] {
             CHECK(cub::DeviceSegmentedReduce::Reduce(temp, need, mss_in, d_mss, segs, d_begin, d_end, MssOp(),
                                                      Mss{0, 0, 0, 0}));
           }));
  }

  // Scans: (+) at 2^(N-4), 2^(N-2), 2^N, and the copy of the same bytes.
  for (int lg : {log_n - 4, log_n - 2, log_n}) {
    if (lg < 0) continue;
    long long n = 1ll << lg;
    record("copy_d2d_i32", 1, n, 2.0 * n * 4,
           time_ms([&] { CHECK(cudaMemcpyAsync(d_oi, d_i, n * sizeof(int), cudaMemcpyDeviceToDevice)); }));
    CHECK(cub::DeviceScan::InclusiveSum(nullptr, need, d_i, d_oi, (int)n));
    ensure(need);
    record("scan_sum_i32", 1, n, 2.0 * n * 4,
           time_ms([&] { CHECK(cub::DeviceScan::InclusiveSum(temp, need, d_i, d_oi, (int)n)); }));
    CHECK(cub::DeviceScan::InclusiveSum(nullptr, need, d_f, d_of, (int)n));
    ensure(need);
    record("scan_sum_f32", 1, n, 2.0 * n * 4,
           time_ms([&] { CHECK(cub::DeviceScan::InclusiveSum(temp, need, d_f, d_of, (int)n)); }));
  }
  // Regular segmented scans [2^k][2^(N-k)], keys from the index.
  for (int k = 0; k <= log_n; ++k) {
    long long segs = 1ll << k, n = 1ll << (log_n - k);
    auto keys = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), SegmentOf{log_n - k});
    CHECK(cub::DeviceScan::InclusiveSumByKey(nullptr, need, keys, d_i, d_oi, (int)N));
    ensure(need);
    record("segscan_sum_i32", segs, n, 2.0 * N * 4,
           time_ms([&] { CHECK(cub::DeviceScan::InclusiveSumByKey(temp, need, keys, d_i, d_oi, (int)N)); }));
  }

  // Histograms (cub_hist.cuh): 5e7 inputs, or 2^log_n when fewer.
  hist_peer::run(std::min(50000000ll, N));

  FILE* f = std::fopen(out.c_str(), "w");
  if (!f) {
    std::perror(out.c_str());
    return 1;
  }
  std::fprintf(f, "{\"peer\": \"cub\", \"device\": \"%s\", \"results\": [\n", prop.name);
  for (size_t i = 0; i < results.size(); ++i) std::fprintf(f, "  %s%s\n", results[i].c_str(), i + 1 < results.size() ? "," : "");
  std::fprintf(f, "]}\n");
  std::fclose(f);
  std::printf("wrote %s\n", out.c_str());
  return 0;
}
