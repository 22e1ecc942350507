#include "interp/exec/native/native_uniform.hpp"

namespace thorn::host::native {

namespace {

using kir::Opcode;
using kir::Reg;

struct Analysis {
  std::vector<char> v;
  bool ok = true;
  bool changed = false;

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
      case Opcode::Check:
      case Opcode::Write:
      case Opcode::LocalWrite: return;
      case Opcode::LocalRead: set(in.dst); return;  // private contents differ per element
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
        if (var(cond.results[0])) ok = false;
        block(body);
        for (size_t k = 0; k < in.dsts.size(); ++k)
          if (var(cond.params[k]) || var(body.results[k])) set(in.dsts[k]);
        return;
      }
    }
  }
};

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
  // Carried values feed back into themselves: iterate to the fixpoint
  // (registers only ever become varying, so this terminates).
  do {
    a.changed = false;
    a.block(f.body);
  } while (a.changed && a.ok);
  if (!a.ok) return std::nullopt;
  return a.v;
}

bool has_loop(const kir::Function& f) { return loops(f.body); }

}  // namespace thorn::host::native
