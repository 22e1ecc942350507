// Function application and intrinsics for the lowering (see lower.hpp):
// calls are inlined; prelude functions that merely forward to an
// intrinsic become that intrinsic's kernel IR; SOACs inside a mapped
// function become generators (map, iota, ...), sequential loops (reduce),
// or, in tail position, symbolic SOACs the planner turns into segmented
// steps.
#include <utility>
#include <algorithm>
#include <fmt/format.h>

#include "interp/flatten/lower.hpp"

namespace thorn::flatten {

using kir::Reg;

namespace {

// Instructions of a map's element from which storing it beats computing it
// again at each use (for lengths with no bound; see `speculative_bound`).
constexpr int64_t kHeavyElement = 48;

Sym function_sym(std::shared_ptr<SymFn> fn) {
  Sym s;
  s.kind = Sym::Kind::Function;
  s.fn = std::move(fn);
  return s;
}

struct ActiveGuard {
  std::vector<const void*>& stack;
  std::vector<std::string>& names;
  ActiveGuard(std::vector<const void*>& s, std::vector<std::string>& ns, const Expr& body, const std::string& name)
      : stack(s), names(ns) {
    const void* key = &body;
    // The same function may be active more than once without recursion:
    // `f32.sum (map (\r -> f32.sum r) xss)` lowers the inner sum while the
    // outer one's body runs (the map's element is generated on demand),
    // as deep as maps of such elements nest (`imap5` twice, one reading the
    // other's elements: imap active 10 times). A real recursion is caught
    // by its depth: a body that names its own function from 8 activations,
    // any other (mutual recursion, or none) from 32, with the total depth.
    int same = 0;
    for (const void* k : stack) same += k == key;
    if (same >= 32 || (same >= 8 && (name.empty() || eval::mentions_name(body, name))))
      throw Fallback(fmt::format("recursive function{}", name.empty() ? "" : " " + name));
    if (stack.size() > 64) throw Fallback("function calls nested too deeply");
    stack.push_back(key);
    names.push_back(name);
  }
  ~ActiveGuard() {
    stack.pop_back();
    names.pop_back();
  }
};

const std::vector<std::string> kConversions = {"to_bool", "to_i8",  "to_i16", "to_i32", "to_i64", "to_u8",
                                               "to_u16",  "to_u32", "to_u64", "to_f16", "to_f32", "to_f64"};

}  // namespace

Sym Lowerer::call_body(const std::vector<PatternPtr>& params, const Expr& body, ScopePtr scope,
                       const std::vector<TypeParam>* sizes, std::vector<Sym>& args, const std::string& name,
                       const Loc& loc, bool tail, const TypeExpr* ret, const CallHint* hint) {
  size_t p = params.size();
  ActiveGuard guard(active_, active_names_, body, name);
  // Checks inside a prelude function are reported at the user's call.
  struct UserSite {
    Loc& slot;
    Loc saved;
    UserSite(Loc& s, const Loc& at) : slot(s), saved(s) {
      if (at.known() && !at.in_prelude()) slot = at;
    }
    ~UserSite() { slot = saved; }
  } user_site(b_.user_site, loc);
  auto inner = child_scope(std::move(scope));
  for (size_t k = 0; k < p; ++k) bind(*params[k], args[k], inner->vars, sizes);
  if (sizes) {
    // The hint's dims describe this call's result only when it applies
    // exactly the parameters; its sizes hold either way.
    CallHint h;
    if (hint) {
      h.sizes = hint->sizes;
      if (args.size() == p) h.dims = hint->dims;
    }
    solve_sizes(*sizes, params, args, ret, h, inner->vars);
  }
  Sym r = lower(body, inner, tail && args.size() == p);
  if (args.size() > p) return apply(r, std::vector<Sym>(args.begin() + long(p), args.end()), loc, tail);
  return r;
}

Sym Lowerer::apply(const Sym& fn_sym, std::vector<Sym> args, const Loc& loc, bool tail) {
  std::optional<CallHint> hint = std::exchange(call_hint_, std::nullopt);
  if (fn_sym.kind != Sym::Kind::Function) throw Fallback("application of a non-function");
  const SymFn& f = *fn_sym.fn;
  // Sizes found where the function was named: by the lowering (SymFn) or
  // by the evaluator (a closure value's Callable::size_hints).
  for (const auto* sizes : {&f.size_hints, f.kind == SymFn::Kind::Value ? &f.value->size_hints : nullptr}) {
    if (!sizes || sizes->empty()) continue;
    if (!hint) hint = CallHint{};
    hint->sizes.insert(hint->sizes.end(), sizes->begin(), sizes->end());
  }
  const CallHint* hint_ptr = hint ? &*hint : nullptr;
  auto partial = [&](std::vector<Sym> all) {
    auto p = std::make_shared<SymFn>(f);
    p->args = std::move(all);
    return function_sym(p);
  };
  auto rest_after = [&](Sym r, std::vector<Sym>& all, size_t used) {
    if (all.size() > used) return apply(r, std::vector<Sym>(all.begin() + long(used), all.end()), loc, tail);
    return r;
  };
  switch (f.kind) {
    case SymFn::Kind::Operator: {
      std::vector<Sym> all = f.args;
      for (auto& a : args) all.push_back(std::move(a));
      if (all.size() < 2) return partial(std::move(all));
      return rest_after(binop(f.name, all[0], all[1], loc), all, 2);
    }
    case SymFn::Kind::RightSection: {  // args = {op, right operand}
      Sym r = apply(f.args[0], {args[0], f.args[1]}, loc);
      std::vector<Sym> all = args;
      return rest_after(r, all, 1);
    }
    case SymFn::Kind::Projection: {
      Sym v = args.at(0);
      for (const std::string& field : f.path) v = project(v, field, loc);
      return rest_after(v, args, 1);
    }
    case SymFn::Kind::Intrinsic: {
      std::vector<Sym> all = f.args;
      for (auto& a : args) all.push_back(std::move(a));
      if (int(all.size()) < f.arity) return partial(std::move(all));
      std::vector<Sym> first(all.begin(), all.begin() + f.arity);
      return rest_after(intrinsic(f.name, std::move(first), loc, tail && int(all.size()) == f.arity), all,
                        size_t(f.arity));
    }
    case SymFn::Kind::Ast: {
      std::vector<Sym> all = f.args;
      for (auto& a : args) all.push_back(std::move(a));
      if (all.size() < f.params->size()) return partial(std::move(all));
      return call_body(*f.params, *f.body, f.scope, f.type_params, all, f.name, loc, tail, nullptr, hint_ptr);
    }
    case SymFn::Kind::Value: break;
  }
  const Callable& c = *f.value;
  std::vector<Sym> all = f.args;
  for (auto& a : args) all.push_back(std::move(a));
  switch (c.kind) {
    case Callable::Kind::Closure: {
      size_t p = c.params ? c.params->size() : 0;
      if (all.size() < p) return partial(std::move(all));
      if (auto alias = c.intrinsic_alias()) {
        std::vector<Sym> first(all.begin(), all.begin() + long(p));
        return rest_after(intrinsic(*alias, std::move(first), loc, tail && all.size() == p), all, p);
      }
      // The prelude's `opaque` keeps what it is given from fusing into its
      // consumers (Futhark: no optimisation sees through it); a delayed
      // array is computed once, into private storage, when that fits.
      if (p == 1 && c.name == "opaque" && c.loc.in_prelude()) {
        Sym x = all[0];
        if (x.kind == Sym::Kind::Array && x.arr->gen && !dynamic(x) && fits_private(x, loc)) x = materialise(x, loc);
        return rest_after(x, all, 1);
      }
      if (auto r = subroutine_call(f.value, all, loc, tail, hint_ptr)) return *r;
      return call_body(*c.params, *c.body, root_scope(c.env, source_of(c)), c.type_params, all, c.name, loc, tail,
                       c.ret_type, hint_ptr);
    }
    case Callable::Kind::Partial: {
      std::vector<Sym> bound;
      for (size_t k = 0; k < c.args.size(); ++k) bound.push_back(held_arg(c, k));
      for (auto& a : all) bound.push_back(std::move(a));
      return apply(held_fn(c), std::move(bound), loc, tail);
    }
    case Callable::Kind::Operator: {
      if (all.size() < 2) return partial(std::move(all));
      return rest_after(binop(c.name, all[0], all[1], loc), all, 2);
    }
    case Callable::Kind::RightSection: {
      Sym r = apply(held_fn(c), {all.at(0), held_arg(c, 0)}, loc);
      return rest_after(r, all, 1);
    }
    case Callable::Kind::Projection: {
      Sym v = all.at(0);
      for (const std::string& field : c.path) v = project(v, field, loc);
      return rest_after(v, all, 1);
    }
    case Callable::Kind::IndexSection: {
      Sym v = all.at(0);
      for (const eval::IndexValue& ix : c.index_args) {
        if (ix.is_slice) throw Fallback("slice sections");
        v = index(v, constant(Scalar::i64(ix.index)).reg, loc);
      }
      return rest_after(v, all, 1);
    }
    case Callable::Kind::Intrinsic: {
      std::vector<Sym> bound;
      for (size_t k = 0; k < c.args.size(); ++k) bound.push_back(held_arg(c, k));
      for (auto& a : all) bound.push_back(std::move(a));
      if (int(bound.size()) < c.arity) {
        auto p = std::make_shared<SymFn>();
        p->kind = SymFn::Kind::Intrinsic;
        p->name = c.name;
        p->arity = c.arity;
        p->args = std::move(bound);
        return function_sym(p);
      }
      std::vector<Sym> first(bound.begin(), bound.begin() + c.arity);
      return rest_after(intrinsic(c.name, std::move(first), loc, tail), bound, size_t(c.arity));
    }
  }
  throw Fallback("a kind of function the flattener does not know");
}


Sym Lowerer::sequential_reduce(const Sym& op, const Sym& ne, const Sym& arr, const Loc& loc) {
  Reg n = length_reg(arr);
  // The accumulator may hold arrays (`reduce (map2 (+)) zeros rows`): they
  // live in private storage, as a loop's state does.
  LoopState st = loop_state(ne, loc);
  std::vector<Reg> out = b_.for_(n, st.init_regs, [&](Reg i, const std::vector<Reg>& carried) {
    Sym r = apply(op, {state_value(st, carried), index(arr, i, loc, false)}, loc);
    return next_state(st, r, loc);
  });
  return final_state(st, out);
}

// A SOAC in the tail of a mapped function, kept symbolic (SymSoac) for the
// planner: reduce/scan (op, ne, arr), reduce_by_index (dest, op, ne, is, vs)
// or scatter (dest, is, vs).
static Sym soac_sym(exec::SoacKind kind, const std::vector<Sym>& args, const Loc& loc) {
  auto s = std::make_shared<SymSoac>();
  s->kind = kind;
  if (kind == exec::SoacKind::Scatter) {
    s->arr = args[0];
    s->is = args[1];
    s->vs = args[2];
  } else if (kind == exec::SoacKind::ReduceByIndex) {
    s->arr = args[0];
    s->op = args[1];
    s->ne = args[2];
    s->is = args[3];
    s->vs = args[4];
  } else {
    s->op = args[0];
    s->ne = args[1];
    s->arr = args[2];
  }
  s->loc = loc;
  Sym r;
  r.kind = Sym::Kind::Soac;
  r.soac = s;
  return r;
}

// The upper half of the full product of two integers of type t (Futhark's
// mul_hi, as scalar_ops.cpp computes it with 128-bit arithmetic). Up to 32
// bits: the product in 64 bits, shifted. 64 bits: from 32-bit halves,
// unsigned, then corrected for signs (hi_s = hi_u - (a < 0 ? b : 0) -
// (b < 0 ? a : 0), modulo 2^64).
Sym Lowerer::mul_hi(const Sym& a, const Sym& b, const Loc& loc) {
  const Prim t = a.prim;
  const bool sign = is_signed_int(t);
  const int w = int(prim_bytes(t)) * 8;
  auto u64 = [&](uint64_t v) { return constant(Scalar::unsigned_int(Prim::U64, v)); };
  if (w < 64) {
    const Prim wide = sign ? Prim::I64 : Prim::U64;
    Sym p = binop("*", convert(a, wide), convert(b, wide), loc);
    return convert(binop(">>", p, convert(constant(Scalar::i64(w)), wide), loc), t);
  }
  Sym x = convert(a, Prim::U64), y = convert(b, Prim::U64);
  Sym mask = u64(0xffffffffu), k32 = u64(32);
  Sym x0 = binop("&", x, mask, loc), x1 = binop(">>>", x, k32, loc);
  Sym y0 = binop("&", y, mask, loc), y1 = binop(">>>", y, k32, loc);
  Sym p00 = binop("*", x0, y0, loc), p01 = binop("*", x0, y1, loc);
  Sym p10 = binop("*", x1, y0, loc), p11 = binop("*", x1, y1, loc);
  Sym mid = binop("+", binop("+", binop(">>>", p00, k32, loc), binop("&", p01, mask, loc), loc),
                  binop("&", p10, mask, loc), loc);
  Sym hi = binop("+", binop("+", p11, binop(">>>", p01, k32, loc), loc),
                 binop("+", binop(">>>", p10, k32, loc), binop(">>>", mid, k32, loc), loc), loc);
  if (sign) {
    Sym zero = constant(Scalar::signed_int(t, 0));
    Sym none = u64(0);
    Sym fix_a = select_or_if(binop("<", a, zero, loc), [&] { return y; }, [&] { return none; });
    Sym fix_b = select_or_if(binop("<", b, zero, loc), [&] { return x; }, [&] { return none; });
    hi = binop("-", binop("-", hi, fix_a, loc), fix_b, loc);
  }
  return convert(hi, t);
}

Sym Lowerer::intrinsic(const std::string& name, std::vector<Sym> args, const Loc& loc, bool tail) {
  auto need = [&](size_t n) {
    if (args.size() != n) throw Fallback(fmt::format("intrinsic {} with {} arguments", name, args.size()));
  };
  for (size_t k = 0; k < kConversions.size(); ++k)
    if (name == kConversions[k]) {
      need(1);
      return convert(args[0], Prim(k));
    }
  if (name == "min" || name == "max" || name == "pow" || name == "atan2" || name == "hypot") {
    need(2);
    return binop(name == "pow" ? "**" : name, args[0], args[1], loc);
  }
  if (name == "nextafter" || name == "ldexp") {
    need(2);
    const Sym& x = args[0];
    const Sym& y = args[1];
    if (!x.is_scalar() || !y.is_scalar() || !is_float(x.prim))
      throw Fallback(fmt::format("{} on non-floats", name));
    if (name == "nextafter") {
      if (y.prim != x.prim) throw Fallback("nextafter of two float types");
      if (x.prim != Prim::F16) return Sym::scalar(b_.binary(kir::BinOp::NextAfter, x.reg, y.reg), x.prim);
      // f16 (held in wider float registers): a step of its own bits, as
      // scalar_ops.cpp's f16_nextafter.
      auto bits = [&](uint64_t v) { return b_.constant(Scalar::unsigned_int(Prim::U16, v)); };
      auto half = [&](Reg u) { return b_.unary(kir::UnOp::FromBits, Prim::F16, u); };
      Reg zero = b_.constant(Scalar::floating(Prim::F16, 0.0));
      Reg xb = b_.unary(kir::UnOp::ToBits, Prim::U16, x.reg);
      Reg up = b_.compare(kir::CmpOp::Eq, b_.compare(kir::CmpOp::Gt, y.reg, x.reg),
                          b_.compare(kir::CmpOp::Gt, x.reg, zero));
      Reg step = half(b_.select(up, b_.binary(kir::BinOp::Add, xb, bits(1)), b_.binary(kir::BinOp::Sub, xb, bits(1))));
      Reg from_zero = half(b_.select(b_.compare(kir::CmpOp::Gt, y.reg, zero), bits(1), bits(0x8001)));
      Reg r = b_.select(b_.compare(kir::CmpOp::Eq, x.reg, zero), from_zero, step);
      r = b_.select(b_.compare(kir::CmpOp::Eq, x.reg, y.reg), y.reg, r);
      Reg nan = b_.binary(kir::BinOp::LogOr, b_.unary(kir::UnOp::IsNan, x.reg), b_.unary(kir::UnOp::IsNan, y.reg));
      return Sym::scalar(b_.select(nan, b_.binary(kir::BinOp::Add, x.reg, y.reg), r), x.prim);
    }
    if (!is_integral(y.prim)) throw Fallback("ldexp with a non-integer exponent");
    return Sym::scalar(b_.binary(kir::BinOp::LdExp, x.reg, convert(y, x.prim).reg), x.prim);
  }
  if (name == "copysign") {
    // |x| with y's sign bit, read from y's bits (so -0.0 and NaNs count).
    need(2);
    const Sym& x = args[0];
    const Sym& y = args[1];
    if (!x.is_scalar() || !y.is_scalar() || x.prim != y.prim || !is_float(x.prim))
      throw Fallback("copysign on non-floats");
    const Prim bits = x.prim == Prim::F16 ? Prim::U16 : x.prim == Prim::F32 ? Prim::U32 : Prim::U64;
    const uint64_t top = uint64_t(prim_bytes(x.prim)) * 8 - 1;
    Reg yb = b_.unary(kir::UnOp::ToBits, bits, y.reg);
    Reg sign = b_.binary(kir::BinOp::LShr, yb, b_.constant(Scalar::unsigned_int(bits, top)));
    Reg negative = b_.compare(kir::CmpOp::Ne, sign, b_.constant(Scalar::unsigned_int(bits, 0)));
    Reg ax = b_.unary(kir::UnOp::Abs, x.reg);
    return Sym::scalar(b_.select(negative, b_.unary(kir::UnOp::Neg, ax), ax), x.prim);
  }
  if (name == "fma" || name == "mad") {
    need(3);
    return binop("+", binop("*", args[0], args[1], loc), args[2], loc);
  }
  if (name == "mul_hi" || name == "mad_hi") {
    need(name == "mul_hi" ? 2 : 3);
    if (!args[0].is_scalar() || !is_integral(args[0].prim) || !args[1].is_scalar() || args[1].prim != args[0].prim)
      throw Fallback(fmt::format("{} on non-integers", name));
    Sym hi = mul_hi(args[0], args[1], loc);
    return name == "mul_hi" ? hi : binop("+", hi, args[2], loc);
  }
  if ((name == "get_bit" || name == "set_bit") && args.size() == (name == "get_bit" ? 2u : 3u) &&
      args[0].is_scalar() && args[1].is_scalar() && is_integral(args[1].prim)) {
    // As scalar_ops.cpp: bit `bit` of x (0 outside x's width); set_bit
    // sets it to value & 1 (x unchanged outside the width). The shift
    // amount is masked so that no shift is ever out of range.
    const Prim t = args[1].prim;
    const int64_t width = int64_t(prim_bytes(t)) * 8;
    const Sym bit = convert(args[0], Prim::I64);
    const Sym in_range = binop("&&", binop(">=", bit, constant(Scalar::i64(0)), loc),
                               binop("<", bit, constant(Scalar::i64(width)), loc), loc);
    const Sym amount = convert(binop("&", bit, constant(Scalar::i64(width - 1)), loc), t);
    const Sym one = convert(constant(Scalar::i64(1)), t);
    if (name == "get_bit") {
      Sym b = convert(binop("&", binop(">>", args[1], amount, loc), one, loc), Prim::I32);
      return select_or_if(in_range, [&] { return b; }, [&] { return constant(Scalar::i32(0)); });
    }
    const Sym mask = binop("<<", one, amount, loc);
    const Sym on = binop("==", binop("&", convert(args[2], Prim::I64), constant(Scalar::i64(1)), loc),
                         constant(Scalar::i64(1)), loc);
    Sym set = binop("|", args[1], mask, loc), clear = binop("&", args[1], unop("!", mask, loc), loc);
    Sym v = select_or_if(on, [&] { return set; }, [&] { return clear; });
    return select_or_if(in_range, [&] { return v; }, [&] { return args[1]; });
  }
  if (name == "lerp") {  // v0 + (v1 - v0) * t
    need(3);
    return binop("+", args[0], binop("*", binop("-", args[1], args[0], loc), args[2], loc), loc);
  }
  if (name == "copy") {
    need(1);
    return copy_value(args[0], loc);
  }
  if (name == "map") {
    if (args.size() < 2) throw Fallback("map without arrays");
    auto arr = std::make_shared<SymArr>();
    same_length(*arr, std::vector<Sym>(args.begin() + 1, args.end()), "map", loc);
    Sym f = args[0];
    std::vector<Sym> xs(args.begin() + 1, args.end());
    Lowerer* self = this;
    std::function<Sym(Reg)> elem = [self, f, xs, loc](Reg i) {
      std::vector<Sym> ys;
      for (const Sym& x : xs) ys.push_back(self->index(x, i, loc, false));
      return self->apply(f, std::move(ys), loc);
    };
    // Learn the element's shape from a throw-away lowering.
    Sym probe;
    bool made_locals = false;
    const int probe_start = f_.num_regs();
    kir::Block probe_code = probe_block([&] {
      Reg pi = f_.new_reg(Prim::I64);
      probe_indices.push_back(pi);
      probe = elem(pi);
      return std::vector<Reg>{};
    }, &made_locals);
    bool costly = made_locals || kir::has_loop(f_, probe_code);
    if (probe.kind == Sym::Kind::Array) {
      // Rows of lengths known before the map (`map (map f) a[i:, j:]`)
      // keep them; lengths made per element are irregular.
      std::vector<Reg> lens = row_lengths(probe, probe_code, probe_start, "map producing arrays whose length depends on the element");
      for (int64_t d : probe.arr->dims) arr->dims.push_back(d);
      if (!lens.empty()) {
        arr->set_inner_len(lens);
        elem = [made = elem, lens](Reg i) { return with_lengths(made(i), lens); };
      }
    }
    else if (probe.kind != Sym::Kind::Scalar && probe.kind != Sym::Kind::Tuple && probe.kind != Sym::Kind::Record &&
             probe.kind != Sym::Kind::Sum)
      throw Fallback("map producing functions or nested SOACs");
    arr->gen = elem;
    arr->fused = "map";
    Sym result = array_sym(arr);
    // An element with loops or private arrays of its own is computed once
    // per element into private storage, not again at every use of it.
    if (costly && probe.kind != Sym::Kind::Function && fits_private(result, loc)) return materialise(result, loc);
    // Over a length known only per element, with no bound: an element of
    // some weight (finpar/InterestCalib's per-swaption schedules, each
    // element a few date and exponential functions, then read once per
    // Hermite point and root-finder step) is stored under a guessed bound.
    if (speculative_bound > 0 && dynamic(result) && arr->dims.at(0) < 0 && probe.kind != Sym::Kind::Function &&
        (costly || kir::instruction_count(probe_code) >= kHeavyElement)) {
      auto bounded = std::make_shared<SymArr>(*arr);
      bounded->dims[0] = speculative_bound;
      Sym b = array_sym(bounded);
      if (fits_private(b, loc)) {
        Reg ok = b_.compare(kir::CmpOp::Le, arr->len, b_.i64(speculative_bound));
        b_.check(ok, kir::kBoundExceeded, loc);
        return materialise(b, loc);
      }
    }
    return result;
  }
  if (name == "reduce" || name == "reduce_comm") {
    need(3);
    if (tail) return soac_sym(name == "reduce" ? exec::SoacKind::Reduce : exec::SoacKind::ReduceComm, args, loc);
    return sequential_reduce(args[0], args[1], args[2], loc);
  }
  if (name == "scan") {
    need(3);
    if (!tail) return sequential_scan(args[0], args[1], args[2], loc);
    return soac_sym(exec::SoacKind::Scan, args, loc);
  }
  if (name == "iota" || name == "replicate") {
    Sym n = args.at(0);
    auto arr = std::make_shared<SymArr>();
    if (n.known) {
      arr->dims = {n.known->as_i64()};
    } else {
      // A size computed in the element: a dynamic length with no known bound.
      Reg len = convert(n, Prim::I64).reg;
      // Futhark's message, as the reference backend's (exec/reference.cpp).
      b_.check(b_.compare(kir::CmpOp::Le, b_.i64(0), len), "Range 0..1..<{} is invalid.", loc, len);
      arr->dims = {-1};
      arr->len = len;
    }
    arr->fused = name;
    if (name == "iota") {
      need(1);
      arr->gen = [](Reg i) { return Sym::scalar(i, Prim::I64); };
    } else {
      need(2);
      Sym x = args[1];
      if (x.kind == Sym::Kind::Array) {
        if (dynamic(x)) throw Fallback("replicate of an array whose length depends on the element");
        for (int64_t d : x.arr->dims) arr->dims.push_back(d);
      }
      arr->gen = [x](Reg) { return x; };
    }
    return array_sym(arr);
  }
  // The dimensionality of a scatter's or histogram's indices, from the
  // intrinsic's name (scatter, scatter_2d, reduce_by_index_3d).
  auto index_dims = [&](std::string_view base) {
    return name == base ? 1 : name == std::string(base) + "_2d" ? 2 : name == std::string(base) + "_3d" ? 3 : 0;
  };
  if (int d = index_dims("reduce_by_index")) {
    need(5);
    // map-of-hist: the planner may make it one batched SegHist.
    if (tail && d == 1) return soac_sym(exec::SoacKind::ReduceByIndex, args, loc);
    return sequential_hist(args[0], args[1], args[2], args[3], args[4], d, loc);
  }
  if (int d = index_dims("scatter")) {
    need(3);
    // map-of-scatter: the planner may make it a segmented scatter.
    if (tail && d == 1) return soac_sym(exec::SoacKind::Scatter, args, loc);
    return sequential_scatter(args[0], args[1], args[2], d, loc);
  }
  if (name == "scatter_stream" || name == "hist_stream") {
    need(name == "hist_stream" ? 5 : 3);
    return accumulator_stream(args, name == "hist_stream", loc);
  }
  if (name == "acc_write") {
    need(3);
    return acc_write(args[0], args[1], args[2], loc);
  }
  if (name == "zip") {
    if (args.size() < 2) throw Fallback("zip of fewer than two arrays");
    auto arr = std::make_shared<SymArr>();
    same_length(*arr, args, "zip", loc);
    Lowerer* self = this;
    arr->gen = [self, args, loc](Reg i) {
      std::vector<Sym> xs;
      for (const Sym& a : args) xs.push_back(self->index(a, i, loc, false));
      return Sym::tuple(std::move(xs));
    };
    return array_sym(arr);
  }
  if (name == "unzip") {
    need(1);
    Sym xs = args[0];
    Sym probe;
    kir::Block probe_code = probe_block([&] {
      Reg pi = f_.new_reg(Prim::I64);
      probe_indices.push_back(pi);
      probe = index(xs, pi, loc, false);
      return std::vector<Reg>{};
    });
    // Each part reads the whole tuple element again. A generated element
    // that reads private arrays is stored first, once: the program may
    // update those arrays in place before it reads the last part
    // (CFAL-bench's flash-alg1: `let (mis', lis') = unzip (map .. mis[i] ..)`
    // then `let mis[:k] = mis'` before lis' is read).
    // Within the whole private budget, not only what is kept by choice:
    // the alternative is the reference backend.
    if (xs.arr->gen && !dynamic(xs) && kir::reads_locals(f_, probe_code)) {
      try {
        xs = materialise(xs, loc);
      } catch (const Fallback&) {
        // past the budget: the parts stay views (a stale read falls back)
      }
    }
    if (probe.kind != Sym::Kind::Tuple && probe.kind != Sym::Kind::Record) throw Fallback("unzip of a non-tuple array");
    std::vector<Sym> parts;
    Lowerer* self = this;
    for (size_t k = 0; k < probe.elems.size(); ++k) {
      auto arr = std::make_shared<SymArr>();
      // The part's rows have the shape of the element's component k.
      arr->dims = {xs.arr->dims.at(0)};
      const Sym& part = probe.elems[k];
      if (dynamic(part)) throw Fallback("unzip of arrays of tuples holding arrays whose length depends on the element");
      if (part.kind == Sym::Kind::Array) arr->dims.insert(arr->dims.end(), part.arr->dims.begin(), part.arr->dims.end());
      arr->len = xs.arr->len;
      arr->gen = [self, xs, k, loc](Reg i) { return self->index(xs, i, loc, false).elems.at(k); };
      parts.push_back(array_sym(arr));
    }
    return Sym::tuple(std::move(parts));
  }
  if (name == "concat") {
    // A view: element i is a[i] before a's end, else b[i - length a]; each
    // side is read only under its condition (an if when reads are involved).
    need(2);
    const Sym a = args[0], b = args[1];
    if (a.kind != Sym::Kind::Array || b.kind != Sym::Kind::Array) throw Fallback("concat of non-arrays");
    if (dynamic(a) || dynamic(b)) throw Fallback("concat of an array whose length depends on the element");
    if (std::vector<int64_t>(a.arr->dims.begin() + 1, a.arr->dims.end()) !=
        std::vector<int64_t>(b.arr->dims.begin() + 1, b.arr->dims.end()))
      throw Fallback("concat of arrays whose rows differ in shape");
    const int64_t na = a.arr->dims[0];
    auto arr = std::make_shared<SymArr>();
    arr->dims = a.arr->dims;
    arr->dims[0] = na + b.arr->dims[0];
    arr->fused = "concat";
    Lowerer* self = this;
    arr->gen = [self, a, b, na, loc](Reg i) {
      const Sym at = Sym::scalar(i, Prim::I64);
      const Sym split = self->constant(Scalar::i64(na));
      return self->select_or_if(
          self->binop("<", at, split, loc), [&] { return self->index(a, i, loc, false); },
          [&] { return self->index(b, self->binop("-", at, self->constant(Scalar::i64(na)), loc).reg, loc, false); });
    };
    return array_sym(arr);
  }
  if (name == "flatten") {
    // A view: element i of the result is xss[i / m][i % m].
    need(1);
    const Sym xss = args[0];
    if (xss.kind != Sym::Kind::Array || xss.arr->dims.size() < 2) throw Fallback("flatten of a non-matrix");
    const int64_t n = xss.arr->dims[0], m = xss.arr->dims[1];
    auto arr = std::make_shared<SymArr>();
    arr->dims = {n < 0 || m < 0 ? -1 : n * m};
    arr->dims.insert(arr->dims.end(), xss.arr->dims.begin() + 2, xss.arr->dims.end());
    // Lengths known per element: their product, and the rows' width.
    const Reg row_len = xss.arr->len_of(1);
    if (dynamic(xss)) {
      arr->len = b_.binary(kir::BinOp::Mul, length_reg(xss), dim_size(xss, 1).reg);
      if (xss.arr->inner_len.size() > 1) arr->inner_len.assign(xss.arr->inner_len.begin() + 1, xss.arr->inner_len.end());
    }
    arr->fused = "flatten";
    Lowerer* self = this;
    const int64_t w = std::max<int64_t>(m, 1);
    arr->gen = [self, xss, w, row_len, loc](Reg i) {
      // The constant is made here: the generator may run in another block.
      const Sym width = row_len != kir::kNoReg ? Sym::scalar(row_len, Prim::I64) : self->constant(Scalar::i64(w));
      const Sym flat = Sym::scalar(i, Prim::I64);
      const Sym row = self->binop("/", flat, width, loc), col = self->binop("%", flat, width, loc);
      return self->index(self->index(xss, row.reg, loc, false), col.reg, loc, false);
    };
    return array_sym(arr);
  }
  if (name == "unflatten") {
    // A view: row i of the result is xs[i*m : (i+1)*m]. The sizes must be
    // known when the nest is planned (they are the result's shape).
    need(3);
    const Sym xs = args[2];
    if (!args[0].known || !args[1].known) throw Fallback("unflatten to sizes that depend on the element");
    if (xs.kind != Sym::Kind::Array) throw Fallback("unflatten of a non-array");
    if (dynamic(xs)) throw Fallback("unflatten of an array whose length depends on the element");
    const int64_t n = args[0].known->as_i64(), m = args[1].known->as_i64(), len = xs.arr->dims[0];
    if (n < 0 || m < 0 || n * m != len) throw Fallback("unflatten to a shape of another size");  // the reference backend reports it
    auto arr = std::make_shared<SymArr>();
    arr->dims = {n, m};
    arr->dims.insert(arr->dims.end(), xs.arr->dims.begin() + 1, xs.arr->dims.end());
    arr->elem = xs.arr->elem;
    arr->fused = "unflatten";
    Lowerer* self = this;
    std::vector<int64_t> row_dims(arr->dims.begin() + 1, arr->dims.end());
    arr->gen = [self, xs, m, row_dims, loc](Reg i) {
      auto row = std::make_shared<SymArr>();
      row->dims = row_dims;
      row->elem = xs.arr->elem;
      row->gen = [self, xs, m, i, loc](Reg j) {
        Reg at = self->b().binary(kir::BinOp::Add, self->b().binary(kir::BinOp::Mul, i, self->b().i64(m)), j);
        return self->index(xs, at, loc, false);
      };
      return array_sym(row);
    };
    return array_sym(arr);
  }
  if (name == "rotate") {
    // A view: element i is xs[(i + r) mod n] (Futhark's %, so negative
    // amounts rotate to the right).
    need(2);
    const Sym r = args[0], xs = args[1];
    if (!r.is_scalar() || !is_integral(r.prim)) throw Fallback("rotate by a non-integer");
    if (xs.kind != Sym::Kind::Array) throw Fallback("rotate of a non-array");
    if (dynamic(xs)) throw Fallback("rotate of an array whose length depends on the element");
    const int64_t n = std::max<int64_t>(xs.arr->dims[0], 1);
    auto arr = std::make_shared<SymArr>();
    arr->dims = xs.arr->dims;
    arr->elem = xs.arr->elem;
    arr->fused = "rotate";
    Lowerer* self = this;
    const Sym amount = convert(r, Prim::I64);
    arr->gen = [self, xs, amount, n, loc](Reg i) {
      const Sym at = self->binop("%", self->binop("+", Sym::scalar(i, Prim::I64), amount, loc),
                                 self->constant(Scalar::i64(n)), loc);
      return self->index(xs, at.reg, loc, false);
    };
    return array_sym(arr);
  }
  if (name == "transpose") {
    need(1);
    const Sym xss = args[0];
    if (xss.kind != Sym::Kind::Array || xss.arr->dims.size() < 2) throw Fallback("transpose of a non-matrix");
    auto arr = std::make_shared<SymArr>();
    arr->dims = xss.arr->dims;
    std::swap(arr->dims[0], arr->dims[1]);
    // Lengths known per element swap as the bounds do.
    std::vector<Reg> lens;
    for (size_t d = 0; d < xss.arr->dims.size(); ++d) lens.push_back(xss.arr->len_of(d));
    std::swap(lens[0], lens[1]);
    arr->fused = "transpose";
    Lowerer* self = this;
    std::vector<int64_t> inner_dims(arr->dims.begin() + 1, arr->dims.end());
    std::vector<Reg> col_lens(lens.begin() + 1, lens.end());
    arr->gen = [self, xss, inner_dims, col_lens, loc](Reg i) {
      auto col = std::make_shared<SymArr>();
      col->dims = inner_dims;
      col->gen = [self, xss, i, loc](Reg j) { return self->index(self->index(xss, j, loc, false), i, loc, false); };
      return with_lengths(array_sym(col), col_lens);
    };
    return with_lengths(array_sym(arr), dynamic(xss) ? lens : std::vector<Reg>{});
  }
  if (name == "jvp2" || name == "vjp2") return lower_ad(name, std::move(args), loc);
  if (name == "filter" || name == "partition") {
    need(2);
    return sequential_partition({args[0]}, args[1], name == "partition", loc);
  }
  if (name == "partition2") {
    need(3);
    return sequential_partition({args[0], args[1]}, args[2], true, loc);
  }
  if (args.size() == 1) return unop(name, args[0], loc);
  throw Fallback(fmt::format("intrinsic {} inside a mapped function", name));
}

}  // namespace thorn::flatten
