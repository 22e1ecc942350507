// map_every_opcode: a SegMap whose element function exercises the whole
// kernel IR, so that one NVRTC compilation checks the code generator's
// output for every operator on every type it applies to.
#include "interp/flatten/kernel_ir_builder.hpp"
#include "tests/gpu/support/steps.hpp"

namespace thorn::gpu::test {

using kir::BinOp;
using kir::CmpOp;
using kir::Reg;
using kir::UnOp;

namespace {

bool unop_applies(UnOp op, Prim t) {
  switch (op) {
    case UnOp::Not: return t == Prim::Bool;
    case UnOp::IsNan:
    case UnOp::IsInf:
    case UnOp::ToBits: return is_float(t);
    case UnOp::FromBits: return t == Prim::U16 || t == Prim::U32 || t == Prim::U64;
    case UnOp::Popc:
    case UnOp::Clz:
    case UnOp::Ctz:
    case UnOp::Complement: return is_integral(t);
    case UnOp::Neg:
    case UnOp::Abs:
    case UnOp::Signum: return is_numeric(t);
    default: return is_float(t);
  }
}

bool binop_applies(BinOp op, Prim t) {
  switch (op) {
    case BinOp::LogAnd:
    case BinOp::LogOr: return t == Prim::Bool;
    case BinOp::And:
    case BinOp::Or:
    case BinOp::Xor: return is_integral(t) || t == Prim::Bool;
    case BinOp::Shl:
    case BinOp::Shr:
    case BinOp::LShr:
    case BinOp::Quot:
    case BinOp::Rem: return is_integral(t);
    case BinOp::Atan2:
    case BinOp::Hypot:
    case BinOp::LdExp: return is_float(t);
    case BinOp::NextAfter: return t == Prim::F32 || t == Prim::F64;
    default: return is_numeric(t);
  }
}

}  // namespace

plan::Step map_every_opcode(int64_t segments, int64_t n) {
  plan::Step st;
  st.kind = plan::StepKind::SegMap;
  st.segments = segments;
  st.segment_size = n;
  st.element.name = "every_opcode";
  kir::Builder b(st.element);
  int fx = b.free_array(Prim::F64, "x"), fi = b.free_array(Prim::I64, "i");
  Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
  Reg nn = b.i64(n);
  b.check(b.compare(CmpOp::Lt, j, nn), "every_opcode: j out of bounds");
  Reg flat = b.binary(BinOp::Add, b.binary(BinOp::Mul, s, nn), j);
  Reg x = b.read(fx, flat), ix = b.read(fi, flat);
  Reg acc = b.constant(Scalar::floating(Prim::F64, 0.0));
  auto fold = [&](Reg r) { acc = b.binary(BinOp::Add, acc, b.convert(Prim::F64, r)); };

  for (int ti = 0; ti < kNumPrims; ++ti) {
    Prim t = Prim(ti);
    Reg v = b.convert(t, x), w = b.convert(t, ix);
    for (int op = 0; op <= int(UnOp::FromBits); ++op)
      if (unop_applies(UnOp(op), t)) fold(b.unary(UnOp(op), v));
    for (int op = 0; op <= int(BinOp::LogOr); ++op)
      if (binop_applies(BinOp(op), t)) fold(b.binary(BinOp(op), v, w));
    for (int op = 0; op <= int(CmpOp::Ge); ++op) fold(b.compare(CmpOp(op), v, w));
    for (int ui = 0; ui < kNumPrims; ++ui) fold(b.convert(Prim(ui), v));
    fold(b.select(b.compare(CmpOp::Lt, v, w), v, w));
    fold(b.constant(t == Prim::Bool ? Scalar::boolean(true)
                    : is_float(t)   ? Scalar::floating(t, 2.5)
                    : is_signed_int(t) ? Scalar::signed_int(t, -7)
                                       : Scalar::unsigned_int(t, 7)));
  }
  // Structured control flow: If with results, For with carried values, While.
  Reg half = b.constant(Scalar::floating(Prim::F64, 0.5));
  std::vector<Reg> r = b.if_(
      b.compare(CmpOp::Lt, x, half),
      [&] { return std::vector<Reg>{b.binary(BinOp::Mul, acc, b.constant(Scalar::floating(Prim::F64, 2.0))), ix}; },
      [&] { return std::vector<Reg>{b.binary(BinOp::Add, acc, half), b.i64(3)}; });
  Reg trips = b.binary(BinOp::And, r[1], b.i64(7));
  std::vector<Reg> looped = b.for_(trips, {r[0], r[1]}, [&](Reg i, const std::vector<Reg>& c) {
    // swap the carried values' roles every iteration: exercises the parallel assignment
    Reg f = b.binary(BinOp::Add, c[0], b.convert(Prim::F64, i));
    return std::vector<Reg>{f, b.binary(BinOp::Add, c[1], i)};
  });
  std::vector<Reg> w = b.while_(
      {b.i64(0), looped[0]},
      [&](const std::vector<Reg>& c) { return b.compare(CmpOp::Lt, c[0], b.i64(5)); },
      [&](const std::vector<Reg>& c) {
        return std::vector<Reg>{b.binary(BinOp::Add, c[0], b.i64(1)),
                                b.binary(BinOp::Mul, c[1], b.constant(Scalar::floating(Prim::F64, 0.5)))};
      });
  b.ret({b.binary(BinOp::Add, w[1], b.convert(Prim::F64, looped[1]))});
  return st;
}

plan::Step map_subroutines(int64_t segments, int64_t n) {
  plan::Step st;
  st.kind = plan::StepKind::SegMap;
  st.segments = segments;
  st.segment_size = n;
  st.element.name = "subroutines";
  kir::Builder b(st.element);
  int fx = b.free_array(Prim::F64, "x");
  Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
  auto f64c = [&](double v) { return b.constant(Scalar::floating(Prim::F64, v)); };
  int small = b.subroutine("small", {Prim::F64, Prim::F64}, [&](const std::vector<Reg>& p) {
    return std::vector<Reg>{b.binary(BinOp::Add, b.binary(BinOp::Mul, p[0], p[1]), f64c(0.25)),
                            b.unary(UnOp::Sqrt, b.unary(UnOp::Abs, p[0]))};
  });
  int large = b.subroutine("large", {Prim::F64, Prim::I64}, [&](const std::vector<Reg>& p) {
    b.check(b.compare(CmpOp::Ge, p[1], b.i64(0)), "subroutines: negative count");
    int l = b.local_array(Prim::F64, 16, "tmp");
    Reg acc = p[0];
    for (int k = 0; k < 110; ++k) acc = b.call(small, {acc, f64c(0.5 + k)})[0];
    b.for_(b.i64(16), {}, [&](Reg i, const std::vector<Reg>&) {
      b.local_write(l, i, b.call(small, {acc, b.convert(Prim::F64, i)})[1]);
      return std::vector<Reg>{};
    });
    auto r = b.for_(p[1], {acc}, [&](Reg i, const std::vector<Reg>& c) {
      Reg v = b.local_read(l, b.binary(BinOp::And, i, b.i64(15)));
      auto picked = b.if_(b.compare(CmpOp::Lt, v, c[0]), [&] { return std::vector<Reg>{b.call(small, {v, c[0]})[0]}; },
                          [&] { return std::vector<Reg>{v}; });
      return std::vector<Reg>{picked[0]};
    });
    return std::vector<Reg>{r[0], acc};
  });
  Reg x = b.read(fx, b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(n)), j));
  auto a = b.call(large, {x, b.binary(BinOp::And, j, b.i64(7))});
  auto c = b.call(large, {a[1], b.i64(3)});
  auto d = b.call(small, {a[0], c[0]});
  b.ret({b.binary(BinOp::Add, d[0], d[1])});
  return st;
}

}  // namespace thorn::gpu::test
