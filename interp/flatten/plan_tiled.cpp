// Recogniser of the tiled schedule (plan_tiled.hpp). An abstract
// evaluation of the element: integer registers as affine functions of
// (i, j, k) with constant coefficients, values of the product as what they
// are (a read of A or B, their product or squared difference, the running
// sum), booleans of the argmin as truth tables over its three comparisons.
// Anything it does not follow makes the step run as planned.
#include "interp/flatten/plan_tiled.hpp"

#include <fmt/format.h>

#include <vector>

namespace thorn::plan {

namespace {

using kir::Instr;
using kir::Opcode;
using kir::Reg;

// Truth tables over the argmin's comparisons, bit (lt | eq << 1 | ilt << 2).
constexpr uint8_t kLt = 0xAA, kEq = 0xCC, kIlt = 0xF0;

struct AV {
  enum Kind {
    Unknown,
    Aff,     // c0 + c1*i + c2*j + c3*k (an i64)
    Const,   // a constant of another type (imm)
    Load,    // a read of free array `arr` at an affine index
    Prod,    // x * y, both loads
    Diff,    // x - y, both loads
    Sq,      // x * x, x a Diff
    Acc,     // the running sum
    Sum,     // acc + term: x the accumulator, y the term
    Result,  // the finished sum of one column
    Local,   // the private row's element j
    InvCmp,  // a comparison of element-invariant i64s: candidate `chk`
    Bool,    // a truth table `tt` over the argmin's comparisons
    Best,    // the argmin's running value
    BestIdx, // the argmin's running index
    PickV,   // select(tt, best, row[j])
    PickI,   // select(tt, index, j)
    FinalV,  // the argmin's value after the loop
    FinalI,  // the argmin's index after the loop
  } kind = Unknown;
  int64_t c[4] = {0, 0, 0, 0};
  int arr = -1;
  Reg x = kir::kNoReg, y = kir::kNoReg;
  Scalar imm;
  uint8_t tt = 0;
  int chk = -1;
  bool is_const() const { return kind == Aff && c[1] == 0 && c[2] == 0 && c[3] == 0; }
};

struct Walker {
  const Step& s;
  const kir::Function& f;
  std::vector<AV> v;
  std::vector<TiledProduct::Check> candidates;  // InvCmp values, checked or not
  int64_t ub[4] = {1, 1, 1, 1};  // bounds of i, j, k (exclusive)
  TiledProduct t;
  int local = -1;       // the private row, when the product goes through one
  bool stored = false;  // the output written (directly or by the copy loop)
  bool computed = false;
  bool reduced = false;  // the argmin ran

  Walker(const Step& st) : s(st), f(st.element), v(size_t(st.element.num_regs())) {}

  AV& at(Reg r) { return v.at(size_t(r)); }
  Prim type(Reg r) const { return f.reg_types.at(size_t(r)); }
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
  // An i64 that is the same for every element: a constant, or a read of an
  // unwritten i64 array at a constant index (a captured size).
  bool invariant(Reg r, int& arr, int64_t& x) {
    const AV& a = at(r);
    if (a.is_const()) {
      arr = -1;
      x = a.c[0];
      return true;
    }
    if (a.kind != AV::Load || a.c[1] != 0 || a.c[2] != 0 || a.c[3] != 0) return false;
    const kir::FreeArray& fa = f.free_arrays.at(size_t(a.arr));
    if (fa.elem != Prim::I64 || fa.written) return false;
    arr = a.arr;
    x = a.c[0];
    return true;
  }

