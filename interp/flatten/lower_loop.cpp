// Lowering of sequential loops inside an element (see lower.hpp): scalar
// state in registers, array state in private storage.
#include "interp/flatten/lower.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "interp/eval/scalar_ops.hpp"
#include "interp/flatten/delayed.hpp"
#include "interp/flatten/elem_tree.hpp"
#include "interp/syntax/print.hpp"

namespace thorn::flatten {

using kir::Reg;

Sym Lowerer::lower_loop(const Expr& e, const ScopePtr& sc) {
  const Pattern& pat = *e.params.at(0);
  Sym init;
  if (e.a) {
    init = lower(*e.a, sc);
  } else {
    // `loop x for ...`: the pattern's variables from the scope.
    std::function<Sym(const Pattern&)> from_pat = [&](const Pattern& p) -> Sym {
      switch (p.kind) {
        case Pattern::Kind::Id: return lookup(QualName{{}, p.name}, sc, p.loc);
        case Pattern::Kind::Ascribed: return from_pat(*p.inner);
        case Pattern::Kind::Tuple: {
          std::vector<Sym> xs;
          for (const auto& q : p.elems) xs.push_back(from_pat(*q));
          return Sym::tuple(std::move(xs));
        }
        default: throw Fallback("loop without initial values on a complex pattern");
      }
    };
    init = from_pat(pat);
  }
  LoopState st = loop_state(init, e.loc);
  auto bind_state = [&](const std::vector<Reg>& regs, std::vector<std::pair<std::string, Sym>>& vars) {
    bind(pat, state_value(st, regs), vars, nullptr);
  };
  auto body_regs = [&](const ScopePtr& inner) { return next_state(st, lower(*e.b, inner), e.loc); };
  const std::vector<Reg>& init_regs = st.init_regs;
  std::vector<Reg> out;
  switch (e.loop_form) {
    case Expr::LoopForm::For: {
      Sym bound = lower(*e.c, sc);
      if (!bound.is_scalar() || !is_integral(bound.prim)) throw Fallback("for loop bound of a non-integer type");
      Sym count = convert(bound, Prim::I64);
      out = b_.for_(count.reg, init_regs, [&](Reg i, const std::vector<Reg>& carried) {
        auto inner = child_scope(sc);
        bind_state(carried, inner->vars);
        inner->vars.emplace_back(e.loop_var, convert(Sym::scalar(i, Prim::I64), bound.prim));
        return body_regs(inner);
      });
      break;
    }
    case Expr::LoopForm::ForIn: {
      Sym arr = lower(*e.c, sc);
      out = b_.for_(length_reg(arr), init_regs, [&](Reg i, const std::vector<Reg>& carried) {
        auto inner = child_scope(sc);
        bind_state(carried, inner->vars);
        bind(*e.pattern, index(arr, i, e.loc, false), inner->vars, nullptr);
        return body_regs(inner);
      });
      break;
    }
    case Expr::LoopForm::While: {
      out = b_.while_(
          init_regs,
          [&](const std::vector<Reg>& carried) {
            auto inner = child_scope(sc);
            bind_state(carried, inner->vars);
            Sym c = lower(*e.c, inner);
            if (!c.is_scalar() || c.prim != Prim::Bool) throw Fallback("while condition is not a boolean");
            return c.reg;
          },
          [&](const std::vector<Reg>& carried) {
            auto inner = child_scope(sc);
            bind_state(carried, inner->vars);
            return body_regs(inner);
          });
      break;
    }
  }
  return final_state(st, out);
}

// Scalars of the state are carried in registers; arrays live in private
// storage of their own (a copy of the initial value), which the body
// updates in place or copies its result into.
Lowerer::LoopState Lowerer::loop_state(const Sym& init, const Loc& loc) {
  LoopState st;
  st.init = in_parts(init, loc);
  std::vector<Sym> init_arrays;
  split_state(st.init, st.init_regs, init_arrays);
  for (const Sym& a : init_arrays) {
    if (dynamic(a)) throw Fallback("loop state holding an array whose length depends on the element");
    st.storage.push_back(materialise(a, loc));
  }
  st.types = types_of(st.init_regs);
  return st;
}

Sym Lowerer::state_value(const LoopState& st, const std::vector<Reg>& regs) {
  size_t pr = 0, pa = 0;
  std::vector<Sym> current;
  for (const Sym& a : st.storage) current.push_back(with_current_versions(a));
  return join_state(st.init, regs, pr, current, pa);
}

std::vector<Reg> Lowerer::next_state(const LoopState& st, const Sym& r, const Loc& loc) {
  std::vector<Reg> regs;
  std::vector<Sym> arrays;
  split_state(in_parts(r, loc), regs, arrays);
  if (types_of(regs) != st.types || arrays.size() != st.storage.size())
    throw Fallback("loop body changes the shape of the loop state");
  // Every source is made ready before any storage is written: a result may
  // be another position's storage (`(scatter out' ..., in')` swaps two
  // buffers), which the first copy would overwrite.
  std::vector<int> written;  // the storage arrays this iteration's copies write
  std::vector<bool> same(arrays.size());
  for (size_t k = 0; k < arrays.size(); ++k) {
    const Sym& a = arrays[k];
    const Sym& storage = st.storage[k];
    if (a.kind != Sym::Kind::Array || a.arr->dims != storage.arr->dims || dynamic(a))
      throw Fallback("loop body changes the shape of the loop state");
    bool s = !a.arr->gen && a.arr->rel == kir::kNoReg && a.arr->leaves.size() == storage.arr->leaves.size();
    for (size_t l = 0; s && l < a.arr->leaves.size(); ++l)
      s = a.arr->leaves[l].local && a.arr->leaves[l].array == storage.arr->leaves[l].array && a.arr->leaves[l].base == 0;
    same[k] = s;
    if (!s)
      for (const SymArr::Leaf& l : storage.arr->leaves) written.push_back(l.array);
  }
  std::vector<Sym> sources(arrays.size());
  for (size_t k = 0; k < arrays.size(); ++k) {
    if (same[k]) continue;
    const Sym& a = arrays[k];
    bool direct = is_private_whole(a);  // a whole private array no copy here overwrites
    for (size_t l = 0; direct && l < a.arr->leaves.size(); ++l)
      direct = std::find(written.begin(), written.end(), a.arr->leaves[l].array) == written.end();
    sources[k] = direct ? a : materialise(a, loc);
  }
  for (size_t k = 0; k < arrays.size(); ++k)
    if (!same[k]) copy_into(with_current_versions(st.storage[k]), sources[k], loc);
  return regs;
}

Sym Lowerer::final_state(const LoopState& st, const std::vector<Reg>& out) {
  std::vector<Sym> arrays;
  for (const Sym& a : st.storage) {
    for (const SymArr::Leaf& l : a.arr->leaves) bump_version(l.array);
    arrays.push_back(with_current_versions(a));
  }
  size_t pr = 0, pa = 0;
  return join_state(st.init, out, pr, arrays, pa);
}

}  // namespace thorn::flatten
