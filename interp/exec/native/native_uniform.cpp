#include "interp/exec/native/native_uniform.hpp"

namespace thorn::host::native {

namespace {

using kir::Opcode;
using kir::Reg;

// Code a masked While runs on every lane, finished lanes included: only
// operations without effects (no Check that could fail for a lane that
// would never have run it, no store, no read whose clamp would note a
// violation of a lane that is done), and no nested control flow.
bool pure_straight_line(const kir::Block& b) {
  for (const kir::Instr& in : b.instrs) switch (in.op) {
      case Opcode::Const:
      case Opcode::Unary:
      case Opcode::Binary:
      case Opcode::Compare:
      case Opcode::Convert:
      case Opcode::Select: continue;
      default: return false;
    }
  return true;
}

struct Analysis {
  std::vector<char> v;
  bool ok = true;
  bool changed = false;
  int masked = 0;  // While loops whose condition varies (run masked)
  // Lane loops (lane_loops): the For's counter, and the private arrays its
  // body writes (each only at the counter: iterations write apart).
  Reg counter = kir::kNoReg;
  std::vector<char> written;

  bool var(Reg r) const { return r >= 0 && v[size_t(r)]; }
  void set(Reg r) {
    if (r >= 0 && !v[size_t(r)]) {
      v[size_t(r)] = 1;
      changed = true;
    }
  }

  void block(const kir::Block& b) {
    for (const kir::Instr& in : b.instrs) instr(in);
  }

  void instr(const kir::Instr& in) {
    switch (in.op) {
      case Opcode::Const:
      case Opcode::Check: return;
      case Opcode::Write:
        if (counter != kir::kNoReg) ok = false;  // two iterations might store to one place
        return;
      case Opcode::LocalWrite:
        if (counter != kir::kNoReg && in.a != counter) ok = false;
        return;
      case Opcode::LocalRead:
        // Lane loops: an array the loop writes is read only after it, so
        // that interleaving iterations cannot change what a read sees.
        if (counter != kir::kNoReg && in.aux >= 0 && size_t(in.aux) < written.size() && written[size_t(in.aux)])
          ok = false;
        set(in.dst);  // private contents differ per element
        return;
      case Opcode::Call: ok = false; return;  // subroutines are scalar functions (kir_to_cuda.cpp)
      case Opcode::Unary:
      case Opcode::Binary:
      case Opcode::Compare:
      case Opcode::Convert:
      case Opcode::Select:
      case Opcode::Read:
        if (var(in.a) || var(in.b) || var(in.c)) set(in.dst);
        return;
      case Opcode::If: {
        if (var(in.a)) ok = false;
        block(in.blocks[0]);
        block(in.blocks[1]);
        for (size_t k = 0; k < in.dsts.size(); ++k)
          if (var(in.blocks[0].results[k]) || var(in.blocks[1].results[k])) set(in.dsts[k]);
        return;
      }
      case Opcode::For: {
        if (var(in.a)) ok = false;
        const kir::Block& body = in.blocks[0];
        for (size_t k = 0; k < in.args.size(); ++k)
          if (var(in.args[k]) || var(body.results[k])) set(body.params[k + 1]);
        block(body);
        for (size_t k = 0; k < in.dsts.size(); ++k)
          if (var(body.params[k + 1]) || var(body.results[k])) set(in.dsts[k]);
        return;
      }
      case Opcode::While: {
        const kir::Block& cond = in.blocks[0];
        const kir::Block& body = in.blocks[1];
        for (size_t k = 0; k < in.args.size(); ++k) {
          if (var(in.args[k]) || var(body.results[k])) set(cond.params[k]);
          if (var(cond.params[k])) set(body.params[k]);
        }
        block(cond);
        if (var(cond.results[0])) {
          // Masked: lanes run until all are done, each frozen once its
          // condition fails, so every carried value differs per lane.
          if (!pure_straight_line(cond) || !pure_straight_line(body)) ok = false;
          ++masked;
          for (size_t k = 0; k < in.args.size(); ++k) {
            set(cond.params[k]);
            set(body.params[k]);
            set(in.dsts[k]);
          }
        }
        block(body);
        for (size_t k = 0; k < in.dsts.size(); ++k)
          if (var(cond.params[k]) || var(body.results[k])) set(in.dsts[k]);
        return;
      }
    }
  }
};

void note_writes(const kir::Block& b, std::vector<char>& written) {
  for (const kir::Instr& in : b.instrs) {
    if (in.op == Opcode::LocalWrite && in.aux >= 0 && size_t(in.aux) < written.size()) written[size_t(in.aux)] = 1;
    for (const kir::Block& nb : in.blocks) note_writes(nb, written);
  }
}

// Runs the analysis over `b` to its fixpoint (registers only ever become
// varying, so this terminates).
void fixpoint(Analysis& a, const kir::Block& b) {
  do {
    a.changed = false;
    a.masked = 0;
    a.block(b);
  } while (a.changed && a.ok);
}

void find_lane_loops(const kir::Function& f, const kir::Block& b, LaneLoops& out) {
  for (const kir::Instr& in : b.instrs) {
    if (in.op == Opcode::For && in.dsts.empty() && in.blocks.size() == 1 && in.blocks[0].params.size() == 1) {
      Analysis a;
      a.v.assign(f.reg_types.size(), 0);
      a.counter = in.blocks[0].params[0];
      a.v[size_t(a.counter)] = 1;
      a.written.assign(f.locals.size(), 0);
      note_writes(in.blocks[0], a.written);
      fixpoint(a, in.blocks[0]);
      if (a.ok && a.masked > 0) {
        out.emplace(&in, std::move(a.v));
        continue;
      }
    }
    for (const kir::Block& nb : in.blocks) find_lane_loops(f, nb, out);
  }
}

bool loops(const kir::Block& b) {
  for (const kir::Instr& in : b.instrs) {
    if (in.op == Opcode::For || in.op == Opcode::While) return true;
    for (const kir::Block& nb : in.blocks)
      if (loops(nb)) return true;
  }
  return false;
}

}  // namespace

std::optional<std::vector<char>> varying_registers(const kir::Function& f) {
  Analysis a;
  a.v.assign(f.reg_types.size(), 0);
  for (Reg p : f.body.params) a.v[size_t(p)] = 1;
  // Carried values feed back into themselves: iterate to the fixpoint.
  fixpoint(a, f.body);
  if (!a.ok) return std::nullopt;
  return a.v;
}

LaneLoops lane_loops(const kir::Function& f) {
  LaneLoops out;
  find_lane_loops(f, f.body, out);
  for (const kir::Subroutine& s : f.subs) find_lane_loops(f, s.body, out);
  return out;
}

bool has_loop(const kir::Function& f) { return loops(f.body); }

}  // namespace thorn::host::native
