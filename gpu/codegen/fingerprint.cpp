#include "gpu/codegen/fingerprint.hpp"

#include <cstring>
#include <set>

#include "gpu/codegen/constants.hpp"

namespace thorn::gpu::cg {

namespace {

struct Writer {
  std::string out;
  int lifted = 0;  // as lift_constants counts: same walk order, same cap
  bool keep_divisors = false;   // as lift_constants(..., keep_divisors)
  bool in_sub = false;          // a subroutine's constants are never lifted (constants.cpp)
  std::set<kir::Reg> divisors;  // of the function being written
  template <class T>
  void put(const T& v) {
    char buf[sizeof(T)];
    std::memcpy(buf, &v, sizeof(T));
    out.append(buf, sizeof(T));
  }
  void scalar(const Scalar& s) {
    put(uint8_t(s.type));
    put(s.u);  // all bits of the union; normalised values make this canonical
  }
  void regs(const std::vector<kir::Reg>& rs) {
    put(uint32_t(rs.size()));
    for (kir::Reg r : rs) put(r);
  }
  void block(const kir::Block& b) {
    regs(b.params);
    put(uint32_t(b.instrs.size()));
    for (const kir::Instr& in : b.instrs) {
      put(uint8_t(in.op));
      put(uint8_t(in.type));
      put(uint8_t(in.src_type));
      put(in.sub);
      put(in.dst);
      put(in.a);
      put(in.b);
      put(in.c);
      put(in.aux);
      if (in.op == kir::Opcode::Const) {
        // A lifted constant's value is a launch argument, not part of the text.
        bool lift = !in_sub && in.imm.type == in.type && worth_lifting(in.imm) && lifted < kMaxLiftedConstants &&
                    !(keep_divisors && divisors.count(in.dst));
        lifted += lift;
        put(uint8_t(lift));
        if (!lift) scalar(in.imm);
      }
      regs(in.dsts);
      regs(in.args);
      put(uint32_t(in.blocks.size()));
      for (const kir::Block& nb : in.blocks) block(nb);
    }
    regs(b.results);
  }
  void function(const kir::Function& f) {
    put(uint32_t(f.reg_types.size()));
    for (Prim p : f.reg_types) put(uint8_t(p));
    put(uint32_t(f.free_arrays.size()));
    for (const kir::FreeArray& fa : f.free_arrays) {
      put(uint8_t(fa.elem));
      put(uint8_t(fa.written));
    }
    if (keep_divisors) divisors = divisor_registers(f);
    // Private arrays' sizes are in the kernel text (gpu/codegen/kir_to_cuda.cpp).
    put(uint32_t(f.locals.size()));
    for (const kir::LocalArray& l : f.locals) {
      put(uint8_t(l.elem));
      put(l.count);
    }
    block(f.body);
    // Subroutines are code of the kernel like the body (kernel_ir.hpp),
    // their constants included.
    put(uint32_t(f.subs.size()));
    in_sub = true;
    for (const kir::Subroutine& s : f.subs) block(s.body);
    in_sub = false;
  }
};

}  // namespace

std::string structural_key(const plan::Step& step, bool keep_divisors) {
  Writer w;
  w.keep_divisors = keep_divisors;
  w.put(uint8_t(step.kind));
  w.put(int32_t(step.num_map_outputs));
  w.put(uint32_t(step.neutral.size()));
  for (const Scalar& s : step.neutral) w.scalar(s);
  w.function(step.element);
  w.function(step.op);
  return w.out;
}

}  // namespace thorn::gpu::cg