  // Pure instructions, and Checks of invariant conditions; false on
  // anything else with an effect.
  bool pure(const Instr& in) {
    AV r;
    switch (in.op) {
      case Opcode::Const:
        if (in.type == Prim::I64) {
          r.kind = AV::Aff;
          r.c[0] = in.imm.i;
        } else if (in.type == Prim::Bool) {
          r.kind = AV::Bool;
          r.tt = in.imm.b ? 0xFF : 0x00;
        } else {
          r.kind = AV::Const;
          r.imm = in.imm;
        }
        break;
      case Opcode::Binary: {
        const AV &x = at(in.a), &y = at(in.b);
        if (in.type == Prim::Bool) {
          bool_binary(in, r);
          break;
        }
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
      case Opcode::Compare: compare(in, r); break;
      case Opcode::Select: select(in, r); break;
      case Opcode::Unary:
        if (in.type == Prim::Bool && in.sub == uint8_t(kir::UnOp::Not) && at(in.a).kind == AV::Bool) {
          r.kind = AV::Bool;
          r.tt = uint8_t(~at(in.a).tt);
        }
        break;
      case Opcode::Convert: break;
      case Opcode::Check: {
        const AV& c = at(in.a);
        if (c.kind != AV::InvCmp) return false;
        t.checks.push_back(candidates.at(size_t(c.chk)));
        return true;
      }
      default:
        return false;
    }
    if (in.dst != kir::kNoReg) at(in.dst) = r;
    return true;
  }

  void bool_binary(const Instr& in, AV& r) {
    const AV &x = at(in.a), &y = at(in.b);
    if (x.kind != AV::Bool || y.kind != AV::Bool) return;
    r.kind = AV::Bool;
    switch (in.binop()) {
      case kir::BinOp::And: r.tt = x.tt & y.tt; break;
      case kir::BinOp::Or: r.tt = x.tt | y.tt; break;
      case kir::BinOp::Xor: r.tt = x.tt ^ y.tt; break;
      default: r.kind = AV::Unknown;
    }
  }

  void compare(const Instr& in, AV& r) {
    const AV &x = at(in.a), &y = at(in.b);
    // The argmin's comparisons: best < x, best == x (the row's type), index < j.
    if (x.kind == AV::Best && y.kind == AV::Local && in.type == t.type) {
      // (> and >= would need a third atom, unordered, for NaNs.)
      r.kind = AV::Bool;
      switch (in.cmpop()) {
        case kir::CmpOp::Lt: r.tt = kLt; break;
        case kir::CmpOp::Le: r.tt = kLt | kEq; break;
        case kir::CmpOp::Eq: r.tt = kEq; break;
        case kir::CmpOp::Ne: r.tt = uint8_t(~kEq); break;
        default: r.kind = AV::Unknown;
      }
      return;
    }
    if (x.kind == AV::BestIdx && only(y, 2) && in.type == Prim::I64 && in.cmpop() == kir::CmpOp::Lt) {
      r.kind = AV::Bool;
      r.tt = kIlt;
      return;
    }
    TiledProduct::Check c;
    if (in.type != Prim::I64 || !invariant(in.a, c.xa, c.x) || !invariant(in.b, c.ya, c.y)) return;
    c.op = in.cmpop();
    r.kind = AV::InvCmp;
    r.chk = int(candidates.size());
    candidates.push_back(c);
  }

  void select(const Instr& in, AV& r) {
    const AV &c = at(in.a), &x = at(in.b), &y = at(in.c);
    if (c.kind != AV::Bool) return;
    if (x.kind == AV::Bool && y.kind == AV::Bool) {
      r.kind = AV::Bool;
      r.tt = uint8_t((c.tt & x.tt) | (~c.tt & y.tt));
    } else if (x.kind == AV::Best && y.kind == AV::Local) {
      r.kind = AV::PickV;
      r.tt = c.tt;
    } else if (x.kind == AV::BestIdx && only(y, 2)) {
      r.kind = AV::PickI;
      r.tt = c.tt;
    }
  }

  void binary_value(const Instr& in, AV& r) {
    const AV &x = at(in.a), &y = at(in.b);
    if (in.binop() == kir::BinOp::Mul && x.kind == AV::Load && y.kind == AV::Load) {
      r.kind = AV::Prod;
    } else if (in.binop() == kir::BinOp::Sub && x.kind == AV::Load && y.kind == AV::Load) {
      r.kind = AV::Diff;
    } else if (in.binop() == kir::BinOp::Mul && x.kind == AV::Diff && in.a == in.b) {
      r.kind = AV::Sq;
      r.x = at(in.a).x;
      r.y = at(in.a).y;
      return;
    } else if (in.binop() == kir::BinOp::Add && x.kind == AV::Acc && (y.kind == AV::Prod || y.kind == AV::Sq)) {
      r.kind = AV::Sum;
    } else {
      return;
    }
    r.x = in.a;
    r.y = in.b;
  }

  // The inner sum: `for depth times, init (init)` over one accumulator.
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
    Prim ty = type(in.dsts[0]);
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
      if (x.op == Opcode::Check || !pure(x)) return false;
    const AV& sum = at(body.results[0]);
    if (sum.kind != AV::Sum || sum.x != body.params[1]) return false;
    const AV& term = at(sum.y);
    t.term = term.kind == AV::Sq ? TiledProduct::Term::SqDiff : TiledProduct::Term::Mul;
    Reg ra = term.x, rb = term.y;  // the loads: a Prod's, or the Diff's that Sq squares
    const AV &la = at(ra), &lb = at(rb);
    // A[i, k] first (map2 (*) r c, x - y with x from the row), then B[k, j]:
    // A must not depend on j, nor B on i.
    if (la.c[2] != 0 || lb.c[1] != 0) return false;
    if (type(ra) != ty || type(rb) != ty) return false;
    if (f.free_arrays.at(size_t(la.arr)).elem != ty || f.free_arrays.at(size_t(lb.arr)).elem != ty) return false;
    t.a = la.arr;
    t.a0 = la.c[0];
    t.ai = la.c[1];
    t.ak = la.c[3];
    t.b = lb.arr;
    t.b0 = lb.c[0];
    t.bk = lb.c[3];
    t.bj = lb.c[2];
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

  // A loop over the columns: the sums (phase 0) or the copy of the
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
      if (x.op == Opcode::Check || !pure(x)) return false;
    }
    if (!copy) {
      if (t.a < 0 || (local < 0 && !stored)) return false;
      t.cols = n.c[0];
      computed = true;
    }
    return true;
  }

