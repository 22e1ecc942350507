// Recogniser of the tiled schedule for matmul-like nests (plan_tiled.hpp).
// An abstract evaluation of the element: integer registers as affine
// functions of (i, j, k) with constant coefficients, float/integer values
// of the product as what they are (a read of A or B, their product, the
// running sum). Anything it does not follow makes the step run as planned.
#include "interp/flatten/plan_tiled.hpp"

#include <fmt/format.h>

#include <vector>

namespace thorn::plan {

namespace {

using kir::Instr;
using kir::Opcode;
using kir::Reg;

struct AV {
  enum Kind { Unknown, Aff, Const, Load, Prod, Acc, Sum, Result, Local } kind = Unknown;
  int64_t c[4] = {0, 0, 0, 0};  // affine: c0 + c1*i + c2*j + c3*k
  int arr = -1;                 // Load: free array; Local: private array
  Reg x = kir::kNoReg, y = kir::kNoReg;  // Prod: the two loads; Sum: acc, product
  Scalar imm;
  bool is_const() const { return kind == Aff && c[1] == 0 && c[2] == 0 && c[3] == 0; }
};

struct Walker {
  const Step& s;
  const kir::Function& f;
  std::vector<AV> v;
  int64_t ub[4] = {1, 1, 1, 1};  // bounds of i, j, k (exclusive)
  TiledProduct t;
  int local = -1;       // the private row, when the product goes through one
  bool stored = false;  // the output written (directly or by the copy loop)
  bool computed = false;

  Walker(const Step& st) : s(st), f(st.element), v(size_t(st.element.num_regs())) {}

  AV& at(Reg r) { return v.at(size_t(r)); }
  bool range(const AV& a, int64_t& lo, int64_t& hi) const {
    if (a.kind != AV::Aff) return false;
    lo = hi = a.c[0];
    for (int d = 1; d < 4; ++d) {
      int64_t e = a.c[d] * (ub[d] - 1);
      (e < 0 ? lo : hi) += e;
    }
    return true;
  }
  bool only(const AV& a, int d) const {  // exactly the loop variable d
    if (a.kind != AV::Aff || a.c[0] != 0) return false;
    for (int e = 1; e < 4; ++e)
      if (a.c[e] != (e == d ? 1 : 0)) return false;
    return true;
  }

  // Pure instructions; false on anything with an effect.
  bool pure(const Instr& in) {
    AV r;
    switch (in.op) {
      case Opcode::Const:
        if (in.type == Prim::I64) {
          r.kind = AV::Aff;
          r.c[0] = in.imm.i;
        } else {
          r.kind = AV::Const;
          r.imm = in.imm;
        }
        break;
      case Opcode::Binary: {
        const AV &x = at(in.a), &y = at(in.b);
        if (in.type != Prim::I64 || x.kind != AV::Aff || y.kind != AV::Aff) {
          binary_value(in, r);
          break;
        }
        switch (in.binop()) {
          case kir::BinOp::Add:
          case kir::BinOp::Sub:
            r.kind = AV::Aff;
            for (int d = 0; d < 4; ++d) r.c[d] = in.binop() == kir::BinOp::Add ? x.c[d] + y.c[d] : x.c[d] - y.c[d];
            break;
          case kir::BinOp::Mul:
            if (x.is_const() || y.is_const()) {
              const AV& k = x.is_const() ? x : y;
              const AV& o = x.is_const() ? y : x;
              r.kind = AV::Aff;
              for (int d = 0; d < 4; ++d) r.c[d] = o.c[d] * k.c[0];
            }
            break;
          case kir::BinOp::Quot:
          case kir::BinOp::Rem:
          case kir::BinOp::Div:
          case kir::BinOp::Mod: {
            int64_t lo, hi;
            if (!y.is_const() || y.c[0] <= 0 || !range(x, lo, hi) || lo < 0) break;
            bool q = in.binop() == kir::BinOp::Quot || in.binop() == kir::BinOp::Div;
            if (x.is_const()) {
              r.kind = AV::Aff;
              r.c[0] = q ? x.c[0] / y.c[0] : x.c[0] % y.c[0];
            } else if (hi < y.c[0]) {
              r = q ? AV{} : x;
              if (q) { r.kind = AV::Aff; }
            }
            break;
          }
          default: break;
        }
        break;
      }
      case Opcode::Read:
        if (at(in.a).kind == AV::Aff) {
          r.kind = AV::Load;
          r.arr = in.aux;
          for (int d = 0; d < 4; ++d) r.c[d] = at(in.a).c[d];
        }
        break;
      case Opcode::LocalRead:
        if (in.aux == local && computed && only(at(in.a), 2)) r.kind = AV::Local;
        break;
      case Opcode::Unary:
      case Opcode::Compare:
      case Opcode::Convert:
      case Opcode::Select:
        break;
      default:
        return false;
    }
    if (in.dst != kir::kNoReg) at(in.dst) = r;
    return true;
  }

  void binary_value(const Instr& in, AV& r) {
    const AV &x = at(in.a), &y = at(in.b);
    if (in.binop() == kir::BinOp::Mul && x.kind == AV::Load && y.kind == AV::Load) {
      r.kind = AV::Prod;
      r.x = in.a;
      r.y = in.b;
    } else if (in.binop() == kir::BinOp::Add && x.kind == AV::Acc && y.kind == AV::Prod) {
      r.kind = AV::Sum;
      r.x = in.a;
      r.y = in.b;
    }
  }

