// filter, partition and partition2 inside a mapped function (see
// lower.hpp): sequential, in the reference backend's order, into private
// arrays as long as the input (a bound); each result's length is its
// count, a register (SymArr::len), so the element can take its length,
// index, map, reduce or scan it. A result that leaves the element has
// rows of different lengths: that map stays irregular.
#include <fmt/format.h>

#include "interp/flatten/lower.hpp"

namespace thorn::flatten {

using kir::Reg;

// The storage, written, at its new versions, its length `count` (its
// parts' too).
Sym Lowerer::counted(const Sym& storage, Reg count) {
  auto a = std::make_shared<SymArr>(*storage.arr);
  a->len = count;
  if (!a->parts.empty()) {
    for (Sym& p : a->parts) p = counted(p, count);
    return zip_parts(*a->like, a->parts, a->dims, count);
  }
  for (const SymArr::Leaf& l : a->leaves) bump_version(l.array);
  return with_current_versions(array_sym(a));
}

Sym Lowerer::sequential_partition(const std::vector<Sym>& preds, const Sym& arr, bool keep_rest, const Loc& loc) {
  if (arr.kind != Sym::Kind::Array) throw Fallback("filter of a non-array");
  if (!arr.arr->inner_len.empty()) throw Fallback("a filter of rows whose length depends on the element");
  if (arr.arr->dims.at(0) < 0) throw Fallback("a filter of an array whose length depends on the element and has no bound");
  // Storage for each class, as long as the input's bound.
  auto bounded = std::make_shared<SymArr>(*arr.arr);
  bounded->len = kir::kNoReg;
  const size_t classes = preds.size() + (keep_rest ? 1 : 0);
  std::vector<Sym> storage;
  for (size_t k = 0; k < classes; ++k) storage.push_back(private_storage(array_sym(bounded), loc));
  std::vector<Reg> zeros(classes, b_.i64(0));
  std::vector<Reg> counts = b_.for_(length_reg(arr), zeros, [&](Reg i, const std::vector<Reg>& count) {
    Sym x = index(arr, i, loc, false);
    // Class k takes x when predicate k is the first that holds (the last,
    // when kept, when none does): x written at its count, which grows.
    auto take = [&](size_t k) {
      write_element(storage[k], count[k], x, loc);
      std::vector<Reg> next = count;
      next[k] = b_.binary(kir::BinOp::Add, count[k], b_.i64(1));
      return next;
    };
    std::function<std::vector<Reg>(size_t)> classify = [&](size_t k) -> std::vector<Reg> {
      if (k == preds.size()) return keep_rest ? take(k) : count;
      Sym holds = apply(preds[k], {x}, loc);
      if (!holds.is_scalar() || holds.prim != Prim::Bool) throw Fallback("a filter predicate that is not boolean");
      return b_.if_(holds.reg, [&] { return take(k); }, [&] { return classify(k + 1); });
    };
    return classify(0);
  });
  std::vector<Sym> out;
  for (size_t k = 0; k < classes; ++k) out.push_back(counted(storage[k], counts[k]));
  return out.size() == 1 ? out[0] : Sym::tuple(std::move(out));
}

}  // namespace thorn::flatten
