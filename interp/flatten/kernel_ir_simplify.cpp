// Common-subexpression and dead-code elimination on kernel IR
// (kernel_ir_simplify.hpp).
#include "interp/flatten/kernel_ir_simplify.hpp"

#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace thorn::kir {

namespace {

// What makes two pure instructions compute the same value: the opcode, its
// types and sub-operation, the (renamed) operands and the immediate's bits.
using Key = std::tuple<uint8_t, uint8_t, uint8_t, uint8_t, int32_t, Reg, Reg, Reg, uint64_t, std::vector<Reg>>;

uint64_t imm_bits(const Scalar& s) {
  uint64_t u = 0;
  std::memcpy(&u, &s.u, sizeof u);
  return u;
}

// Whether subroutine k only computes its results from its arguments: no
// private array accesses (its array arguments and results travel in
// private storage, which a later call overwrites) and no writes, also in
// the subroutines it calls. A failing Check is fine: the first of two
// identical calls fails before the second is reached.
std::vector<char> pure_subroutines(const Function& f) {
  std::vector<char> pure(f.subs.size(), 1);
  std::function<bool(const Block&)> block_pure = [&](const Block& b) {
    for (const Instr& in : b.instrs) {
      if (in.op == Opcode::LocalRead || in.op == Opcode::LocalWrite || in.op == Opcode::Write) return false;
      if (in.op == Opcode::Call && (in.aux < 0 || size_t(in.aux) >= pure.size() || !pure[size_t(in.aux)]))
        return false;
      for (const Block& inner : in.blocks)
        if (!block_pure(inner)) return false;
    }
    return true;
  };
  // Callees have smaller indices, so one pass in index order settles all.
  for (size_t k = 0; k < f.subs.size(); ++k) pure[k] = block_pure(f.subs[k].body);
  return pure;
}

struct Cse {
  const Function& f;
  std::vector<Reg> rename;  // rename[r]: the register that replaces r
  std::vector<char> pure_sub;
  std::vector<std::map<Key, std::vector<Reg>>> scopes;  // innermost last

  Reg name(Reg r) const { return r == kNoReg ? r : rename[size_t(r)]; }

  void rename_operands(Instr& in) const {
    in.a = name(in.a);
    in.b = name(in.b);
    in.c = name(in.c);
    for (Reg& r : in.args) r = name(r);
  }

  // The key of an instruction that computes a value from its operands
  // alone, or nothing for one with effects or reading mutable storage.
  std::optional<Key> key_of(const Instr& in) const {
    switch (in.op) {
      case Opcode::Const:
      case Opcode::Unary:
      case Opcode::Binary:
      case Opcode::Compare:
      case Opcode::Convert:
      case Opcode::Select:
        break;
      case Opcode::Read:
        // A free array that the function also writes may change between reads.
        if (in.aux < 0 || size_t(in.aux) >= f.free_arrays.size() || f.free_arrays[size_t(in.aux)].written)
          return std::nullopt;
        break;
      case Opcode::Call:
        if (in.aux < 0 || size_t(in.aux) >= pure_sub.size() || !pure_sub[size_t(in.aux)]) return std::nullopt;
        break;
      default:
        return std::nullopt;
    }
    uint64_t imm = in.op == Opcode::Const ? imm_bits(in.imm) : 0;
    return Key{uint8_t(in.op), uint8_t(in.type), uint8_t(in.src_type), in.sub, in.aux, in.a, in.b, in.c, imm, in.args};
  }

  const std::vector<Reg>* find(const Key& k) const {
    for (auto s = scopes.rbegin(); s != scopes.rend(); ++s)
      if (auto it = s->find(k); it != s->end()) return &it->second;
    return nullptr;
  }

  std::vector<Reg> defined(const Instr& in) const {
    if (in.op == Opcode::Call) return in.dsts;
    return {in.dst};
  }

  void block(Block& b) {
    scopes.emplace_back();
    std::vector<Instr> kept;
    kept.reserve(b.instrs.size());
    for (Instr& in : b.instrs) {
      rename_operands(in);
      for (Block& inner : in.blocks) block(inner);
      if (auto k = key_of(in)) {
        if (const std::vector<Reg>* earlier = find(*k)) {
          std::vector<Reg> mine = defined(in);
          for (size_t i = 0; i < mine.size(); ++i) rename[size_t(mine[i])] = (*earlier)[i];
          continue;  // dropped: its value is already in the earlier registers
        }
        scopes.back().emplace(std::move(*k), defined(in));
      }
      kept.push_back(std::move(in));
    }
    b.instrs = std::move(kept);
    for (Reg& r : b.results) r = name(r);
    scopes.pop_back();
  }
};

void count_uses(const Block& b, std::vector<int>& uses) {
  auto use = [&](Reg r) {
    if (r != kNoReg) ++uses[size_t(r)];
  };
  for (const Instr& in : b.instrs) {
    use(in.a);
    use(in.b);
    use(in.c);
    for (Reg r : in.args) use(r);
    for (const Block& inner : in.blocks) count_uses(inner, uses);
  }
  for (Reg r : b.results) use(r);
}

// Removes pure instructions whose result nothing uses; true if any went.
bool remove_dead(Block& b, const std::vector<int>& uses) {
  bool changed = false;
  std::vector<Instr> kept;
  kept.reserve(b.instrs.size());
  for (Instr& in : b.instrs) {
    for (Block& inner : in.blocks) changed |= remove_dead(inner, uses);
    if (!has_effect(in.op) && in.dst != kNoReg && uses[size_t(in.dst)] == 0) {
      changed = true;
      continue;
    }
    kept.push_back(std::move(in));
  }
  b.instrs = std::move(kept);
  return changed;
}

}  // namespace

void simplify(Function& f, bool params_are_indices) {
  simplify_index_arithmetic(f, params_are_indices);
  Cse cse{f, {}, pure_subroutines(f), {}};
  cse.rename.resize(f.reg_types.size());
  for (size_t r = 0; r < cse.rename.size(); ++r) cse.rename[r] = Reg(r);
  // A subroutine sees only its own registers: each gets a table of its own.
  for (Subroutine& s : f.subs) cse.block(s.body);
  cse.block(f.body);

  for (bool changed = true; changed;) {
    std::vector<int> uses(f.reg_types.size(), 0);
    for (const Subroutine& s : f.subs) count_uses(s.body, uses);
    count_uses(f.body, uses);
    changed = false;
    for (Subroutine& s : f.subs) changed |= remove_dead(s.body, uses);
    changed |= remove_dead(f.body, uses);
  }
  hoist_loop_invariants(f);
}

}  // namespace thorn::kir
