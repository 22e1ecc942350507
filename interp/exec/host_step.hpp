#pragma once
// Shared machinery of the host executor's step implementations (internal):
// the step environment, per-worker frames, operator application over
// lanes, typed fast paths for simple operators, and lane <-> buffer moves.
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/exec/host_executor.hpp"
#include "interp/exec/host_pool.hpp"
#include "interp/exec/host_program.hpp"
#include "interp/exec/host_semantics.hpp"
#include "interp/exec/native/native_bounds.hpp"
#include "interp/flatten/plan.hpp"

namespace thorn::host {

// k lane arrays wide enough for any type (kLanes * 8 bytes each).
class LaneSlots {
 public:
  explicit LaneSlots(int k = 0) { resize(k); }
  void resize(int k);
  std::byte* ptr(int r) { return data_.get() + size_t(r) * kStride; }
  const std::byte* ptr(int r) const { return data_.get() + size_t(r) * kStride; }
  int size() const { return k_; }

 private:
  static constexpr size_t kStride = size_t(kLanes) * 8;
  std::unique_ptr<std::byte[]> data_;
  int k_ = 0;
};

// Typed loops for operators that are, per component, one commutative
// arithmetic instruction on (acc_r, x_r): (+), (*), min, max, &, |, ^, &&, ||.
struct FastOp {
  using ScanFn = void (*)(std::byte* lanes, int n, std::byte* acc);  // inclusive, in place
  using HistFn = void (*)(std::byte* hist, const int64_t* bins, const std::byte* vals, int n,
                          int64_t nbins);
  using CombineFn = void (*)(std::byte* acc, const std::byte* x, int n);  // acc[l] op= x[l]
  // Rows of `size` consecutive lanes: out[s] = fold of row s (reduce_rows),
  // or each row scanned in place (scan_rows).
  using ReduceRowsFn = void (*)(const std::byte* vals, int rows, int size, std::byte* out);
  using ScanRowsFn = void (*)(std::byte* vals, int rows, int size);
  // dst[l] = acc = acc op src[l]: an inclusive scan from lanes into memory.
  using ScanCopyFn = void (*)(const std::byte* src, std::byte* dst, int n, std::byte* acc);
  // acc[0] op= src[0..n): a sequential fold (for short ranges).
  bool ok = false;
  std::vector<ScanFn> scan;
  std::vector<HistFn> hist;
  std::vector<CombineFn> combine;
  std::vector<ReduceRowsFn> reduce_rows;
  std::vector<ScanRowsFn> scan_rows;
  std::vector<ScanCopyFn> scan_copy;
  std::vector<std::pair<kir::BinOp, Prim>> ops;  // each component's operation (host_fastop.hpp)
};
FastOp recognise_fast_op(const kir::Function& op);

// Runs an operator program over lanes: parameters point at the caller's
// lane arrays (no copies), results are read through result().
class OpApply {
 public:
  explicit OpApply(std::shared_ptr<const Program> op);
  int arity() const { return k_; }
  void apply(const std::byte* const* acc, const std::byte* const* x, int n);
  const std::byte* result(int r) const { return fr_.regs[size_t(fr_.prog->results()[size_t(r)])]; }
  // Convenience for one-lane combines: acc[r] (lane 0) = op(acc, x) (lane 0).
  void combine1(LaneSlots& acc, const LaneSlots& x);
  // Runs the operator as native code from now on (interp/exec/native).
  void attach_native(native::ApplyFn fn, const native::Args* args) {
    native_ = fn;
    native_args_ = args;
  }
  bool has_native() const { return native_ != nullptr; }
  // The step's free arrays, for an operator that reads them (its free
  // arrays are the element's, planner_support.cpp lower_operator).
  void bind_arrays(const std::vector<ArrayBinding>& arrays) { fr_.arrays = arrays; }

