#pragma once
// Affine forms of a kernel's i64 registers in the element parameters
// (segment s, position j): index = cs*s + cj*j + c0 (internal header). The
// interpreter turns reads at such indices into strided copies
// (host_compile.cpp); the native tier checks their bounds once per range
// instead of once per element (interp/exec/native).
#include <optional>
#include <unordered_map>

#include "interp/exec/host_program.hpp"
#include "interp/flatten/kernel_ir.hpp"

namespace thorn::host {

// Affine forms of i64 registers in terms of the element parameters (s, j).
struct AffineAnalysis {
  // Seeds s and j with the forms (1,0,0) and (0,1,0) when f's first two
  // parameters are i64, then analyses its body.
  void element(const kir::Function& f) {
    if (f.body.params.size() < 2) return;
    if (f.reg_types[size_t(f.body.params[0])] != Prim::I64 || f.reg_types[size_t(f.body.params[1])] != Prim::I64) return;
    forms[f.body.params[0]] = Affine{1, 0, 0, false};
    forms[f.body.params[1]] = Affine{0, 1, 0, false};
    block(f.body);
  }

  std::unordered_map<kir::Reg, Affine> forms;

  std::optional<Affine> get(kir::Reg r) const {
    auto it = forms.find(r);
    if (it == forms.end()) return std::nullopt;
    return it->second;
  }

  void block(const kir::Block& b) {
    for (const kir::Instr& in : b.instrs) {
      if (in.op == kir::Opcode::Const && in.type == Prim::I64) {
        forms[in.dst] = Affine{0, 0, in.imm.i, false};
      } else if (in.op == kir::Opcode::Binary && in.type == Prim::I64) {
        auto a = get(in.a), c = get(in.b);
        if (!a || !c) continue;
        switch (in.binop()) {
          case kir::BinOp::Add: forms[in.dst] = Affine{a->cs + c->cs, a->cj + c->cj, a->c0 + c->c0, false}; break;
          case kir::BinOp::Sub: forms[in.dst] = Affine{a->cs - c->cs, a->cj - c->cj, a->c0 - c->c0, false}; break;
          case kir::BinOp::Mul:
            if (a->cs == 0 && a->cj == 0) forms[in.dst] = Affine{c->cs * a->c0, c->cj * a->c0, c->c0 * a->c0, false};
            else if (c->cs == 0 && c->cj == 0) forms[in.dst] = Affine{a->cs * c->c0, a->cj * c->c0, a->c0 * c->c0, false};
            break;
          default: break;
        }
      }
      for (const kir::Block& nb : in.blocks) block(nb);
    }
  }
};

}  // namespace thorn::host
