// Index arithmetic from value ranges, and loop-invariant code motion, on
// kernel IR (kernel_ir_simplify.hpp).
//
// Flattening composes index maps: an element of a flattened [n*m][k] array
// read at row f, column j is at flat position f*k + j, which the producer
// of the row splits again into f = (f*k + j) / k and j = (f*k + j) % k.
// Inside the loop over j (0 <= j < k) both are known without dividing, and
// what is left that does not depend on j can leave the loop. A distributed
// matmul's dot-product loop had two divisions and two remainders per
// multiply-add before this.
#include "interp/flatten/kernel_ir_simplify.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <vector>

namespace thorn::kir {

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
// A bound on element indices and trip counts: an element index addresses
// memory (and a loop past 2^48 iterations would run for days), so sums and
// products of a few of them do not overflow.
constexpr int64_t kIndexBound = int64_t(1) << 48;

struct Range {
  int64_t lo, hi;  // inclusive
};

struct Def {
  BinOp op;
  Reg a, b;
};

std::optional<Range> add_ranges(Range x, Range y) {
  Range r;
  if (__builtin_add_overflow(x.lo, y.lo, &r.lo) || __builtin_add_overflow(x.hi, y.hi, &r.hi)) return std::nullopt;
  return r;
}

std::optional<Range> sub_ranges(Range x, Range y) {
  Range r;
  if (__builtin_sub_overflow(x.lo, y.hi, &r.lo) || __builtin_sub_overflow(x.hi, y.lo, &r.hi)) return std::nullopt;
  return r;
}

std::optional<Range> mul_ranges(Range x, Range y) {
  if (x.lo < 0 || y.lo < 0) return std::nullopt;
  Range r;
  if (__builtin_mul_overflow(x.lo, y.lo, &r.lo) || __builtin_mul_overflow(x.hi, y.hi, &r.hi)) return std::nullopt;
  return r;
}

bool is_division(BinOp op) { return op == BinOp::Div || op == BinOp::Quot; }
bool is_remainder(BinOp op) { return op == BinOp::Mod || op == BinOp::Rem; }

struct RangeSimplifier {
  Function& f;
  std::vector<std::optional<Range>> range;
  std::vector<std::optional<Def>> def;
  std::vector<Reg> rename;

  explicit RangeSimplifier(Function& fn)
      : f(fn), range(fn.reg_types.size()), def(fn.reg_types.size()), rename(fn.reg_types.size()) {
    for (size_t r = 0; r < rename.size(); ++r) rename[r] = Reg(r);
  }

  Reg name(Reg r) const { return r == kNoReg ? r : rename[size_t(r)]; }
  std::optional<Range> of(Reg r) const { return r == kNoReg ? std::nullopt : range[size_t(r)]; }
  std::optional<int64_t> constant(Reg r) const {
    auto x = of(r);
    if (x && x->lo == x->hi) return x->lo;
    return std::nullopt;
  }
  bool nonnegative(Reg r) const {
    auto x = of(r);
    return x && x->lo >= 0;
  }
  bool below(Reg r, int64_t c) const {
    auto x = of(r);
    return x && x->lo >= 0 && x->hi < c;
  }

  // a = z*c + q with 0 <= z, z*c + q not overflowing, and 0 <= q < c (q
  // may be absent): (z, q).
  std::optional<std::pair<Reg, Reg>> split(Reg a, int64_t c) const {
    auto fits = [&](Reg z) {
      auto x = of(z);
      return x && x->lo >= 0 && x->hi <= (kMax - c) / c;
    };
    auto times_c = [&](Reg p) -> Reg {
      if (p == kNoReg || !def[size_t(p)] || def[size_t(p)]->op != BinOp::Mul) return kNoReg;
      const Def& d = *def[size_t(p)];
      if (constant(d.b) == c && fits(d.a)) return d.a;
      if (constant(d.a) == c && fits(d.b)) return d.b;
      return kNoReg;
    };
    if (Reg z = times_c(a); z != kNoReg) return std::make_pair(z, kNoReg);
    if (!def[size_t(a)] || def[size_t(a)]->op != BinOp::Add) return std::nullopt;
    const Def& d = *def[size_t(a)];
    if (Reg z = times_c(d.a); z != kNoReg && below(d.b, c)) return std::make_pair(z, d.b);
    if (Reg z = times_c(d.b); z != kNoReg && below(d.a, c)) return std::make_pair(z, d.a);
    return std::nullopt;
  }

  // The register an i64 division or remainder by a positive constant
  // equals, if the ranges show one.
  Reg simplified(const Instr& in) const {
    BinOp op = in.binop();
    if (!is_division(op) && !is_remainder(op)) return kNoReg;
    std::optional<int64_t> c = constant(in.b);
    if (!c || *c <= 0) return kNoReg;
    if (is_remainder(op) && below(in.a, *c)) return in.a;
    auto zq = split(in.a, *c);
    if (!zq) return kNoReg;
    if (is_division(op)) return zq->first;
    return zq->second;  // kNoReg (a remainder of 0) stays as it is
  }

