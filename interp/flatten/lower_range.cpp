// Ranges inside an element (see lower.hpp): `a..<c`, `a...c`, `a..>c`,
// each with an optional second element giving the step. Bounds known when
// the nest starts give a fixed length; bounds computed in the element give
// a length known only there (SymArr::len), checked as the evaluator checks
// them (eval_index.cpp: wrong direction or a zero step is an error, with
// the bounds in the message).
#include <fmt/format.h>

#include "interp/flatten/lower.hpp"

namespace thorn::flatten {

using kir::Reg;

namespace {

const char* range_op(Expr::RangeKind k) {
  switch (k) {
    case Expr::RangeKind::DownToExclusive: return "..>";
    case Expr::RangeKind::Inclusive: return "...";
    case Expr::RangeKind::UpToExclusive: break;
  }
  return "..<";
}

}  // namespace

Sym Lowerer::lower_range(const Expr& e, const ScopePtr& sc) {
  Sym a = lower(*e.a, sc), c = lower(*e.c, sc);
  std::optional<Sym> second;
  if (e.b) second = lower(*e.b, sc);
  const Prim t = a.prim;
  const Expr::RangeKind kind = e.range_kind;
  Lowerer* self = this;
  auto arr = std::make_shared<SymArr>();
  arr->fused = "range";
  if (a.known && c.known && (!second || second->known)) {
    const int64_t start = a.known->as_i64(), end = c.known->as_i64();
    std::optional<int64_t> s1;
    if (second) s1 = second->known->as_i64();
    bool valid = false;
    switch (kind) {
      case Expr::RangeKind::DownToExclusive: valid = s1 ? start >= end && *s1 < start : start >= end; break;
      case Expr::RangeKind::Inclusive: valid = !s1 ? start <= end : *s1 > start ? start <= end : start >= end && *s1 != start; break;
      case Expr::RangeKind::UpToExclusive: valid = s1 ? start <= end && *s1 > start : start <= end; break;
    }
    // An invalid range: the reference backend reports it, with its values.
    if (!valid) throw Fallback("an invalid range");
    const int64_t step = s1 ? *s1 - start : kind == Expr::RangeKind::DownToExclusive ? -1 : 1;
    const int64_t end_adj = kind == Expr::RangeKind::DownToExclusive ? end + 1 : kind == Expr::RangeKind::Inclusive ? end : end - 1;
    int64_t n = 0;
    if (step > 0 && end_adj >= start) n = (end_adj - start) / step + 1;
    if (step < 0 && start >= end_adj) n = (start - end_adj) / -step + 1;
    arr->dims = {n};
    arr->gen = [self, start, step, t](Reg i) {
      kir::Builder& b = self->b();
      Reg v = b.binary(kir::BinOp::Add, b.i64(start), b.binary(kir::BinOp::Mul, i, b.i64(step)));
      return self->convert(Sym::scalar(v, Prim::I64), t);
    };
    return array_sym(arr);
  }
  // Bounds computed in the element.
  if (!is_signed_int(t)) throw Fallback("a range of unsigned integers whose bounds are computed in the element");
  // The message names every bound (a Check reports up to three values).
  std::vector<Reg> shown;
  auto text = [&](const Sym& v) -> std::string {
    if (v.known) return std::to_string(v.known->as_i64());
    shown.push_back(convert(v, Prim::I64).reg);
    return "{}";
  };
  std::string message = "Range " + text(a);
  if (second) message += ".." + text(*second);
  message += std::string(range_op(kind)) + text(c) + " is invalid.";
  const Reg s0 = convert(a, Prim::I64).reg, en = convert(c, Prim::I64).reg;
  const Reg s1 = second ? convert(*second, Prim::I64).reg : kir::kNoReg;
  auto cmp = [&](kir::CmpOp op, Reg x, Reg y) { return b_.compare(op, x, y); };
  auto both = [&](Reg x, Reg y) { return b_.binary(kir::BinOp::LogAnd, x, y); };
  Reg valid;
  switch (kind) {
    case Expr::RangeKind::DownToExclusive:
      valid = s1 != kir::kNoReg ? both(cmp(kir::CmpOp::Le, en, s0), cmp(kir::CmpOp::Lt, s1, s0)) : cmp(kir::CmpOp::Le, en, s0);
      break;
    case Expr::RangeKind::Inclusive:
      valid = s1 == kir::kNoReg ? cmp(kir::CmpOp::Le, s0, en)
                                : b_.select(cmp(kir::CmpOp::Lt, s0, s1), cmp(kir::CmpOp::Le, s0, en),
                                            both(cmp(kir::CmpOp::Le, en, s0), cmp(kir::CmpOp::Ne, s1, s0)));
      break;
    case Expr::RangeKind::UpToExclusive:
      valid = s1 != kir::kNoReg ? both(cmp(kir::CmpOp::Le, s0, en), cmp(kir::CmpOp::Lt, s0, s1)) : cmp(kir::CmpOp::Le, s0, en);
      break;
  }
  shown.resize(3, kir::kNoReg);
  b_.check(valid, message, e.loc, shown[0], shown[1], shown[2]);
  const Reg step = s1 != kir::kNoReg ? b_.binary(kir::BinOp::Sub, s1, s0)
                                     : b_.i64(kind == Expr::RangeKind::DownToExclusive ? -1 : 1);
  const Reg end_adj = kind == Expr::RangeKind::DownToExclusive ? b_.binary(kir::BinOp::Add, en, b_.i64(1))
                      : kind == Expr::RangeKind::Inclusive     ? en
                                                               : b_.binary(kir::BinOp::Sub, en, b_.i64(1));
  // The count, as the evaluator computes it (a valid range has a nonzero
  // step; the division never sees zero even where the check failed).
  const Reg up = cmp(kir::CmpOp::Lt, b_.i64(0), step);
  const Reg magnitude = b_.binary(kir::BinOp::Max, b_.select(up, step, b_.binary(kir::BinOp::Sub, b_.i64(0), step)), b_.i64(1));
  const Reg span = b_.select(up, b_.binary(kir::BinOp::Sub, end_adj, s0), b_.binary(kir::BinOp::Sub, s0, end_adj));
  const Reg count = b_.select(cmp(kir::CmpOp::Le, b_.i64(0), span),
                              b_.binary(kir::BinOp::Add, b_.binary(kir::BinOp::Quot, span, magnitude), b_.i64(1)), b_.i64(0));
  arr->len = count;
  arr->dims = {-1};
  arr->gen = [self, s0, step, t](Reg i) {
    kir::Builder& b = self->b();
    Reg v = b.binary(kir::BinOp::Add, s0, b.binary(kir::BinOp::Mul, i, step));
    return self->convert(Sym::scalar(v, Prim::I64), t);
  };
  return array_sym(arr);
}

}  // namespace thorn::flatten
