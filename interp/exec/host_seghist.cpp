// SegHist on the host: (batched) generalised histograms.
//
// Histograms are updated in register representation in working arrays
// loaded from the destinations and stored back at the end. Work splits:
//  - many segments: threads own whole segments, hence disjoint bins, and
//    update them directly;
//  - few segments and much input: every thread fills a private
//    subhistogram (initialised to the neutral element) from its share of
//    the input; the subhistograms are then merged into the destination,
//    bin ranges in parallel (no atomics anywhere);
//  - otherwise one thread updates the destination directly.
// Out-of-range bins are ignored.
// The lane loops must be vectorised: -O2 (the build default) leaves them scalar.
#pragma GCC optimize("O3")
#include <algorithm>
#include <cstring>

#include "interp/exec/host_step.hpp"

namespace thorn::host {

namespace {

constexpr int64_t kMoveChunk = int64_t(1) << 20;

struct Hist {
  explicit Hist(StepEnv& e) : env(e) {}
  StepEnv& env;
  int k = 0;
  int64_t size = 0, bins = 0;
  std::vector<Prim> types;

  const Program& elem() const { return *env.elem; }
  size_t width(int r) const { return size_t(reg_bytes(types[size_t(r)])); }

  // Applies positions [f0, f1) of the flat input to the histograms `h`
  // (k arrays, each segments*bins values in register representation).
  void update(int worker, int64_t f0, int64_t f1, const std::vector<std::byte*>& h) const {
    Frame& fr = env.elem_frame(worker);
    OpApply& op = env.op_apply(worker);
    std::vector<std::byte*> acc(static_cast<size_t>(k));
    std::vector<const std::byte*> x(static_cast<size_t>(k));
    for (int64_t f = f0; f < f1; f += kLanes) {
      int n = int(std::min<int64_t>(kLanes, f1 - f));
      run_element_tile(fr, f, n, size);
      const int64_t* bin = fr.in<int64_t>(elem().results()[0]);
      const std::byte* vals[16];
      std::vector<const std::byte*> vals_big;
      const std::byte** v = vals;
      if (k > 16) {
        vals_big.resize(static_cast<size_t>(k));
        v = vals_big.data();
      }
      for (int r = 0; r < k; ++r) v[r] = fr.regs[size_t(elem().results()[size_t(r + 1)])];
      // Lanes of one segment at a time (a tile may span several).
      for (int l = 0; l < n;) {
        int64_t s = (f + l) / size;
        int end = int(std::min<int64_t>(n, (s + 1) * size - f));
        if (env.fast.ok) {
          for (int r = 0; r < k; ++r)
            env.fast.hist[size_t(r)](h[size_t(r)] + size_t(s * bins) * width(r), bin + l,
                                     v[r] + size_t(l) * width(r), end - l, bins);
        } else {
          for (int i = l; i < end; ++i) {
            int64_t b = bin[i];
            if (b < 0 || b >= bins) continue;
            for (int r = 0; r < k; ++r) {
              acc[size_t(r)] = h[size_t(r)] + size_t(s * bins + b) * width(r);
              x[size_t(r)] = v[r] + size_t(i) * width(r);
            }
            op.apply(acc.data(), x.data(), 1);
            for (int r = 0; r < k; ++r) std::memmove(acc[size_t(r)], op.result(r), width(r));
          }
        }
        l = end;
      }
    }
  }

