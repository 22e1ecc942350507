// The histogram peers of cub_peer.cu (included there, after time_ms and
// record): over N pseudo-random non-negative ints (the same ones
// thorn_gpu_bench's hist_bench.cpp makes) with bin (x % max(1, H/RF)) * RF,
//  - (+) of ones: cub::DeviceHistogram::HistogramEven on the bins;
//  - saturating add of x & 255 and argmax of (x & 0xffff, index): the
//    paper's alternative for operators CUB's histograms lack, a radix sort
//    of (bin, value) pairs, cub::DeviceReduce::ReduceByKey, and a scatter
//    of the runs into the histogram.
// Each timing includes computing the bins (thorn fuses that into its kernel).
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

namespace hist_peer {

__global__ void fill_random(int* p, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long z = (unsigned long long)i * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    p[i] = int((z ^ (z >> 31)) & 0x7fffffff);
  }
}

struct BinOf {
  long long q, rf;
  __host__ __device__ int operator()(int x) const { return int((x % q) * rf); }
};

struct ArgMax {
  int v, i;
};
struct ArgMaxOp {
  __host__ __device__ ArgMax operator()(const ArgMax& a, const ArgMax& b) const {
    return (a.v > b.v || (a.v == b.v && a.i < b.i)) ? a : b;
  }
};
struct SatAddOp {
  __host__ __device__ int operator()(int a, int b) const { return min(a + b, (1 << 24) - 1); }
};

__global__ void pairs_satadd(const int* x, long long n, BinOf bin, int* keys, int* vals) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    keys[i] = bin(x[i]);
    vals[i] = x[i] & 255;
  }
}
__global__ void pairs_argmax(const int* x, long long n, BinOf bin, int* keys, ArgMax* vals) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    keys[i] = bin(x[i]);
    vals[i] = ArgMax{x[i] & 0xffff, int(i)};
  }
}
// The runs' aggregates into the histogram (one run per bin: no conflicts).
template <class T, class Op>
__global__ void scatter_runs(const int* unique, const T* aggr, const int* runs, T* hist, Op op) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < *runs; r += gridDim.x * blockDim.x)
    hist[unique[r]] = op(hist[unique[r]], aggr[r]);
}

int bits_for(long long bins) {
  int b = 1;
  while ((1ll << b) < bins) ++b;
  return b;
}

// Sort + reduce-by-key + scatter for values of type T made by `make`.
template <class T, class Op, class Make>
double sort_reduce(const int* d_x, long long n, BinOf bin, long long bins, Op op, Make make) {
  int *keys, *keys_out, *unique, *runs;
  T *vals, *vals_out, *aggr, *hist;
  CHECK(cudaMalloc(&keys, n * sizeof(int)));
  CHECK(cudaMalloc(&keys_out, n * sizeof(int)));
  CHECK(cudaMalloc(&unique, n * sizeof(int)));
  CHECK(cudaMalloc(&runs, sizeof(int)));
  CHECK(cudaMalloc(&vals, n * sizeof(T)));
  CHECK(cudaMalloc(&vals_out, n * sizeof(T)));
  CHECK(cudaMalloc(&aggr, n * sizeof(T)));
  CHECK(cudaMalloc(&hist, bins * sizeof(T)));
  CHECK(cudaMemset(hist, 0, bins * sizeof(T)));
  size_t sort_bytes = 0, red_bytes = 0;
  CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, keys_out, vals, vals_out, (int)n, 0, bits_for(bins)));
  CHECK(cub::DeviceReduce::ReduceByKey(nullptr, red_bytes, keys_out, unique, vals_out, aggr, runs, op, (int)n));
  void* temp;
  CHECK(cudaMalloc(&temp, std::max(sort_bytes, red_bytes)));
  double ms = time_ms([&] {
    make(keys, vals);
    size_t sb = sort_bytes, rb = red_bytes;
    CHECK(cub::DeviceRadixSort::SortPairs(temp, sb, keys, keys_out, vals, vals_out, (int)n, 0, bits_for(bins)));
    CHECK(cub::DeviceReduce::ReduceByKey(temp, rb, keys_out, unique, vals_out, aggr, runs, op, (int)n));
    scatter_runs<<<1024, 256>>>(unique, aggr, runs, hist, op);
  });
  for (void* p : {(void*)keys, (void*)keys_out, (void*)unique, (void*)runs, (void*)vals, (void*)vals_out, (void*)aggr,
                  (void*)hist, temp})
    CHECK(cudaFree(p));
  return ms;
}

void run(long long n) {
  const long long sizes[] = {31, 127, 505, 2048, 6144, 12288, 24576, 49152, 196608, 393216, 786432, 1572864};
  int* d_x;
  int* d_hist;
  CHECK(cudaMalloc(&d_x, n * sizeof(int)));
  CHECK(cudaMalloc(&d_hist, 1572864 * sizeof(int)));
  fill_random<<<1024, 256>>>(d_x, n);
  CHECK(cudaDeviceSynchronize());
  void* temp = nullptr;
  size_t temp_bytes = 0;
  for (long long rf : {1ll, 63ll})
    for (long long bins : sizes) {
      BinOf bin{std::max(1ll, bins / rf), rf};
      auto samples = thrust::make_transform_iterator(d_x, bin);
      size_t need = 0;
      CHECK(cub::DeviceHistogram::HistogramEven(nullptr, need, samples, d_hist, int(bins + 1), 0, int(bins), n));
      if (need > temp_bytes) {
        if (temp) CHECK(cudaFree(temp));
        CHECK(cudaMalloc(&temp, need));
        temp_bytes = need;
      }
      record("cub_histogram_even_rf" + std::to_string(rf), bins, n, double(n) * 4, time_ms([&] {
               CHECK(cub::DeviceHistogram::HistogramEven(temp, need, samples, d_hist, int(bins + 1), 0, int(bins), n));
             }));
      record("cub_sort_reduce_satadd_rf" + std::to_string(rf), bins, n, double(n) * 4,
             sort_reduce<int>(d_x, n, bin, bins, SatAddOp(), [&](int* k, int* v) {
               pairs_satadd<<<1024, 256>>>(d_x, n, bin, k, v);
             }));
      record("cub_sort_reduce_argmax_rf" + std::to_string(rf), bins, n, double(n) * 4,
             sort_reduce<ArgMax>(d_x, n, bin, bins, ArgMaxOp(), [&](int* k, ArgMax* v) {
               pairs_argmax<<<1024, 256>>>(d_x, n, bin, k, v);
             }));
    }
  if (temp) CHECK(cudaFree(temp));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_hist));
}

}  // namespace hist_peer