  // The argmin over the private row: `for cols times, init (best0, idx0)`
  // whose body picks (best, index) or (row[j], j) by one truth table.
  bool argmin(const Instr& in) {
    if (in.args.size() != 2 || in.dsts.size() != 2 || in.blocks.size() != 1) return false;
    if (t.type != Prim::F64 && t.type != Prim::F32) return false;  // unsigned in the executor otherwise
    const AV& n = at(in.a);
    const AV &b0 = at(in.args[0]), &i0 = at(in.args[1]);
    if (!n.is_const() || n.c[0] != t.cols || b0.kind != AV::Const || !i0.is_const()) return false;
    if (type(in.args[0]) != t.type || type(in.args[1]) != Prim::I64) return false;
    const kir::Block& body = in.blocks[0];
    if (body.params.size() != 3 || body.results.size() != 2) return false;
    ub[2] = t.cols;
    at(body.params[0]) = AV{};
    at(body.params[0]).kind = AV::Aff;
    at(body.params[0]).c[2] = 1;
    at(body.params[1]) = AV{};
    at(body.params[1]).kind = AV::Best;
    at(body.params[2]) = AV{};
    at(body.params[2]).kind = AV::BestIdx;
    for (const Instr& x : body.instrs)
      if (x.op == Opcode::Check || !pure(x)) return false;
    const AV &pv = at(body.results[0]), &pi = at(body.results[1]);
    if (pv.kind != AV::PickV || pi.kind != AV::PickI || pv.tt != pi.tt) return false;
    t.use = TiledProduct::Use::ArgMin;
    t.best0 = b0.imm;
    t.idx0 = i0.c[0];
    t.keep = pv.tt;
    at(in.dsts[0]).kind = AV::FinalV;
    at(in.dsts[1]).kind = AV::FinalI;
    reduced = true;
    return true;
  }

  bool run() {
    if (s.kind != StepKind::SegMap || !f.subs.empty()) return false;
    // One element per row: [rows][1] (the row-per-element plan) or [1][rows]
    // (a delayed map materialised).
    bool by_segment = s.segment_size == 1;
    if (!by_segment && s.segments != 1) return false;
    const kir::Block& top = f.body;
    if (top.params.size() != 2) return false;
    t.rows = by_segment ? s.segments : s.segment_size;
    ub[1] = std::max<int64_t>(t.rows, 1);
    at(top.params[0]).kind = AV::Aff;
    at(top.params[1]).kind = AV::Aff;
    at(top.params[by_segment ? 0 : 1]).c[1] = 1;
    for (const Instr& x : top.instrs) {
      if (x.op == Opcode::For) {
        if (reduced) return false;
        if (computed && local >= 0 && !stored && x.args.size() == 2) {
          if (!argmin(x)) return false;
        } else if (!columns(x)) {
          return false;
        }
        continue;
      }
      if (!pure(x)) return false;
    }
    if (!computed) return false;
    if (reduced) {
      if (stored || s.writes.size() != 1 || top.results.size() != 1) return false;
      const AV& r = at(top.results[0]);
      if (r.kind != AV::FinalI && r.kind != AV::FinalV) return false;
      t.want_index = r.kind == AV::FinalI;
      return true;
    }
    if (!s.writes.empty() || !top.results.empty()) return false;
    if (!stored || t.out == t.a || t.out == t.b) return false;
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
  const char* term = t.term == TiledProduct::Term::Mul ? "product" : "squared differences";
  if (t.use == TiledProduct::Use::ArgMin)
    return fmt::format("tiled argmin of sums of {} [{}][{}] over {} of {}: blocks of rows x columns, columns "
                       "across lanes, k in order, then the argmin of each row in order",
                       term, t.rows, t.cols, t.depth, prim_name(t.type));
  return fmt::format("tiled {} [{}][{}] over {} of {}: blocks of rows x columns, columns across lanes, k in order",
                     term, t.rows, t.cols, t.depth, prim_name(t.type));
}

}  // namespace thorn::plan
