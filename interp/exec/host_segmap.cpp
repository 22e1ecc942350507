// SegMap and Scatter on the host: both visit the flat iteration space in
// tiles of consecutive elements (kLanes, or the frame's narrower width for
// elements with large private arrays), split across threads in chunks.
// The lane loops must be vectorised: -O2 (the build default) leaves them scalar.
#pragma GCC optimize("O3")
#include <algorithm>

#include "interp/exec/host_step.hpp"
#include "interp/exec/native/native_registry.hpp"
#include "interp/util/cancel.hpp"

namespace thorn::host {

namespace {

constexpr int64_t kNativePiece = int64_t(kLanes) * 64;

// An element function with a loop or much code: each element is work
// enough to be worth a thread, however few the elements (a row-wise map of
// 256 rows, each a loop over 192 swaptions: finpar/InterestCalib).
constexpr int64_t kHeavyInstructions = 256;

bool heavy_elements(const kir::Function& f) {
  return kir::has_loop(f, f.body) || kir::instruction_count(f.body) >= kHeavyInstructions;
}

// Splits [0, total) into chunks of whole tiles, about 4 per thread so that
// uneven progress balances out, and runs fn(begin, end, worker) on each.
// Heavy elements are split finer than a tile when there are few of them.
template <class Fn>
void for_chunks(StepEnv& env, int64_t total, Fn&& fn) {
  if (total <= 0) return;
  bool heavy = env.threads > 1 && total > 1 && !env.parallel(total) && heavy_elements(env.step.element);
  int64_t tasks = env.parallel(total) || heavy ? int64_t(env.threads) * 4 : 1;
  int64_t chunk = (total + tasks - 1) / tasks;
  if (!heavy || chunk >= kLanes) chunk = (chunk + kLanes - 1) / kLanes * kLanes;
  tasks = (total + chunk - 1) / chunk;
  ThreadPool::instance().parallel_for(tasks, [&](int64_t t, int worker) {
    int64_t begin = t * chunk, end = std::min(total, begin + chunk);
    fn(begin, end, worker);
  });
}

}  // namespace

void run_segmap(StepEnv& env) {
  const Program& p = *env.elem;
  size_t k = p.results().size();
  int64_t size = env.step.segment_size;
  for_chunks(env, env.total(), [&](int64_t begin, int64_t end, int worker) {
    native::SegMapFn native = nullptr;  // from the first piece on which it is ready
    // Natively, a whole chunk per call, straight into the output buffers;
    // a failure (a Check) reruns the chunk on the interpreter, which reports it.
    // Pieces of kNativePiece elements keep Ctrl-C responsive.
    for (int64_t b0 = begin; b0 < end;) {
      int64_t b1 = std::min(end, b0 + kNativePiece);
      if (!native)
        if (const native::Entries* e = env.promoted()) native = e->segmap;
      if (native) {
        check_cancel();
        if (env.native.bounds.ok(b0, b1) && native(&env.native.args, b0, b1) == 0) {
          b0 = b1;
          continue;
        }
        native::note_fallback();
      }
      Frame& fr = env.elem_frame(worker);
      // Until native code is ready, it is looked for after every tile: a
      // tile of a row-wise map may be a whole row's work (seconds).
      bool looking = !native;
      int64_t f0 = b0;
      while (f0 < b1) {
        int n = int(std::min<int64_t>(fr.lanes, b1 - f0));
        interpret_element_tile(fr, f0, n, size);
        for (size_t r = 0; r < k; ++r)
          store_lanes(p.result_type(r), env.write_buffer(r), f0, fr.regs[size_t(p.results()[r])], n);
        f0 += n;
        if (looking && env.promoted()) break;
      }
      b0 = f0;
    }
  });
}

void run_scatter(StepEnv& env) {
  const Program& p = *env.elem;
  size_t k = p.results().size() - 1;
  int64_t size = env.step.segment_size, dest = env.step.dest_size;
  for_chunks(env, env.total(), [&](int64_t begin, int64_t end, int worker) {
    Frame& fr = env.elem_frame(worker);
    for (int64_t f0 = begin; f0 < end; f0 += fr.lanes) {
      int n = int(std::min<int64_t>(fr.lanes, end - f0));
      run_element_tile(fr, f0, n, size);
      const int64_t* idx = fr.in<int64_t>(p.results()[0]);
      for (int l = 0; l < n; ++l) {
        int64_t i = idx[l];
        if (i < 0 || i >= dest) continue;  // out-of-bounds writes are ignored
        int64_t s = (f0 + l) / size;
        for (size_t r = 0; r < k; ++r)
          store_lane(p.result_type(r + 1), env.write_buffer(r), s * dest + i,
                     fr.regs[size_t(p.results()[r + 1])], l);
      }
    }
  });
}

}  // namespace thorn::host
