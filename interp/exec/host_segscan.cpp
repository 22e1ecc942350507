// SegScan on the host: inclusive scans within regular segments.
// Steps that only read contiguous inputs with a recognised operator take
// the direct path (host_direct.hpp); the general paths follow.
//
//  - small segments (size <= kLanes/8): one lane per segment, stepping
//    through positions, so the operator runs on many segments at once;
//  - otherwise tile by tile with a carry: recognised operators use a typed
//    sequential loop; others an in-tile Hillis-Steele scan (log2(kLanes)
//    operator runs per tile, each across the whole tile) and one more run
//    to add the carry;
//  - few large segments are split into parts scanned in parallel
//    (scan-then-propagate): each part is scanned from the neutral element,
//    the part totals are combined in order, and a second parallel pass
//    combines each part's prefix into its elements.
// The lane loops must be vectorised: -O2 (the build default) leaves them scalar.
#pragma GCC optimize("O3")
#include <algorithm>
#include <cstring>

#include "interp/exec/host_direct.hpp"
#include "interp/exec/host_partition.hpp"
#include "interp/exec/host_step.hpp"

namespace thorn::host {

namespace {

void scatter_lanes(Prim t, std::byte* dst, int first, int stride, const std::byte* src, int n) {
  size_t w = size_t(reg_bytes(t));
  for (int i = 0; i < n; ++i) std::memcpy(dst + (size_t(first) + size_t(i) * size_t(stride)) * w, src + size_t(i) * w, w);
}

void broadcast_lane0(Prim t, std::byte* lanes, int n) {
  size_t w = size_t(reg_bytes(t));
  for (int l = 1; l < n; ++l) std::memcpy(lanes + size_t(l) * w, lanes, w);
}

struct Scan {
  explicit Scan(StepEnv& e) : env(e) {}
  StepEnv& env;
  int k = 0;
  int64_t size = 0;
  std::vector<Prim> types;

  const Program& elem() const { return *env.elem; }
  size_t width(int r) const { return size_t(reg_bytes(types[size_t(r)])); }
  const std::byte* value(Frame& fr, int r) const { return fr.regs[size_t(elem().results()[size_t(r)])]; }

  std::vector<std::byte*> ptrs(LaneSlots& s, int lane = 0) const {
    std::vector<std::byte*> p(static_cast<size_t>(k));
    for (int r = 0; r < k; ++r) p[size_t(r)] = s.ptr(r) + size_t(lane) * width(r);
    return p;
  }

  // Inclusive scan of `cur` (n lanes) in place, starting from carry lane 0;
  // carry becomes the last value.
  void scan_tile(OpApply& op, LaneSlots& cur, LaneSlots& tmp, LaneSlots& carry, int n) const {
    if (n <= 0) return;
    if (env.fast.ok) {
      for (int r = 0; r < k; ++r) env.fast.scan[size_t(r)](cur.ptr(r), n, carry.ptr(r));
      return;
    }
    for (int d = 1; d < n; d *= 2) {
      auto lo = ptrs(cur, 0), hi = ptrs(cur, d);
      op.apply(lo.data(), hi.data(), n - d);
      for (int r = 0; r < k; ++r) {
        std::memcpy(tmp.ptr(r), cur.ptr(r), size_t(d) * width(r));
        std::memcpy(tmp.ptr(r) + size_t(d) * width(r), op.result(r), size_t(n - d) * width(r));
      }
      std::swap(cur, tmp);
    }
    // Everything so far was relative to the tile; now prepend the carry.
    LaneSlots& bc = tmp;
    for (int r = 0; r < k; ++r) {
      std::memcpy(bc.ptr(r), carry.ptr(r), width(r));
      broadcast_lane0(types[size_t(r)], bc.ptr(r), n);
    }
    auto a = ptrs(bc), b = ptrs(cur);
    op.apply(a.data(), b.data(), n);
    for (int r = 0; r < k; ++r) {
      std::memmove(cur.ptr(r), op.result(r), size_t(n) * width(r));
      std::memcpy(carry.ptr(r), cur.ptr(r) + size_t(n - 1) * width(r), width(r));
    }
  }