  // The dot product: `for depth times, init (init)` over one accumulator.
  bool inner(const Instr& in) {
    if (in.args.size() != 1 || in.dsts.size() != 1 || in.blocks.size() != 1) return false;
    const AV& n = at(in.a);
    const AV& init = at(in.args[0]);
    if (!n.is_const() || n.c[0] < 0) return false;
    if (init.kind == AV::Const) {
      t.init = init.imm;
    } else if (init.is_const()) {  // an i64 constant looks like an index
      t.init = Scalar::i64(init.c[0]);
    } else {
      return false;
    }
    Prim ty = f.reg_types[size_t(in.dsts[0])];
    if (ty != Prim::F64 && ty != Prim::F32 && ty != Prim::I64 && ty != Prim::I32) return false;
    const kir::Block& body = in.blocks[0];
    if (body.params.size() != 2 || body.results.size() != 1) return false;
    t.type = ty;
    t.depth = n.c[0];
    ub[3] = std::max<int64_t>(t.depth, 1);
    at(body.params[0]) = AV{};
    at(body.params[0]).kind = AV::Aff;
    at(body.params[0]).c[3] = 1;
    at(body.params[1]).kind = AV::Acc;
    for (const Instr& x : body.instrs)
      if (!pure(x)) return false;
    const AV& sum = at(body.results[0]);
    if (sum.kind != AV::Sum || sum.x != body.params[1]) return false;
    const AV& prod = at(sum.y);
    const AV &la = at(prod.x), &lb = at(prod.y);
    // A[i, k] first (map2 (*) r c), then B[k, j] with j contiguous.
    if (la.c[2] != 0 || lb.c[1] != 0 || lb.c[2] != 1) return false;
    if (f.reg_types[size_t(prod.x)] != ty || f.reg_types[size_t(prod.y)] != ty) return false;
    if (f.free_arrays.at(size_t(la.arr)).elem != ty || f.free_arrays.at(size_t(lb.arr)).elem != ty) return false;
    t.a = la.arr;
    t.a0 = la.c[0];
    t.ai = la.c[1];
    t.ak = la.c[3];
    t.b = lb.arr;
    t.b0 = lb.c[0];
    t.bk = lb.c[3];
    at(in.dsts[0]).kind = AV::Result;
    return true;
  }

  bool output(const Instr& in) {  // Write out[o0 + oi*i + j] := value
    const AV& idx = at(in.a);
    if (idx.kind != AV::Aff || idx.c[2] != 1 || idx.c[3] != 0 || stored) return false;
    if (t.out >= 0 && t.out != in.aux) return false;
    if (!f.free_arrays.at(size_t(in.aux)).written || f.free_arrays[size_t(in.aux)].elem != t.type) return false;
    t.out = in.aux;
    t.o0 = idx.c[0];
    t.oi = idx.c[1];
    stored = true;
    return true;
  }

  // A loop over the columns: the products (phase 0) or the copy of the
  // private row into the output (phase 1).
  bool columns(const Instr& in) {
    if (!in.args.empty() || !in.dsts.empty() || in.blocks.size() != 1) return false;
    const AV& n = at(in.a);
    if (!n.is_const() || n.c[0] <= 0) return false;
    const kir::Block& body = in.blocks[0];
    if (body.params.size() != 1 || !body.results.empty()) return false;
    if (computed && n.c[0] != t.cols) return false;
    ub[2] = n.c[0];
    at(body.params[0]) = AV{};
    at(body.params[0]).kind = AV::Aff;
    at(body.params[0]).c[2] = 1;
    bool copy = computed;
    for (const Instr& x : body.instrs) {
      if (x.op == Opcode::For && !copy && !computed) {
        if (!inner(x)) return false;
        continue;
      }
      if (x.op == Opcode::LocalWrite && !copy && local < 0) {
        const AV& val = at(x.b);
        if (val.kind != AV::Result || !only(at(x.a), 2)) return false;
        if (f.locals.at(size_t(x.aux)).count != n.c[0]) return false;
        local = x.aux;
        continue;
      }
      if (x.op == Opcode::Write) {
        const AV& val = at(x.b);
        if (!(copy ? val.kind == AV::Local : val.kind == AV::Result)) return false;
        if (!output(x)) return false;
        continue;
      }
      if (!pure(x)) return false;
    }
    if (!copy) {
      if (t.a < 0 || (local < 0 && !stored)) return false;
      t.cols = n.c[0];
      computed = true;
    }
    return true;
  }

  bool run() {
    if (s.kind != StepKind::SegMap || s.segment_size != 1 || !s.writes.empty()) return false;
    const kir::Block& top = f.body;
    if (top.params.size() != 2 || !top.results.empty() || !f.subs.empty()) return false;
    t.rows = s.segments;
    ub[1] = std::max<int64_t>(t.rows, 1);
    at(top.params[0]).kind = AV::Aff;
    at(top.params[0]).c[1] = 1;
    at(top.params[1]).kind = AV::Aff;  // position 0 of a segment of one
    for (const Instr& x : top.instrs) {
      if (x.op == Opcode::For) {
        if (!columns(x)) return false;
        continue;
      }
      if (!pure(x)) return false;
    }
    if (!computed || !stored || t.out == t.a || t.out == t.b) return false;
    return true;
  }
};

}  // namespace

std::optional<TiledProduct> recognise_tiled(const Step& s) {
  if (s.kind != StepKind::SegMap) return std::nullopt;
  Walker w(s);
  if (!w.run()) return std::nullopt;
  return w.t;
}

std::string describe(const TiledProduct& t) {
  return fmt::format("tiled product [{}][{}] over {} of {}: blocks of rows x columns, columns across lanes, "
                     "k in order",
                     t.rows, t.cols, t.depth, prim_name(t.type));
}

}  // namespace thorn::plan