  // dst[i] = op(dst[i], src[i]) for i in [b, e).
  void merge(int worker, const std::vector<std::byte*>& dst, const std::vector<std::byte*>& src,
             int64_t b, int64_t e) const {
    OpApply& op = env.op_apply(worker);
    std::vector<std::byte*> a(static_cast<size_t>(k));
    std::vector<const std::byte*> x(static_cast<size_t>(k));
    for (int64_t i = b; i < e; i += kLanes) {
      int n = int(std::min<int64_t>(kLanes, e - i));
      for (int r = 0; r < k; ++r) {
        a[size_t(r)] = dst[size_t(r)] + size_t(i) * width(r);
        x[size_t(r)] = src[size_t(r)] + size_t(i) * width(r);
      }
      if (env.fast.ok) {
        for (int r = 0; r < k; ++r) env.fast.combine[size_t(r)](a[size_t(r)], x[size_t(r)], n);
      } else {
        op.apply(a.data(), x.data(), n);
        for (int r = 0; r < k; ++r) std::memmove(a[size_t(r)], op.result(r), size_t(n) * width(r));
      }
    }
  }
};

std::vector<std::byte*> pointers(std::vector<std::vector<std::byte>>& arrays) {
  std::vector<std::byte*> p;
  for (auto& a : arrays) p.push_back(a.data());
  return p;
}

}  // namespace

void run_seghist(StepEnv& env) {
  const plan::Step& st = env.step;
  Hist hs(env);
  hs.k = int(env.op->results().size());
  hs.size = st.segment_size;
  hs.bins = st.bins;
  for (int r = 0; r < hs.k; ++r) hs.types.push_back(env.op->result_type(size_t(r)));
  int64_t segments = st.segments, total = env.total(), hist_len = st.segments * st.bins;
  if (total == 0 || hist_len == 0) return;
  ThreadPool& pool = ThreadPool::instance();
  bool par = env.parallel(total);

  // Working copies of the destinations.
  std::vector<std::vector<std::byte>> work(size_t(hs.k));
  for (int r = 0; r < hs.k; ++r) {
    work[size_t(r)].resize(size_t(hist_len) * hs.width(r));
    for (int64_t i = 0; i < hist_len; i += kMoveChunk)
      load_lanes(hs.types[size_t(r)], env.write_buffer(size_t(r)), i,
                 work[size_t(r)].data() + size_t(i) * hs.width(r), int(std::min(kMoveChunk, hist_len - i)));
  }
  auto wp = pointers(work);

  if (par && segments >= 2 * int64_t(env.threads)) {
    int64_t tasks = std::min<int64_t>(segments, int64_t(env.threads) * 4);
    int64_t chunk = (segments + tasks - 1) / tasks;
    tasks = (segments + chunk - 1) / chunk;
    pool.parallel_for(tasks, [&](int64_t t, int worker) {
      int64_t s0 = t * chunk, s1 = std::min(segments, s0 + chunk);
      hs.update(worker, s0 * hs.size, s1 * hs.size, wp);
    });
  } else if (par && total >= 2 * hist_len) {
    int64_t nsub = env.threads;
    // Private subhistograms, neutral-initialised.
    LaneSlots ne(hs.k);
    env.fill_neutral(ne);
    std::vector<std::vector<std::vector<std::byte>>> subs(static_cast<size_t>(nsub));
    pool.parallel_for(nsub, [&](int64_t t, int) {
      auto& sub = subs[size_t(t)];
      sub.resize(size_t(hs.k));
      for (int r = 0; r < hs.k; ++r) {
        size_t w = hs.width(r);
        sub[size_t(r)].resize(size_t(hist_len) * w);
        std::byte* d = sub[size_t(r)].data();
        for (int64_t i = 0; i < hist_len; ++i) std::memcpy(d + size_t(i) * w, ne.ptr(r), w);
      }
    });
    int64_t chunk = (total + nsub - 1) / nsub;
    chunk = (chunk + kLanes - 1) / kLanes * kLanes;
    pool.parallel_for(nsub, [&](int64_t t, int worker) {
      int64_t f0 = t * chunk, f1 = std::min(total, f0 + chunk);
      if (f0 < f1) hs.update(worker, f0, f1, pointers(subs[size_t(t)]));
    });
    int64_t mtasks = std::min<int64_t>(int64_t(env.threads) * 4, (hist_len + kLanes - 1) / kLanes);
    int64_t mchunk = (hist_len + mtasks - 1) / mtasks;
    mchunk = (mchunk + kLanes - 1) / kLanes * kLanes;
    mtasks = (hist_len + mchunk - 1) / mchunk;
    pool.parallel_for(mtasks, [&](int64_t t, int worker) {
      int64_t b = t * mchunk, e = std::min(hist_len, b + mchunk);
      for (int64_t q = 0; q < nsub; ++q) hs.merge(worker, wp, pointers(subs[size_t(q)]), b, e);
    });
  } else {
    hs.update(0, 0, total, wp);
  }

  for (int r = 0; r < hs.k; ++r)
    for (int64_t i = 0; i < hist_len; i += kMoveChunk)
      store_lanes(hs.types[size_t(r)], env.write_buffer(size_t(r)), i,
                  work[size_t(r)].data() + size_t(i) * hs.width(r), int(std::min(kMoveChunk, hist_len - i)));
}

}  // namespace thorn::host