  // Scans positions [j0, j1) of segment s starting from `carry` (lane 0),
  // writing the outputs; carry ends as the total.
  // Recognised operators on types stored as they are computed scan straight
  // from the element's registers into the output buffer.
  bool direct() const {
    if (!env.fast.ok) return false;
    for (Prim t : types)
      if (t == Prim::F16) return false;
    return true;
  }

  void scan_range(int worker, int64_t s, int64_t j0, int64_t j1, LaneSlots& carry) const {
    Frame& fr = env.elem_frame(worker);
    OpApply& op = env.op_apply(worker);
    if (direct()) {
      for (int64_t j = j0; j < j1; j += kLanes) {
        int n = int(std::min<int64_t>(kLanes, j1 - j));
        int64_t f0 = s * size + j;
        run_element_tile(fr, f0, n, size);
        for (int r = 0; r < k; ++r)
          env.fast.scan_copy[size_t(r)](value(fr, r), env.write_buffer(size_t(r)).host_mut() + size_t(f0) * width(r), n,
                                        carry.ptr(r));
      }
      return;
    }
    LaneSlots cur(k), tmp(k);
    for (int64_t j = j0; j < j1; j += kLanes) {
      int n = int(std::min<int64_t>(kLanes, j1 - j));
      int64_t f0 = s * size + j;
      run_element_tile(fr, f0, n, size);
      for (int r = 0; r < k; ++r) std::memcpy(cur.ptr(r), value(fr, r), size_t(n) * width(r));
      scan_tile(op, cur, tmp, carry, n);
      for (int r = 0; r < k; ++r) store_lanes(types[size_t(r)], env.write_buffer(size_t(r)), f0, cur.ptr(r), n);
    }
  }

  // The fold of positions [j0, j1) of segment s into lane 0 of `total`
  // (recognised commutative operators only: lane accumulators).
  void reduce_range(int worker, int64_t s, int64_t j0, int64_t j1, LaneSlots& total) const {
    Frame& fr = env.elem_frame(worker);
    env.fill_neutral(total);
    int used = 0;
    for (int64_t j = j0; j < j1; j += kLanes) {
      int n = int(std::min<int64_t>(kLanes, j1 - j));
      run_element_tile(fr, s * size + j, n, size);
      for (int r = 0; r < k; ++r) env.fast.combine[size_t(r)](total.ptr(r), value(fr, r), n);
      used = std::max(used, n);
    }
    for (int w = used; w > 1;) {
      int h = w / 2;
      for (int r = 0; r < k; ++r)
        env.fast.combine[size_t(r)](total.ptr(r), total.ptr(r) + size_t(w - h) * width(r), h);
      w -= h;
    }
  }

  // out[i] = op(prefix, out[i]) for flat positions [f0, f1).
  void add_prefix(int worker, int64_t f0, int64_t f1, const LaneSlots& prefix) const {
    OpApply& op = env.op_apply(worker);
    LaneSlots bc(k), cur(k);
    for (int r = 0; r < k; ++r) {
      std::memcpy(bc.ptr(r), prefix.ptr(r), width(r));
      broadcast_lane0(types[size_t(r)], bc.ptr(r), kLanes);
    }
    auto a = ptrs(bc), b = ptrs(cur);
    for (int64_t f = f0; f < f1; f += kLanes) {
      int n = int(std::min<int64_t>(kLanes, f1 - f));
      for (int r = 0; r < k; ++r) load_lanes(types[size_t(r)], env.write_buffer(size_t(r)), f, cur.ptr(r), n);
      if (env.fast.ok) {
        for (int r = 0; r < k; ++r) env.fast.combine[size_t(r)](cur.ptr(r), bc.ptr(r), n);
        for (int r = 0; r < k; ++r) store_lanes(types[size_t(r)], env.write_buffer(size_t(r)), f, cur.ptr(r), n);
      } else {
        op.apply(a.data(), b.data(), n);
        for (int r = 0; r < k; ++r) store_lanes(types[size_t(r)], env.write_buffer(size_t(r)), f, op.result(r), n);
      }
    }
  }