  void binary_range(const Instr& in) {
    auto x = of(in.a), y = of(in.b);
    std::optional<Range> r;
    switch (in.binop()) {
      case BinOp::Add:
        if (x && y) r = add_ranges(*x, *y);
        break;
      case BinOp::Sub:
        if (x && y) r = sub_ranges(*x, *y);
        break;
      case BinOp::Mul:
        if (x && y) r = mul_ranges(*x, *y);
        break;
      case BinOp::Div:
      case BinOp::Quot:
        if (x && y && x->lo >= 0 && y->lo > 0) r = Range{x->lo / y->hi, x->hi / y->lo};
        break;
      case BinOp::Mod:
      case BinOp::Rem:
        if (x && y && x->lo >= 0 && y->lo > 0) r = Range{0, std::min(x->hi, y->hi - 1)};
        break;
      case BinOp::Min:
        if (x && y) r = Range{std::min(x->lo, y->lo), std::min(x->hi, y->hi)};
        break;
      case BinOp::Max:
        if (x && y) r = Range{std::max(x->lo, y->lo), std::max(x->hi, y->hi)};
        break;
      default: break;
    }
    range[size_t(in.dst)] = r;
  }

  void block(Block& b) {
    std::vector<Instr> kept;
    kept.reserve(b.instrs.size());
    for (Instr& in : b.instrs) {
      in.a = name(in.a);
      in.b = name(in.b);
      in.c = name(in.c);
      for (Reg& r : in.args) r = name(r);
      switch (in.op) {
        case Opcode::Const:
          if (in.type == Prim::I64) range[size_t(in.dst)] = Range{in.imm.as_i64(), in.imm.as_i64()};
          break;
        case Opcode::Binary:
          if (in.type != Prim::I64) break;
          if (Reg same = simplified(in); same != kNoReg) {
            rename[size_t(in.dst)] = same;
            continue;  // dropped: its value is `same`'s
          }
          def[size_t(in.dst)] = Def{in.binop(), in.a, in.b};
          binary_range(in);
          break;
        case Opcode::For: {
          Block& body = in.blocks.at(0);
          // The counter runs over [0, count).
          auto n = of(in.a);
          int64_t hi = n ? std::max<int64_t>(0, std::min(n->hi, kIndexBound) - 1) : kIndexBound - 1;
          if (!body.params.empty()) range[size_t(body.params[0])] = Range{0, hi};
          block(body);
          break;
        }
        default:
          for (Block& inner : in.blocks) block(inner);
          break;
      }
      kept.push_back(std::move(in));
    }
    b.instrs = std::move(kept);
    for (Reg& r : b.results) r = name(r);
  }
};

// Registers defined anywhere in b (its parameters, nested blocks included).
void defined_in(const Block& b, std::set<Reg>& out) {
  out.insert(b.params.begin(), b.params.end());
  for (const Instr& in : b.instrs) {
    if (in.dst != kNoReg) out.insert(in.dst);
    out.insert(in.dsts.begin(), in.dsts.end());
    for (const Block& inner : in.blocks) defined_in(inner, out);
  }
}

// Pure instructions that cannot fail whatever their operands: hoisting one
// out of a loop that runs zero times computes a value nobody uses. Integer
// division is kept unless by a non-zero constant (its Check guards it in
// place).
bool hoistable(const Instr& in, const std::vector<std::optional<int64_t>>& constants) {
  switch (in.op) {
    case Opcode::Const:
    case Opcode::Unary:
    case Opcode::Compare:
    case Opcode::Convert:
    case Opcode::Select:
      return true;
    case Opcode::Binary: {
      BinOp op = in.binop();
      if (!is_integral(in.type) || !(is_division(op) || is_remainder(op))) return true;
      const auto& c = constants[size_t(in.b)];
      return c && *c != 0 && *c != -1;
    }
    default: return false;
  }
}

struct Hoister {
  std::vector<std::optional<int64_t>> constants;  // integer Const registers

  // Moves the loop-invariant instructions of each loop in b (innermost
  // first) to just before the loop.
  void block(Block& b) {
    std::vector<Instr> out;
    out.reserve(b.instrs.size());
    for (Instr& in : b.instrs) {
      if (in.op == Opcode::Const && is_integral(in.type)) constants[size_t(in.dst)] = in.imm.as_i64();
      for (Block& inner : in.blocks) block(inner);
      if (in.op == Opcode::For || in.op == Opcode::While) {
        std::set<Reg> inside;
        for (const Block& inner : in.blocks) defined_in(inner, inside);
        for (Block& inner : in.blocks) {
          std::vector<Instr> stay;
          for (Instr& x : inner.instrs) {
            bool invariant = hoistable(x, constants) && x.blocks.empty();
            for (Reg r : {x.a, x.b, x.c})
              if (r != kNoReg && inside.count(r)) invariant = false;
            if (invariant) {
              inside.erase(x.dst);
              out.push_back(std::move(x));
            } else {
              stay.push_back(std::move(x));
            }
          }
          inner.instrs = std::move(stay);
        }
      }
      out.push_back(std::move(in));
    }
    b.instrs = std::move(out);
  }
};

}  // namespace

void simplify_index_arithmetic(Function& f, bool params_are_indices) {
  RangeSimplifier rs(f);
  if (params_are_indices)
    for (Reg p : f.body.params)
      if (f.reg_types.at(size_t(p)) == Prim::I64) rs.range[size_t(p)] = Range{0, kIndexBound - 1};
  // A subroutine's parameters are its caller's values: nothing is known of them.
  for (Subroutine& s : f.subs) rs.block(s.body);
  rs.block(f.body);
}

void hoist_loop_invariants(Function& f) {
  Hoister h;
  h.constants.resize(f.reg_types.size());
  for (Subroutine& s : f.subs) h.block(s.body);
  h.block(f.body);
}

}  // namespace thorn::kir
