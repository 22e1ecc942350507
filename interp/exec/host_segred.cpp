// SegRed on the host: segmented (redomap) reductions over regular segments.
// Steps that only read contiguous inputs with a recognised operator take
// the direct path (host_direct.hpp); the general paths follow.
//
// Three shapes of work:
//  - small segments (size <= kLanes/8): a tile holds several whole
//    segments; the operator then runs with one lane per segment, folding
//    position j of every segment at once (in order, so any operator works);
//  - otherwise each segment, or each part of a segment when there are fewer
//    segments than threads, is folded tile by tile: commutative operators
//    keep one accumulator per lane (one operator run per tile), others
//    reduce each tile with an in-order pairwise tree;
//  - parts of one segment are combined afterwards, left to right.
// The lane loops must be vectorised: -O2 (the build default) leaves them scalar.
#pragma GCC optimize("O3")
#include <algorithm>
#include <cstring>

#include "interp/exec/host_direct.hpp"
#include "interp/exec/host_partition.hpp"
#include "interp/exec/host_step.hpp"
#include "interp/exec/native/native_registry.hpp"
#include "interp/util/cancel.hpp"

namespace thorn::host {

namespace {

struct Red {
  explicit Red(StepEnv& e) : env(e) {}
  StepEnv& env;
  int m = 0;  // map-part outputs
  int k = 0;  // reduced values
  int64_t size = 0;
  bool commutative = false;
  std::vector<Prim> types;  // of the reduced values

  const Program& elem() const { return *env.elem; }
  const std::byte* value(Frame& fr, int r) const { return fr.regs[size_t(elem().results()[size_t(m + r)])]; }
  size_t width(int r) const { return size_t(reg_bytes(types[size_t(r)])); }

  void write_map_outputs(Frame& fr, int64_t f0, int n) const {
    for (int r = 0; r < m; ++r)
      store_lanes(elem().result_type(size_t(r)), env.write_buffer(size_t(r)), f0,
                  fr.regs[size_t(elem().results()[size_t(r)])], n);
  }

  // acc[0..n) = op(acc[0..n), x[0..n)) lane-wise; acc and x are k lane arrays.
  void combine(OpApply& op, std::byte* const* acc, const std::byte* const* x, int n) const {
    if (env.fast.ok) {
      for (int r = 0; r < k; ++r) env.fast.combine[size_t(r)](acc[r], x[r], n);
      return;
    }
    op.apply(acc, x, n);
    for (int r = 0; r < k; ++r) std::memmove(acc[r], op.result(r), size_t(n) * width(r));
  }

  std::vector<std::byte*> ptrs(LaneSlots& s, int lane = 0) const {
    std::vector<std::byte*> p(static_cast<size_t>(k));
    for (int r = 0; r < k; ++r) p[size_t(r)] = s.ptr(r) + size_t(lane) * width(r);
    return p;
  }

  // Folds positions [j0, j1) of segment s into lane 0 of `out`.
  void fold_range(int worker, int64_t s, int64_t j0, int64_t j1, LaneSlots& out) const {
    Frame& fr = env.elem_frame(worker);
    OpApply& op = env.op_apply(worker);
    env.fill_neutral(out);
    if (commutative) {
      int used = 0;
      auto acc = ptrs(out);
      std::vector<const std::byte*> x(static_cast<size_t>(k));
      // Natively, the element and the operator in one loop, the whole
      // range in one call (native_abi.hpp FoldFn): the same accumulators,
      // updated lane by lane in the same order, without the lane arrays in
      // between. On failure the tiles below redo the range.
      const native::Entries* entries = env.promoted();
      const native::FoldFn fold = m == 0 && fr.native.fn && entries ? entries->fold : nullptr;
      if (fold && j1 > j0 && fr.native.bounds->ok(s * size + j0, s * size + j1)) {
        check_cancel();
        if (fold(&env.native.args, s * size + j0, s * size + j1, reinterpret_cast<void* const*>(acc.data())) == 0) {
          used = int(std::min<int64_t>(kLanes, j1 - j0));
          j0 = j1;
        } else {
          native::note_fallback();
        }
      }
      for (int64_t j = j0; j < j1; j += kLanes) {
        int n = int(std::min<int64_t>(kLanes, j1 - j));
        run_element_tile(fr, s * size + j, n, size);
        write_map_outputs(fr, s * size + j, n);
        for (int r = 0; r < k; ++r) x[size_t(r)] = value(fr, r);
        combine(op, acc.data(), x.data(), n);
        used = std::max(used, n);
      }
      // Fold the lane accumulators (any order: the operator commutes).
      for (int w = used; w > 1;) {
        int h = w / 2;
        auto hi = ptrs(out, w - h);
        std::vector<const std::byte*> src(hi.begin(), hi.end());
        combine(op, acc.data(), src.data(), h);
        w -= h;
      }
      return;
    }
    LaneSlots cur(k), a(k), b(k), tile_total(k);
    for (int64_t j = j0; j < j1; j += kLanes) {
      int n = int(std::min<int64_t>(kLanes, j1 - j));
      run_element_tile(fr, s * size + j, n, size);
      write_map_outputs(fr, s * size + j, n);
      for (int r = 0; r < k; ++r) std::memcpy(cur.ptr(r), value(fr, r), size_t(n) * width(r));
      // In-order pairwise tree: (x0 op x1), (x2 op x3), ...
      for (int w = n; w > 1;) {
        int h = w / 2;
        for (int r = 0; r < k; ++r) {
          gather_lanes(types[size_t(r)], a.ptr(r), cur.ptr(r), 0, 2, h);
          gather_lanes(types[size_t(r)], b.ptr(r), cur.ptr(r), 1, 2, h);
        }
        auto ap = ptrs(a), bp = ptrs(b);
        std::vector<const std::byte*> bc(bp.begin(), bp.end());
        op.apply(ap.data(), bc.data(), h);
        for (int r = 0; r < k; ++r) {
          std::memmove(cur.ptr(r), op.result(r), size_t(h) * width(r));
          if (w & 1) move_lane(types[size_t(r)], cur.ptr(r), h, cur.ptr(r), w - 1);
        }
        w = h + (w & 1);
      }
      op.combine1(out, cur);
    }
  }