  void small_segments(int worker, int64_t s0, int64_t s1) const {
    Frame& fr = env.elem_frame(worker);
    OpApply& op = env.op_apply(worker);
    int per_tile = int(kLanes / size);
    LaneSlots acc(k), x(k), out(k);
    auto accp = ptrs(acc);
    auto xp = ptrs(x);
    for (int64_t sb = s0; sb < s1; sb += per_tile) {
      int nseg = int(std::min<int64_t>(per_tile, s1 - sb));
      int n = int(nseg * size);
      run_element_tile(fr, sb * size, n, size);
      if (env.fast.ok) {
        for (int r = 0; r < k; ++r) {
          std::memcpy(out.ptr(r), value(fr, r), size_t(n) * width(r));
          env.fast.scan_rows[size_t(r)](out.ptr(r), nseg, int(size));
          store_lanes(types[size_t(r)], env.write_buffer(size_t(r)), sb * size, out.ptr(r), n);
        }
        continue;
      }
      for (int r = 0; r < k; ++r) {
        gather_lanes(types[size_t(r)], acc.ptr(r), value(fr, r), 0, int(size), nseg);
        scatter_lanes(types[size_t(r)], out.ptr(r), 0, int(size), acc.ptr(r), nseg);
      }
      for (int64_t j = 1; j < size; ++j) {
        for (int r = 0; r < k; ++r) gather_lanes(types[size_t(r)], x.ptr(r), value(fr, r), int(j), int(size), nseg);
        if (env.fast.ok) {
          for (int r = 0; r < k; ++r) env.fast.combine[size_t(r)](acc.ptr(r), x.ptr(r), nseg);
        } else {
          op.apply(accp.data(), xp.data(), nseg);
          for (int r = 0; r < k; ++r) std::memmove(acc.ptr(r), op.result(r), size_t(nseg) * width(r));
        }
        for (int r = 0; r < k; ++r) scatter_lanes(types[size_t(r)], out.ptr(r), int(j), int(size), acc.ptr(r), nseg);
      }
      for (int r = 0; r < k; ++r) store_lanes(types[size_t(r)], env.write_buffer(size_t(r)), sb * size, out.ptr(r), n);
    }
  }
};

// An element function worth computing twice rather than writing its
// results twice: a few straight-line instructions.
bool cheap_element(const Program& p) {
  if (p.blocks.size() != 1) return false;
  return p.blocks[0].instrs.size() <= 8;
}

}  // namespace

void run_segscan(StepEnv& env) {
  const plan::Step& st = env.step;
  Scan sc(env);
  sc.k = int(env.op->results().size());
  sc.size = st.segment_size;
  for (int r = 0; r < sc.k; ++r) sc.types.push_back(env.op->result_type(size_t(r)));
  int64_t segments = st.segments, size = st.segment_size;
  if (segments == 0 || size == 0) return;
  if (run_segscan_direct(env)) return;  // contiguous inputs, recognised operator
  ThreadPool& pool = ThreadPool::instance();
  bool par = env.parallel(env.total());

  // Typed row loops stay efficient up to half a tile per row.
  if (size * (env.fast.ok ? 2 : 8) <= kLanes && segments > 1) {
    for_chunks_of(segments, par ? int64_t(env.threads) * 4 : 1, kLanes / size,
                  [&](int64_t s0, int64_t s1, int worker) { sc.small_segments(worker, s0, s1); });
    return;
  }

  if (!par || segments >= 2 * int64_t(env.threads)) {
    for_chunks_of(segments, par ? int64_t(env.threads) * 4 : 1, 1, [&](int64_t s0, int64_t s1, int worker) {
      LaneSlots carry(sc.k);
      for (int64_t s = s0; s < s1; ++s) {
        env.fill_neutral(carry);
        sc.scan_range(worker, s, 0, size, carry);
      }
    });
    return;
  }

  Parts pt = split_parts(size, std::min<int64_t>(int64_t(env.threads) * 4, size / (4 * kLanes)), kLanes);
  int64_t parts = pt.count, part = pt.size;
  if (sc.direct() && cheap_element(*env.elem)) {
    // Reduce-then-scan: totals of all parts but the last (reads only), their
    // prefixes in order, then every part scanned from its prefix, writing
    // each output once. Recomputing a cheap element beats writing twice.
    std::vector<LaneSlots> carry(size_t(segments * parts));
    for (auto& c : carry) c.resize(sc.k);
    pool.parallel_for(segments * (parts - 1), [&](int64_t t, int worker) {
      int64_t s = t / (parts - 1), q = t % (parts - 1);
      sc.reduce_range(worker, s, q * part, std::min(size, (q + 1) * part), carry[size_t(s * parts + q + 1)]);
    });
    OpApply& op = env.op_apply(0);
    for (int64_t s = 0; s < segments; ++s) {
      env.fill_neutral(carry[size_t(s * parts)]);
      for (int64_t q = 2; q < parts; ++q) {
        // carry[q] held part q-1's total; make it the prefix before part q.
        LaneSlots& c = carry[size_t(s * parts + q)];
        LaneSlots prev(sc.k);
        for (int r = 0; r < sc.k; ++r) std::memcpy(prev.ptr(r), carry[size_t(s * parts + q - 1)].ptr(r), 8);
        op.combine1(prev, c);
        for (int r = 0; r < sc.k; ++r) std::memcpy(c.ptr(r), prev.ptr(r), 8);
      }
    }
    pool.parallel_for(segments * parts, [&](int64_t t, int worker) {
      int64_t s = t / parts, q = t % parts;
      sc.scan_range(worker, s, q * part, std::min(size, (q + 1) * part), carry[size_t(t)]);
    });
    return;
  }
  // Scan-then-propagate: the second pass covers all parts but the first, so
  // use no more parts than threads.
  pt = split_parts(size, std::min<int64_t>(env.threads, (size + kLanes - 1) / kLanes), kLanes);
  parts = pt.count;
  part = pt.size;
  std::vector<LaneSlots> total(size_t(segments * parts));
  for (auto& t : total) {
    t.resize(sc.k);
    env.fill_neutral(t);
  }
  pool.parallel_for(segments * parts, [&](int64_t t, int worker) {
    int64_t s = t / parts, q = t % parts;
    sc.scan_range(worker, s, q * part, std::min(size, (q + 1) * part), total[size_t(t)]);
  });
  if (parts == 1) return;
  // prefix[q] = total[0] op ... op total[q-1].
  OpApply& op = env.op_apply(0);
  std::vector<LaneSlots> prefix(size_t(segments * parts));
  for (int64_t s = 0; s < segments; ++s) {
    for (int64_t q = 1; q < parts; ++q) {
      LaneSlots& p = prefix[size_t(s * parts + q)];
      p.resize(sc.k);
      for (int r = 0; r < sc.k; ++r)
        std::memcpy(p.ptr(r), (q == 1 ? total[size_t(s * parts)] : prefix[size_t(s * parts + q - 1)]).ptr(r), 8);
      if (q > 1) op.combine1(p, total[size_t(s * parts + q - 1)]);
    }
  }
  // Second pass: every part but the first gets its prefix, split across threads.
  int64_t pieces = env.threads;
  pool.parallel_for(segments * (parts - 1) * pieces, [&](int64_t t, int worker) {
    int64_t piece = t % pieces, sq = t / pieces;
    int64_t s = sq / (parts - 1), q = sq % (parts - 1) + 1;
    int64_t begin = q * part, end = std::min(size, (q + 1) * part);
    int64_t len = (end - begin + pieces - 1) / pieces;
    len = (len + kLanes - 1) / kLanes * kLanes;
    int64_t b = begin + piece * len, e = std::min(end, b + len);
    if (b < e) sc.add_prefix(worker, s * size + b, s * size + e, prefix[size_t(s * parts + q)]);
  });
}

}  // namespace thorn::host