 private:
  Frame fr_;
  int k_;
  native::ApplyFn native_ = nullptr;
  const native::Args* native_args_ = nullptr;
};

// What the native entries of a step are called with (interp/exec/native):
// the step's buffers and lifted constants, bound once per step run.
struct NativeBinding {
  const native::Entries* entries = nullptr;  // null: the interpreter runs the step
  // Tiered: the step's code is being compiled; the slot holds its entries
  // once ready, and the run switches to them between chunks (promoted()).
  const std::atomic<const native::Entries*>* pending = nullptr;
  native::Args args;
  std::vector<const void*> arrays;
  std::vector<int64_t> counts;
  std::vector<void*> outs;
  std::vector<uint64_t> consts;
  native::AffineBounds bounds;
};

struct StepEnv {
  const plan::Step& step;
  std::vector<BufferPtr>& bufs;
  ExecOptions opts;
  int threads = 1;
  std::shared_ptr<const Program> elem;
  std::shared_ptr<const Program> op;  // SegRed, SegScan, SegHist
  FastOp fast;
  std::vector<ArrayBinding> arrays;
  std::vector<std::unique_ptr<Frame>> elem_frames;  // one per worker, created on first use
  std::vector<std::unique_ptr<OpApply>> op_frames;
  NativeBinding native;

 private:
  void bind_native_args(const native::Entries* e);
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  mutable std::atomic<bool> late_possible_{false};
  mutable std::once_flag late_once_;
  mutable std::atomic<const std::atomic<const native::Entries*>*> late_{nullptr};

 public:

  StepEnv(const plan::Step& s, std::vector<BufferPtr>& b, const ExecOptions& o);
  Frame& elem_frame(int worker);
  OpApply& op_apply(int worker);
  int64_t total() const { return step.segments * step.segment_size; }
  // Number of parallel tasks worth using for `work` elements.
  bool parallel(int64_t work) const { return threads > 1 && work >= opts.parallel_threshold; }
  Buffer& write_buffer(size_t k) const { return *bufs[size_t(step.writes[k])]; }
  // Looks the step up in the native tier and binds its buffers (native).
  void bind_native();
  // The native entries the step runs with: bound at its start, or ready
  // since (a long run started on the interpreter while they compiled, or
  // one that asked for them late, promoted_late).
  const native::Entries* promoted() const {
    if (native.entries) return native.entries;
    if (native.pending) return native.pending->load(std::memory_order_acquire);
    return promoted_late();
  }
  // Time-based hotness: a step the native tier found cold (few elements,
  // first run) that is still interpreted kLateHot after it started asks for
  // its code then, and switches to it once ready. A row-wise map of a few
  // heavy rows (flash attention: 128 rows of seconds each) is one such run.
  const native::Entries* promoted_late() const;
  // Neutral element r in register representation, broadcast to all lanes of `slots`.
  void fill_neutral(LaneSlots& slots) const;
};

// Runs the element function on the consecutive flat positions
// [flat0, flat0 + n), n <= kLanes: natively when the frame has a native
// tile entry (Frame::native), else (or when that fails) interpreted.
void run_element_tile(Frame& fr, int64_t flat0, int n, int64_t segment_size);
// Always interpreted.
void interpret_element_tile(Frame& fr, int64_t flat0, int n, int64_t segment_size);

// Lane arrays (register representation) <-> buffer elements (storage representation).
void store_lanes(Prim t, Buffer& buf, int64_t start, const std::byte* lanes, int n);
void load_lanes(Prim t, const Buffer& buf, int64_t start, std::byte* lanes, int n);
// Lane `lane` of a register-representation array to/from element i of a buffer.
void store_lane(Prim t, Buffer& buf, int64_t i, const std::byte* lanes, int lane);
// Copies lane `from` of src to lane `to` of dst (same type).
void move_lane(Prim t, std::byte* dst, int to, const std::byte* src, int from);
// dst[i] = src[first + i * stride] for i < n.
void gather_lanes(Prim t, std::byte* dst, const std::byte* src, int first, int stride, int n);

void run_segmap(StepEnv& env);
void run_scatter(StepEnv& env);
void run_segred(StepEnv& env);
void run_segscan(StepEnv& env);
void run_seghist(StepEnv& env);

}  // namespace thorn::host
