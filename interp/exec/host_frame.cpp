// Frames, block execution and structured control flow on lane subsets.
// The lane loops must be vectorised: -O2 (the build default) leaves them scalar.
#pragma GCC optimize("O3")
#include <cstring>

#include "interp/exec/host_lanes.hpp"
#include "interp/util/cancel.hpp"

namespace thorn::host {

namespace {
// A lane array's size in the frame: full-width arrays start on cache lines
// (vectorised lane loops); narrow ones only on 8 bytes, so that a frame of
// one lane packs its registers densely.
size_t lane_array_bytes(size_t bytes, int lanes) {
  const size_t align = lanes == kLanes ? 64 : 8;
  return (bytes + align - 1) & ~(align - 1);
}
}  // namespace

Frame::Frame(std::shared_ptr<const Program> p, int lane_count) : prog(std::move(p)), lanes(lane_count) {
  const Program& pr = *prog;
  size_t total = 0;
  std::vector<size_t> offsets;
  for (int b : pr.reg_bytes) {
    offsets.push_back(total);
    total += lane_array_bytes(size_t(b) * size_t(lanes), lanes);
  }
  // Lane arrays start on cache lines: an aligned pointer inside a plain allocation.
  storage_.reset(new std::byte[total + 64]);
  std::byte* base = storage_.get();
  base += (64 - (reinterpret_cast<uintptr_t>(base) & 63)) & 63;
  for (size_t r = 0; r < offsets.size(); ++r) owned.push_back(base + offsets[r]);
  regs = owned;
  arrays.resize(pr.array_types.size());
  size_t local_total = 0;
  for (const Program::Local& l : pr.locals)
    local_total += lane_array_bytes(size_t(l.count) * size_t(reg_bytes(l.elem)) * size_t(lanes), lanes);
  if (local_total) {
    local_storage_.reset(new std::byte[local_total + 64]);
    std::byte* lb = local_storage_.get();
    lb += (64 - (reinterpret_cast<uintptr_t>(lb) & 63)) & 63;
    for (const Program::Local& l : pr.locals) {
      locals.push_back(lb);
      lb += lane_array_bytes(size_t(l.count) * size_t(reg_bytes(l.elem)) * size_t(lanes), lanes);
    }
  }
  for (auto [r, bits] : pr.consts) {
    std::byte* d = owned[size_t(r)];
    int w = pr.reg_bytes[size_t(r)];
    for (int l = 0; l < lanes; ++l) std::memcpy(d + size_t(l) * size_t(w), &bits, size_t(w));
  }
}

void copy_lanes(Frame& fr, int32_t dst, int32_t src, Lanes L) {
  if (dst == src) return;
  int w = fr.prog->reg_bytes[size_t(dst)];
  const std::byte* s = fr.regs[size_t(src)];
  std::byte* d = fr.out<std::byte>(dst);
  if (!L.sel) {
    std::memcpy(d, s, size_t(L.n) * size_t(w));
    return;
  }
  auto copy = [&](auto tag) {
    using U = decltype(tag);
    const U* a = reinterpret_cast<const U*>(s);
    U* b = reinterpret_cast<U*>(d);
    for (int k = 0; k < L.n; ++k) b[L.sel[k]] = a[L.sel[k]];
  };
  switch (w) {
    case 1: copy(uint8_t{}); break;
    case 2: copy(uint16_t{}); break;
    case 4: copy(uint32_t{}); break;
    default: copy(uint64_t{}); break;
  }
}

void run_block(const Program& p, int block, Frame& fr, Lanes lanes) {
  for (const CInstr& in : p.blocks[size_t(block)].instrs) in.fn(in, fr, lanes);
}

namespace {

// The active lanes whose flag is set: all of `L` (returned as is, keeping
// dense runs dense) or a subset written to `buf`.
Lanes filter(Lanes L, int32_t* buf, const auto& keep) {
  int n = 0;
  for_lanes(L, [&](int l) {
    if (keep(l)) buf[n++] = l;
  });
  if (n == L.n) return L;
  return Lanes{buf, n};
}

void if_kernel(const CInstr& in, Frame& fr, Lanes L) {
  const Program& p = *fr.prog;
  const Control& ctl = p.controls[size_t(in.aux)];
  const uint8_t* c = fr.in<uint8_t>(in.a);
  int32_t tbuf[kLanes], fbuf[kLanes];
  int nt = 0, nf = 0;
  for_lanes(L, [&](int l) {
    if (c[l]) tbuf[nt++] = l;
    else fbuf[nf++] = l;
  });
  auto branch = [&](int k, int32_t* buf, int n) {
    if (n == 0) return;
    Lanes B = n == L.n ? L : Lanes{buf, n};
    run_block(p, ctl.blocks[k], fr, B);
    const CBlock& blk = p.blocks[size_t(ctl.blocks[k])];
    for (size_t r = 0; r < ctl.dsts.size(); ++r) copy_lanes(fr, ctl.dsts[r], blk.results[r], B);
  };
  branch(0, tbuf, nt);
  branch(1, fbuf, nf);
}

void for_kernel(const CInstr& in, Frame& fr, Lanes L) {
  const Program& p = *fr.prog;
  const Control& ctl = p.controls[size_t(in.aux)];
  const CBlock& body = p.blocks[size_t(ctl.blocks[0])];
  const int64_t* count = fr.in<int64_t>(in.a);
  int32_t i_reg = body.params[0];
  size_t k = ctl.args.size();
  for (size_t r = 0; r < k; ++r) copy_lanes(fr, body.params[r + 1], ctl.args[r], L);
  // A result that is itself a loop parameter would be overwritten before
  // it is read when results are copied back; stage through dsts then.
  bool staged = false;
  for (int32_t res : body.results)
    for (size_t r = 1; r < body.params.size(); ++r) staged |= res == body.params[r];
  int32_t buf[kLanes];
  for (int64_t it = 0;; ++it) {
    check_cancel();  // a long loop inside one tile stops at its next iteration
    Lanes A = filter(L, buf, [&](int l) { return count[l] > it; });
    if (A.n == 0) break;
    int64_t* iv = fr.out<int64_t>(i_reg);
    for_lanes(A, [&](int l) { iv[l] = it; });
    run_block(p, ctl.blocks[0], fr, A);
    if (staged) {
      for (size_t r = 0; r < k; ++r) copy_lanes(fr, ctl.dsts[r], body.results[r], A);
      for (size_t r = 0; r < k; ++r) copy_lanes(fr, body.params[r + 1], ctl.dsts[r], A);
    } else {
      for (size_t r = 0; r < k; ++r) copy_lanes(fr, body.params[r + 1], body.results[r], A);
    }
    L = A;  // lanes that stopped never restart
  }
  (void)L;
}

void for_kernel_entry(const CInstr& in, Frame& fr, Lanes L) {
  // Final values: the carried parameters of every lane (lanes with zero
  // iterations keep their initial values, copied in by for_kernel).
  for_kernel(in, fr, L);
  const Program& p = *fr.prog;
  const Control& ctl = p.controls[size_t(in.aux)];
  const CBlock& body = p.blocks[size_t(ctl.blocks[0])];
  for (size_t r = 0; r < ctl.dsts.size(); ++r) copy_lanes(fr, ctl.dsts[r], body.params[r + 1], L);
}

void while_kernel(const CInstr& in, Frame& fr, Lanes L) {
  const Program& p = *fr.prog;
  const Control& ctl = p.controls[size_t(in.aux)];
  const CBlock& cond = p.blocks[size_t(ctl.blocks[0])];
  const CBlock& body = p.blocks[size_t(ctl.blocks[1])];
  size_t k = ctl.args.size();
  for (size_t r = 0; r < k; ++r) copy_lanes(fr, cond.params[r], ctl.args[r], L);
  // filter() compacts in place safely (it writes index n <= the index it reads).
  int32_t buf[kLanes];
  Lanes A = L;
  for (;;) {
    check_cancel();
    run_block(p, ctl.blocks[0], fr, A);
    const uint8_t* c = fr.in<uint8_t>(cond.results[0]);
    Lanes B = filter(A, buf, [&](int l) { return c[l] != 0; });
    if (B.n == 0) break;
    for (size_t r = 0; r < k; ++r) copy_lanes(fr, body.params[r], cond.params[r], B);
    run_block(p, ctl.blocks[1], fr, B);
    for (size_t r = 0; r < k; ++r) copy_lanes(fr, cond.params[r], body.results[r], B);
    A = B;
  }
  for (size_t r = 0; r < k; ++r) copy_lanes(fr, ctl.dsts[r], cond.params[r], L);
}

// A subroutine runs on the caller's lanes: arguments into its parameters,
// its block, its results into the call's destinations. Its registers are
// its own (kernel_ir.hpp), so nothing of the caller is overwritten.
void call_kernel(const CInstr& in, Frame& fr, Lanes L) {
  const Program& p = *fr.prog;
  const Control& ctl = p.controls[size_t(in.aux)];
  const CBlock& body = p.blocks[size_t(ctl.blocks[0])];
  for (size_t r = 0; r < ctl.args.size(); ++r) copy_lanes(fr, body.params[r], ctl.args[r], L);
  run_block(p, ctl.blocks[0], fr, L);
  for (size_t r = 0; r < ctl.dsts.size(); ++r) copy_lanes(fr, ctl.dsts[r], body.results[r], L);
}

}  // namespace

Kernel control_kernel(kir::Opcode op) {
  switch (op) {
    case kir::Opcode::If: return &if_kernel;
    case kir::Opcode::For: return &for_kernel_entry;
    case kir::Opcode::While: return &while_kernel;
    case kir::Opcode::Call: return &call_kernel;
    default: return nullptr;
  }
}

}  // namespace thorn::host