  void store_result(int64_t s, const LaneSlots& v) const {
    for (int r = 0; r < k; ++r)
      store_lane(types[size_t(r)], env.write_buffer(size_t(m + r)), s, v.ptr(r), 0);
  }

  // Segments [s0, s1) with size*8 <= kLanes: one lane per segment.
  void small_segments(int worker, int64_t s0, int64_t s1) const {
    Frame& fr = env.elem_frame(worker);
    OpApply& op = env.op_apply(worker);
    int per_tile = int(kLanes / size);
    LaneSlots acc(k), x(k);
    auto accp = ptrs(acc);
    auto xp = ptrs(x);
    std::vector<const std::byte*> xc(xp.begin(), xp.end());
    for (int64_t sb = s0; sb < s1; sb += per_tile) {
      int nseg = int(std::min<int64_t>(per_tile, s1 - sb));
      int n = int(nseg * size);
      run_element_tile(fr, sb * size, n, size);
      write_map_outputs(fr, sb * size, n);
      if (env.fast.ok) {
        for (int r = 0; r < k; ++r) {
          env.fast.reduce_rows[size_t(r)](value(fr, r), nseg, int(size), acc.ptr(r));
          store_lanes(types[size_t(r)], env.write_buffer(size_t(m + r)), sb, acc.ptr(r), nseg);
        }
        continue;
      }
      for (int r = 0; r < k; ++r) gather_lanes(types[size_t(r)], acc.ptr(r), value(fr, r), 0, int(size), nseg);
      for (int64_t j = 1; j < size; ++j) {
        for (int r = 0; r < k; ++r)
          gather_lanes(types[size_t(r)], x.ptr(r), value(fr, r), int(j), int(size), nseg);
        combine(op, accp.data(), xc.data(), nseg);
      }
      for (int r = 0; r < k; ++r)
        store_lanes(types[size_t(r)], env.write_buffer(size_t(m + r)), sb, acc.ptr(r), nseg);
    }
  }
};

}  // namespace

void run_segred(StepEnv& env) {
  const plan::Step& st = env.step;
  Red red(env);
  red.m = st.num_map_outputs;
  red.k = int(env.op->results().size());
  red.size = st.segment_size;
  // Recognised operators (+, *, min, ...) commute whatever the program said.
  red.commutative = st.commutative || env.fast.ok;
  for (int r = 0; r < red.k; ++r) red.types.push_back(env.op->result_type(size_t(r)));
  int64_t segments = st.segments, size = st.segment_size;
  if (segments == 0) return;
  ThreadPool& pool = ThreadPool::instance();
  bool par = env.parallel(env.total());

  if (size == 0) {  // every segment reduces to the neutral element
    LaneSlots ne(red.k);
    env.fill_neutral(ne);
    for (int64_t s = 0; s < segments; ++s) red.store_result(s, ne);
    return;
  }
  if (run_segred_direct(env)) return;  // contiguous inputs, recognised operator

  // Typed row loops stay efficient up to half a tile per row.
  if (size * (env.fast.ok ? 2 : 8) <= kLanes && segments > 1) {
    for_chunks_of(segments, par ? int64_t(env.threads) * 4 : 1, kLanes / size,
                  [&](int64_t s0, int64_t s1, int worker) { red.small_segments(worker, s0, s1); });
    return;
  }

  if (!par || segments >= 2 * int64_t(env.threads)) {
    for_chunks_of(segments, par ? int64_t(env.threads) * 4 : 1, 1, [&](int64_t s0, int64_t s1, int worker) {
      LaneSlots v(red.k);
      for (int64_t s = s0; s < s1; ++s) {
        red.fold_range(worker, s, 0, size, v);
        red.store_result(s, v);
      }
    });
    return;
  }

  // Few large segments: split each into parts, fold the parts in parallel,
  // then combine them left to right.
  Parts pt = split_parts(size, std::min<int64_t>(int64_t(env.threads) * 4, size / (4 * kLanes)), kLanes);
  int64_t parts = pt.count;
  std::vector<LaneSlots> partial(size_t(segments * parts));
  for (auto& p : partial) p.resize(red.k);
  pool.parallel_for(segments * parts, [&](int64_t t, int worker) {
    int64_t s = t / parts, q = t % parts;
    red.fold_range(worker, s, pt.begin(q), pt.end(q, size), partial[size_t(t)]);
  });
  OpApply& op = env.op_apply(0);
  for (int64_t s = 0; s < segments; ++s) {
    LaneSlots& acc = partial[size_t(s * parts)];
    for (int64_t q = 1; q < parts; ++q) op.combine1(acc, partial[size_t(s * parts + q)]);
    red.store_result(s, acc);
  }
}

}  // namespace thorn::host
