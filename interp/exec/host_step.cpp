// Shared machinery of the host executor's steps.
// The lane loops must be vectorised: -O2 (the build default) leaves them scalar.
#pragma GCC optimize("O3")
#include "interp/exec/host_step.hpp"

#include <algorithm>

#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "interp/exec/host_fastop.hpp"
#include "interp/exec/host_lanes.hpp"
#include "interp/exec/native/native_registry.hpp"
#include "interp/exec/native/native_source.hpp"
#include "interp/util/cancel.hpp"
#include "interp/util/error.hpp"

namespace thorn::host {

void LaneSlots::resize(int k) {
  k_ = k;
  data_.reset(k > 0 ? new std::byte[size_t(k) * kStride]() : nullptr);
}

// ------------------------------------------------------------------ fast operators

namespace {

using namespace fastop;

template <Prim P, class Op>
void scan_fn(std::byte* lanes, int n, std::byte* acc) {
  using T = RegT<P>;
  T* x = reinterpret_cast<T*>(lanes);
  T a;
  std::memcpy(&a, acc, sizeof a);
  for (int l = 0; l < n; ++l) x[l] = a = Op::template f<P>(a, x[l]);
  std::memcpy(acc, &a, sizeof a);
}

template <Prim P, class Op>
void hist_fn(std::byte* hist, const int64_t* bins, const std::byte* vals, int n, int64_t nbins) {
  using T = RegT<P>;
  T* h = reinterpret_cast<T*>(hist);
  const T* v = reinterpret_cast<const T*>(vals);
  for (int l = 0; l < n; ++l) {
    int64_t b = bins[l];
    if (uint64_t(b) < uint64_t(nbins)) h[b] = Op::template f<P>(h[b], v[l]);
  }
}

template <Prim P, class Op>
void combine_fn(std::byte* acc, const std::byte* x, int n) {
  using T = RegT<P>;
  T* __restrict a = reinterpret_cast<T*>(acc);
  const T* __restrict b = reinterpret_cast<const T*>(x);
  for (int l = 0; l < n; ++l) a[l] = Op::template f<P>(a[l], b[l]);
}

template <Prim P, class Op>
void reduce_rows_fn(const std::byte* vals, int rows, int size, std::byte* out) {
  using T = RegT<P>;
  const T* v = reinterpret_cast<const T*>(vals);
  T* o = reinterpret_cast<T*>(out);
  for (int s = 0; s < rows; ++s) {
    const T* row = v + size_t(s) * size_t(size);
    T a = row[0];
    for (int j = 1; j < size; ++j) a = Op::template f<P>(a, row[j]);
    o[s] = a;
  }
}

template <Prim P, class Op>
void scan_rows_fn(std::byte* vals, int rows, int size) {
  using T = RegT<P>;
  T* v = reinterpret_cast<T*>(vals);
  for (int s = 0; s < rows; ++s) {
    T* row = v + size_t(s) * size_t(size);
    for (int j = 1; j < size; ++j) row[j] = Op::template f<P>(row[j - 1], row[j]);
  }
}

template <Prim P, class Op>
void scan_copy_fn(const std::byte* src, std::byte* dst, int n, std::byte* acc) {
  using T = RegT<P>;
  const T* __restrict x = reinterpret_cast<const T*>(src);
  T* __restrict d = reinterpret_cast<T*>(dst);
  T a;
  std::memcpy(&a, acc, sizeof a);
  for (int l = 0; l < n; ++l) d[l] = a = Op::template f<P>(a, x[l]);
  std::memcpy(acc, &a, sizeof a);
}

template <Prim P, class Op>
void set_fns(FastOp& f) {
  f.scan_copy.push_back(&scan_copy_fn<P, Op>);
  f.scan.push_back(&scan_fn<P, Op>);
  f.hist.push_back(&hist_fn<P, Op>);
  f.combine.push_back(&combine_fn<P, Op>);
  f.reduce_rows.push_back(&reduce_rows_fn<P, Op>);
  f.scan_rows.push_back(&scan_rows_fn<P, Op>);
}

bool add_fast(FastOp& f, kir::BinOp op, Prim t) {
  if (!with_fast_op(op, t, [&]<Prim P, class Op>() { set_fns<P, Op>(f); })) return false;
  f.ops.emplace_back(op, t);
  return true;
}

}  // namespace

FastOp recognise_fast_op(const kir::Function& op) {
  FastOp f;
  size_t k = op.body.results.size();
  if (op.body.params.size() != 2 * k || k == 0) return f;
  for (size_t r = 0; r < k; ++r) {
    kir::Reg res = op.body.results[r];
    const kir::Instr* def = nullptr;
    for (const kir::Instr& in : op.body.instrs)
      if (in.dst == res) def = &in;
    if (!def || def->op != kir::Opcode::Binary) return FastOp{};
    kir::Reg acc = op.body.params[r], x = op.body.params[k + r];
    if (!((def->a == acc && def->b == x) || (def->a == x && def->b == acc))) return FastOp{};
    if (!add_fast(f, def->binop(), def->type)) return FastOp{};
  }
  // Nothing else may happen in the operator (no checks, no other results).
  if (op.body.instrs.size() != k) return FastOp{};
  f.ok = true;
  return f;
}

// ------------------------------------------------------------------ OpApply

OpApply::OpApply(std::shared_ptr<const Program> op) : fr_(std::move(op)), k_(int(fr_.prog->results().size())) {
  fr_.tile.consecutive = true;
}

void OpApply::apply(const std::byte* const* acc, const std::byte* const* x, int n) {
  const auto& params = fr_.prog->params();
  for (int r = 0; r < k_; ++r) {
    fr_.regs[size_t(params[size_t(r)])] = const_cast<std::byte*>(acc[r]);
    fr_.regs[size_t(params[size_t(k_ + r)])] = const_cast<std::byte*>(x[r]);
  }
  if (native_) {
    // Results go to the frame's own registers, where result() finds them.
    void* outs[64];
    const auto& results = fr_.prog->results();
    if (results.size() <= 64) {
      for (size_t r = 0; r < results.size(); ++r) outs[r] = fr_.out<std::byte>(results[r]);
      if (native_(native_args_, reinterpret_cast<const void* const*>(acc),
                  reinterpret_cast<const void* const*>(x), outs, n) == 0)
        return;
      // A failed Check: the interpreter reports it (or, if native code were
      // ever wrong, gets it right).
      native::note_fallback();
      for (int r = 0; r < k_; ++r) {
        fr_.regs[size_t(params[size_t(r)])] = const_cast<std::byte*>(acc[r]);
        fr_.regs[size_t(params[size_t(k_ + r)])] = const_cast<std::byte*>(x[r]);
      }
    }
  }
  run(fr_, Lanes{nullptr, n});
}

void OpApply::combine1(LaneSlots& acc, const LaneSlots& x) {
  std::vector<const std::byte*> a(static_cast<size_t>(k_)), b(static_cast<size_t>(k_));
  for (int r = 0; r < k_; ++r) {
    a[size_t(r)] = acc.ptr(r);
    b[size_t(r)] = x.ptr(r);
  }
  apply(a.data(), b.data(), 1);
  for (int r = 0; r < k_; ++r)
    std::memcpy(acc.ptr(r), result(r), size_t(fr_.prog->reg_bytes[size_t(fr_.prog->results()[size_t(r)])]));
}

// ------------------------------------------------------------------ StepEnv

StepEnv::StepEnv(const plan::Step& s, std::vector<BufferPtr>& b, const ExecOptions& o)
    : step(s), bufs(b), opts(o) {
  ThreadPool& pool = ThreadPool::instance();
  threads = opts.max_threads > 0 ? std::min(opts.max_threads, pool.size()) : pool.size();
  elem = compile_element(step.element, step.segments, step.segment_size);
  if (step.kind == plan::StepKind::SegRed || step.kind == plan::StepKind::SegScan ||
      step.kind == plan::StepKind::SegHist) {
    op = compile(step.op);
    fast = recognise_fast_op(step.op);
  }
  if (step.reads.size() != step.element.free_arrays.size())
    throw Error(ErrorKind::Internal,
                fmt::format("host executor: step binds {} buffers to {} free arrays",
                            step.reads.size(), step.element.free_arrays.size()));
  for (size_t k = 0; k < step.reads.size(); ++k) {
    const Buffer& buf = *bufs.at(size_t(step.reads[k]));
    if (buf.elem() != step.element.free_arrays[k].elem)
      throw Error(ErrorKind::Internal,
                  fmt::format("host executor: buffer b{} holds {}, free array a{} wants {}",
                              step.reads[k], prim_name(buf.elem()), k,
                              prim_name(step.element.free_arrays[k].elem)));
    arrays.push_back(ArrayBinding{buf.host(), buf.count()});
  }
  elem_frames.resize(size_t(pool.size()));
  op_frames.resize(size_t(pool.size()));
  bind_native();
}

void StepEnv::bind_native() {
  if (native::mode() == native::Mode::Off || total() == 0) return;
  const native::Entries* e = native::lookup(step, &native.pending);
  if (!e && !native.pending) {
    late_possible_ = native::mode() == native::Mode::Tiered;
    return;
  }
  bind_native_args(e);
}

namespace {
// How long a cold step runs on the interpreter before it asks for native
// code (promoted_late). Compiling takes 0.1 to 1 s on a background thread:
// a step that has run this long is likely to run longer.
constexpr auto kLateHot = std::chrono::milliseconds(50);
}  // namespace

const native::Entries* StepEnv::promoted_late() const {
  if (const auto* slot = late_.load(std::memory_order_acquire)) return slot->load(std::memory_order_acquire);
  if (!late_possible_.load(std::memory_order_relaxed) || std::chrono::steady_clock::now() - started_ < kLateHot)
    return nullptr;
  std::call_once(late_once_, [&] {
    late_possible_ = false;
    const std::atomic<const native::Entries*>* slot = nullptr;
    native::lookup(step, &slot, /*hot=*/true);
    if (!slot) return;
    // Bound before the slot is published: workers read the arguments only
    // after they see it (release/acquire).
    const_cast<StepEnv*>(this)->bind_native_args(nullptr);
    late_.store(slot, std::memory_order_release);
  });
  const auto* slot = late_.load(std::memory_order_acquire);
  return slot ? slot->load(std::memory_order_acquire) : nullptr;
}

void StepEnv::bind_native_args(const native::Entries* e) {
  // An empty array has no storage; a clamped index 0 must still be readable.
  static const uint64_t empty[1] = {0};
  for (const ArrayBinding& a : arrays) {
    native.arrays.push_back(a.count > 0 && a.data ? static_cast<const void*>(a.data) : empty);
    native.counts.push_back(a.count);
  }
  if (step.kind == plan::StepKind::SegMap)
    for (size_t k = 0; k < step.writes.size(); ++k) native.outs.push_back(write_buffer(k).host_mut());
  native.consts = native::lifted_constant_bits(step);
  native.args.arrays = native.arrays.data();
  native.args.counts = native.counts.data();
  native.args.outs = native.outs.data();
  native.args.consts = native.consts.data();
  native.args.segment_size = step.segment_size;
  native.args.cancel = cancel_flag();
  native.bounds = native::affine_bounds(step.element, native.counts, step.segment_size);
  native.entries = e;
}

Frame& StepEnv::elem_frame(int worker) {
  auto& slot = elem_frames[size_t(worker)];
  if (!slot) {
    // No tile of this step is wider than its element count, nor holds more
    // private storage than kLanes elements of kPrivateBytes: an element with
    // more (a SegMap's, kernel_ir.hpp) runs in narrower tiles.
    int64_t lanes = std::clamp<int64_t>(total(), 1, kLanes);
    int64_t per_lane = 0;
    for (const Program::Local& l : elem->locals) per_lane += l.count * int64_t(reg_bytes(l.elem));
    if (per_lane > 0) lanes = std::min(lanes, std::max<int64_t>(1, kLanes * kir::kPrivateBytes / per_lane));
    slot = std::make_unique<Frame>(elem, int(lanes));
    slot->arrays = arrays;
  }
  if (!slot->native.fn)
    if (const native::Entries* e = promoted()) slot->native = NativeTile{e->tile, &native.args, &native.bounds};
  return *slot;
}

OpApply& StepEnv::op_apply(int worker) {
  auto& slot = op_frames[size_t(worker)];
  if (!slot) {
    slot = std::make_unique<OpApply>(op);
    if (!step.op.free_arrays.empty()) slot->bind_arrays(arrays);
  }
  if (!slot->has_native())
    if (const native::Entries* e = promoted(); e && e->apply) slot->attach_native(e->apply, &native.args);
  return *slot;
}

void StepEnv::fill_neutral(LaneSlots& slots) const {
  for (int r = 0; r < slots.size(); ++r) {
    Prim t = op->param_type(size_t(r));
    Scalar ne = step.neutral.at(size_t(r)).convert_to(t);
    uint64_t bits = const_bits(ne);
    // A copy of a constant size per lane, inlined: a call to memcpy per
    // lane cost n-body (a SegRed fold per body) a tenth of its time.
    auto fill = [&](auto width) {
      constexpr size_t W = decltype(width)::value;
      std::byte* p = slots.ptr(r);
      for (int l = 0; l < kLanes; ++l) std::memcpy(p + size_t(l) * W, &bits, W);
    };
    switch (reg_bytes(t)) {
      case 1: fill(std::integral_constant<size_t, 1>{}); break;
      case 2: fill(std::integral_constant<size_t, 2>{}); break;
      case 4: fill(std::integral_constant<size_t, 4>{}); break;
      case 8: fill(std::integral_constant<size_t, 8>{}); break;
      default:
        for (int l = 0; l < kLanes; ++l)
          std::memcpy(slots.ptr(r) + size_t(l) * size_t(reg_bytes(t)), &bits, size_t(reg_bytes(t)));
    }
  }
}

// ------------------------------------------------------------------ tiles and lanes

void run_element_tile(Frame& fr, int64_t flat0, int n, int64_t segment_size) {
  if (fr.native.fn) {
    check_cancel();
    // Results into the frame's own registers, where the steps read them.
    void* lanes[64];
    const auto& results = fr.prog->results();
    if (results.size() <= 64 && fr.native.bounds->ok(flat0, flat0 + n)) {
      for (size_t r = 0; r < results.size(); ++r) lanes[r] = fr.out<std::byte>(results[r]);
      if (fr.native.fn(fr.native.args, flat0, n, lanes) == 0) return;
    }
    native::note_fallback();
  }
  interpret_element_tile(fr, flat0, n, segment_size);
}

void interpret_element_tile(Frame& fr, int64_t flat0, int n, int64_t segment_size) {
  check_cancel();  // Ctrl-C: stop at the next tile
  Tile& t = fr.tile;
  t.flat0 = flat0;
  t.consecutive = true;
  t.segment_size = segment_size;
  t.s0 = segment_size > 0 ? flat0 / segment_size : 0;
  t.j0 = segment_size > 0 ? flat0 % segment_size : 0;
  t.single_segment = t.j0 + n <= segment_size;
  const Program& p = *fr.prog;
  if (p.param_live.size() >= 2) {
    bool need_s = p.param_live[0], need_j = p.param_live[1];
    int64_t* S = need_s ? fr.out<int64_t>(p.params()[0]) : nullptr;
    int64_t* J = need_j ? fr.out<int64_t>(p.params()[1]) : nullptr;
    if (t.single_segment) {
      if (S)
        for (int l = 0; l < n; ++l) S[l] = t.s0;
      if (J)
        for (int l = 0; l < n; ++l) J[l] = t.j0 + l;
    } else {
      int64_t s = t.s0, j = t.j0;
      for (int l = 0; l < n; ++l) {
        if (S) S[l] = s;
        if (J) J[l] = j;
        if (++j == segment_size) j = 0, ++s;
      }
    }
  }
  run(fr, Lanes{nullptr, n});
}

void store_lanes(Prim t, Buffer& buf, int64_t start, const std::byte* lanes, int n) {
  if (n <= 0) return;
  std::byte* base = buf.host_mut();
  if (t != Prim::F16) {
    std::memcpy(base + size_t(start) * size_t(prim_bytes(t)), lanes, size_t(n) * size_t(prim_bytes(t)));
    return;
  }
  const float* v = reinterpret_cast<const float*>(lanes);
  for (int l = 0; l < n; ++l) store_elem<Prim::F16>(base, start + l, v[l]);
}

void load_lanes(Prim t, const Buffer& buf, int64_t start, std::byte* lanes, int n) {
  if (n <= 0) return;
  const std::byte* base = buf.host();
  if (t != Prim::F16) {
    std::memcpy(lanes, base + size_t(start) * size_t(prim_bytes(t)), size_t(n) * size_t(prim_bytes(t)));
    return;
  }
  float* v = reinterpret_cast<float*>(lanes);
  for (int l = 0; l < n; ++l) v[l] = load_elem<Prim::F16>(base, start + l);
}

void store_lane(Prim t, Buffer& buf, int64_t i, const std::byte* lanes, int lane) {
  store_lanes(t, buf, i, lanes + size_t(lane) * size_t(reg_bytes(t)), 1);
}

void move_lane(Prim t, std::byte* dst, int to, const std::byte* src, int from) {
  size_t w = size_t(reg_bytes(t));
  std::memcpy(dst + size_t(to) * w, src + size_t(from) * w, w);
}

void gather_lanes(Prim t, std::byte* dst, const std::byte* src, int first, int stride, int n) {
  auto go = [&](auto tag) {
    using U = decltype(tag);
    U* d = reinterpret_cast<U*>(dst);
    const U* s = reinterpret_cast<const U*>(src) + first;
    for (int i = 0; i < n; ++i) d[i] = s[size_t(i) * size_t(stride)];
  };
  switch (reg_bytes(t)) {
    case 1: go(uint8_t{}); break;
    case 2: go(uint16_t{}); break;
    case 4: go(uint32_t{}); break;
    default: go(uint64_t{}); break;
  }
}

}  // namespace thorn::host
