#include "gpu/codegen/constants.hpp"

#include <cstring>
#include <set>

#include <fmt/format.h>

#include "gpu/codegen/ctypes.hpp"

namespace thorn::gpu::cg {

bool worth_lifting(const Scalar& s) {
  if (s.type == Prim::Bool) return false;
  if (is_float(s.type)) return !(s.f == 0.0 || s.f == 1.0 || s.f == -1.0);  // NaN is lifted
  if (is_unsigned_int(s.type)) return s.u > 1 && s.u != (uint64_t(-1) >> (64 - prim_bytes(s.type) * 8));
  return s.i < -1 || s.i > 1;
}

namespace {

// Registers some integer division or remainder of f divides by.
void collect_divisors(const kir::Block& b, std::set<kir::Reg>& out) {
  for (const kir::Instr& in : b.instrs) {
    if (in.op == kir::Opcode::Binary && is_integral(in.type)) {
      kir::BinOp op = in.binop();
      if (op == kir::BinOp::Quot || op == kir::BinOp::Rem || op == kir::BinOp::Div || op == kir::BinOp::Mod)
        out.insert(in.b);
    }
    for (const kir::Block& nb : in.blocks) collect_divisors(nb, out);
  }
}

// Constants of subroutines (kir::Subroutine) stay in the text: a
// subroutine's body is a function of the program specialised on its known
// arguments, so its constants are the program's own, not run-time values
// that change from call to call; in the text the compiler folds them (a
// private array's index, its bounds check), which myocyte's 3,000-line ecc
// needs to compile in reasonable time. fingerprint.cpp writes them.

void walk(const kir::Block& b, LiftedConstants& lc, int max_slots, const std::set<kir::Reg>* keep) {
  for (const kir::Instr& in : b.instrs) {
    if (in.op == kir::Opcode::Const && in.imm.type == in.type && worth_lifting(in.imm) &&
        int(lc.values.size()) < max_slots && !(keep && keep->count(in.dst))) {
      lc.slot[&in] = int(lc.values.size());
      lc.values.push_back(in.imm);
    }
    for (const kir::Block& nb : in.blocks) walk(nb, lc, max_slots, keep);
  }
}

void walk_function(const kir::Function& f, LiftedConstants& lc, int max_slots, bool keep_divisors) {
  std::set<kir::Reg> divisors;
  if (keep_divisors) divisors = divisor_registers(f);
  walk(f.body, lc, max_slots, keep_divisors ? &divisors : nullptr);
}

}  // namespace

std::set<kir::Reg> divisor_registers(const kir::Function& f) {
  std::set<kir::Reg> out;
  collect_divisors(f.body, out);
  return out;
}

LiftedConstants lift_constants(const plan::Step& step, int max_slots, bool keep_divisors) {
  LiftedConstants lc;
  walk_function(step.element, lc, max_slots, keep_divisors);
  walk_function(step.op, lc, max_slots, keep_divisors);
  return lc;
}

std::vector<uint64_t> constant_bits(const LiftedConstants& lc) {
  std::vector<uint64_t> out;
  for (const Scalar& s : lc.values) {
    uint64_t bits = 0;
    switch (s.type) {
      case Prim::F16:
      case Prim::F32: {
        float f = float(s.f);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        bits = b;
        break;
      }
      case Prim::F64: std::memcpy(&bits, &s.f, 8); break;
      default: bits = s.u; break;  // integers: sign-extended two's complement; the kernel truncates
    }
    out.push_back(bits);
  }
  return out;
}

std::string lifted_expr(Prim t, int slot) {
  switch (t) {
    case Prim::F16:
    case Prim::F32: return fmt::format("__uint_as_float((u32)env.kc.v[{}])", slot);
    case Prim::F64: return fmt::format("__longlong_as_double((i64)env.kc.v[{}])", slot);
    default: return fmt::format("(({})env.kc.v[{}])", reg_type(t), slot);
  }
}

}  // namespace thorn::gpu::cg
