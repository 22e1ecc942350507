// Indices, in-place updates, record updates and ranges.
#include <fmt/format.h>

#include "interp/core/ad_value.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/eval/value_ops.hpp"

namespace thorn::eval {

std::vector<IndexValue> Evaluator::eval_indices(const std::vector<IndexArg>& args, const Ctx& ctx) {
  std::vector<IndexValue> out;
  out.reserve(args.size());
  for (const IndexArg& a : args) {
    IndexValue x;
    x.is_slice = a.is_slice;
    if (!a.is_slice) {
      x.index = ad_scalar(eval(*a.index, ctx)).as_i64();
    } else {
      if (a.start) x.start = ad_scalar(eval(*a.start, ctx)).as_i64();
      if (a.end) x.end = ad_scalar(eval(*a.end, ctx)).as_i64();
      if (a.stride) x.stride = ad_scalar(eval(*a.stride, ctx)).as_i64();
    }
    out.push_back(x);
  }
  return out;
}

namespace {
// The binding a plain variable refers to when it lives in a local frame (and
// so may be consumed), else null.
Binding* local_binding(const EnvPtr& env, const std::string& name) {
  bool local = false;
  Binding* b = lookup_value_local(env, name, &local);
  return local ? b : nullptr;
}
}  // namespace

Value Evaluator::take_variable(const Expr& src, const Ctx& ctx) {
  Binding* owner = nullptr;
  if (src.kind == Expr::Kind::Var && src.name.qualifiers.empty()) owner = local_binding(ctx.env, src.name.name);
  if (!owner) return eval(src, ctx);
  // Futhark consumes the variable: take its value out of the environment,
  // so that an update is in place when nothing else refers to it.
  if (owner->consumed)
    throw Error(ErrorKind::Runtime, src.loc,
                fmt::format("`{}` was consumed by an in-place update and may not be used afterwards.", src.name.name));
  if (owner->lazy || owner->value.kind != Value::Kind::Array) return eval(src, ctx);
  Value v = std::move(owner->value);
  owner->value = Value();
  owner->consumed = true;
  return v;
}

namespace {
Value update_field(const Value& r, const std::vector<std::string>& path, size_t k, Value v) {
  if (k == path.size()) return v;
  const std::string& f = path[k];
  std::vector<Value> elems = *r.elems;
  size_t pos = 0;
  if (r.kind == Value::Kind::Tuple) {
    pos = size_t(std::stoul(f));
  } else {
    auto it = std::find(r.names->begin(), r.names->end(), f);
    if (it == r.names->end()) throw Error(ErrorKind::Internal, "record update of a missing field " + f);
    pos = size_t(it - r.names->begin());
  }
  elems.at(pos) = update_field(elems[pos], path, k + 1, std::move(v));
  Value out = r;
  out.elems = std::make_shared<const std::vector<Value>>(std::move(elems));
  return out;
}
}  // namespace

Value Evaluator::eval_update(const Expr& e, const Ctx& ctx) {
  // The index and the new value may read the array (`xs with [i] = xs[i] + 1`),
  // so they are evaluated before the array is taken.
  std::vector<IndexValue> idx = eval_indices(e.indices, ctx);
  Value v = eval(*e.b, ctx);
  Value arr = take_variable(*e.a, ctx);
  if (!e.field_path.empty()) {
    // `r with x.y[i] = v`: the array at the path, updated, put back. (The
    // record still holds the array while it is updated, so it is copied.)
    Value inner = arr;
    for (const auto& f : e.field_path) {
      const Value* x = inner.field(f);
      if (!x) throw Error(ErrorKind::Internal, e.loc, "update through a missing field " + f);
      inner = *x;
    }
    if (inner.kind != Value::Kind::Array) throw Error(ErrorKind::Internal, e.loc, "in-place update of a non-array");
    Value updated = with_loc(e.loc, [&] { return update_array(std::move(inner), idx, v); });
    return update_field(arr, e.field_path, 0, std::move(updated));
  }
  if (arr.kind != Value::Kind::Array) throw Error(ErrorKind::Internal, e.loc, "in-place update of a non-array");
  return with_loc(e.loc, [&] { return update_array(std::move(arr), idx, v); });
}

Value Evaluator::eval_record_update(const Expr& e, const Ctx& ctx) {
  Value r = eval(*e.a, ctx);
  Value v = eval(*e.b, ctx);
  return with_loc(e.loc, [&] { return update_field(r, e.field_path, 0, std::move(v)); });
}

// Futhark's ranges: a..b, a..<b, a..>b, each with an optional second element
// giving the step; invalid ranges (wrong direction, zero step) are errors.
Value Evaluator::eval_range(const Expr& e, const Ctx& ctx) {
  Scalar start = ad_scalar(eval(*e.a, ctx));
  std::optional<Scalar> second;
  if (e.b) second = ad_scalar(eval(*e.b, ctx));
  Scalar end = ad_scalar(eval(*e.c, ctx));
  Prim t = start.type;
  bool sgn = is_signed_int(t);
  auto big = [&](const Scalar& s) -> __int128 { return sgn ? __int128(s.i) : __int128(s.u); };
  __int128 s0 = big(start), en = big(end);
  std::optional<__int128> s1;
  if (second) s1 = big(*second);

  __int128 end_adj = 0, step = 1;
  bool ok = false;
  switch (e.range_kind) {
    case Expr::RangeKind::DownToExclusive:
      end_adj = en + 1;
      step = s1 ? *s1 - s0 : -1;
      ok = s1 ? (s0 >= en && *s1 < s0) : s0 >= en;
      break;
    case Expr::RangeKind::Inclusive:
      end_adj = en;
      step = s1 ? *s1 - s0 : 1;
      if (!s1) ok = s0 <= en;
      else if (*s1 > s0) ok = s0 <= en;
      else ok = s0 >= en && *s1 != s0;
      break;
    case Expr::RangeKind::UpToExclusive:
      end_adj = en - 1;
      step = s1 ? *s1 - s0 : 1;
      ok = s1 ? (s0 <= en && *s1 > s0) : s0 <= en;
      break;
  }
  if (!ok) {
    auto num = [&](const Scalar& s) { return sgn ? fmt::format("{}", s.i) : fmt::format("{}", s.u); };
    std::string text = "Range " + num(start);
    if (second) text += ".." + num(*second);
    switch (e.range_kind) {
      case Expr::RangeKind::DownToExclusive: text += "..>"; break;
      case Expr::RangeKind::Inclusive: text += "..."; break;
      case Expr::RangeKind::UpToExclusive: text += "..<"; break;
    }
    text += num(end) + " is invalid.";
    throw Error(ErrorKind::Runtime, e.loc, text);
  }
  __int128 count = 0;
  if (step > 0 && end_adj >= s0) count = (end_adj - s0) / step + 1;
  if (step < 0 && s0 >= end_adj) count = (s0 - end_adj) / (-step) + 1;
  if (count > (__int128(1) << 40)) throw Error(ErrorKind::Runtime, e.loc, "Range is too large.");
  auto out = make_prim_array(t, {int64_t(count)});
  std::byte* dst = out->buffer->host_mut();
  size_t width = size_t(prim_bytes(t));
  for (int64_t k = 0; k < int64_t(count); ++k) {
    __int128 x = s0 + step * k;
    store_scalar(dst + size_t(k) * width,
                 sgn ? Scalar::signed_int(t, int64_t(x)) : Scalar::unsigned_int(t, uint64_t(x)));
  }
  return Value::make_array(out);
}

}  // namespace thorn::eval
