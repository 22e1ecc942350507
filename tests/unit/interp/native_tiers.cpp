// The native tier (interp/exec/native) against the interpreter, bit for bit:
// the same steps run with THORN_NATIVE off and in sync mode (compiled before
// the first run) must write identical bytes, floats and reductions included,
// and fail with identical errors. Every case also checks that the native
// code really ran, so a test cannot pass by falling back.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <thread>

#include "flatten_test_util.hpp"
#include "native_test_util.hpp"
#include "interp/exec/native/native_bounds.hpp"
#include "interp/exec/native/native_compiler.hpp"
#include "interp/exec/native/native_registry.hpp"
#include "interp/exec/native/native_source.hpp"
#include "interp/util/cancel.hpp"
#include "interp/util/error.hpp"

using namespace thorn;
using namespace thorn::nativetest;
using kir::BinOp;
using kir::CmpOp;
using kir::Reg;
using kir::UnOp;
using plan::StepKind;
using testutil::buffer;
using testutil::random_i64;
using testutil::step;


TEST_CASE("native tier: float operations agree bit for bit (specials, libm, no contraction)") {
  const int64_t n = 700;
  auto xs = awkward_doubles(n, 1), ys = awkward_doubles(n, 2);
  ElemBuilder e;
  kir::Builder& b = e.b;
  Reg x = e.input(Prim::F64, "xs"), y = e.input(Prim::F64, "ys");
  std::vector<Reg> res;
  for (UnOp op : {UnOp::Sin, UnOp::Cos, UnOp::Exp, UnOp::Log, UnOp::Sqrt, UnOp::Tanh, UnOp::Floor, UnOp::Round,
                  UnOp::Trunc, UnOp::Abs, UnOp::Signum, UnOp::Neg, UnOp::Lgamma, UnOp::Cbrt})
    res.push_back(b.unary(op, x));
  res.push_back(b.unary(UnOp::IsNan, x));
  res.push_back(b.unary(UnOp::IsInf, x));
  res.push_back(b.unary(UnOp::ToBits, x));
  for (BinOp op : {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod, BinOp::Pow, BinOp::Min,
                   BinOp::Max, BinOp::Atan2, BinOp::Hypot, BinOp::NextAfter, BinOp::LdExp})
    res.push_back(b.binary(op, x, y));
  // x*x + y (the product used nowhere else): contracted into a fused
  // multiply-add it would round once, not twice.
  res.push_back(b.binary(BinOp::Add, b.binary(BinOp::Mul, x, x), y));
  for (Prim to : {Prim::I8, Prim::I32, Prim::I64, Prim::U16, Prim::U64, Prim::F32, Prim::Bool})
    res.push_back(b.convert(to, x));
  // The same on f32.
  Reg xf = b.convert(Prim::F32, x), yf = b.convert(Prim::F32, y);
  for (UnOp op : {UnOp::Sin, UnOp::Exp, UnOp::Sqrt, UnOp::Log1p}) res.push_back(b.unary(op, xf));
  for (BinOp op : {BinOp::Add, BinOp::Mul, BinOp::Div, BinOp::Mod, BinOp::Pow, BinOp::Min})
    res.push_back(b.binary(op, xf, yf));
  res.push_back(b.binary(BinOp::Add, b.binary(BinOp::Mul, xf, xf), yf));
  res.push_back(b.compare(CmpOp::Lt, x, y));
  res.push_back(b.select(b.compare(CmpOp::Ge, x, y), x, y));
  b.ret(res);
  auto results = e.f.result_types();
  std::vector<int> writes;
  for (size_t r = 0; r < results.size(); ++r) writes.push_back(int(r + 2));
  plan::Step s = step(StepKind::SegMap, 1, n, e.f, {0, 1}, writes);
  same_on_both_tiers(s, [&] {
    std::vector<BufferPtr> bufs = {buffer(Prim::F64, xs), buffer(Prim::F64, ys)};
    for (Prim t : results) bufs.push_back(std::make_shared<Buffer>(t, n));
    return bufs;
  });
}

TEST_CASE("native tier: integer operations agree (division, shifts both ways, powers, bits, conversions)") {
  const int64_t n = 1500;
  auto as = random_i64(n, 3, -200, 200), bs = random_i64(n, 4, -70, 70);
  as[0] = std::numeric_limits<int64_t>::min();
  bs[0] = -1;
  bs[1] = 0;
  ElemBuilder e;
  kir::Builder& b = e.b;
  Reg a64 = e.input(Prim::I64, "as"), b64 = e.input(Prim::I64, "bs");
  std::vector<Reg> res;
  for (Prim t : {Prim::I8, Prim::I32, Prim::I64, Prim::U8, Prim::U32, Prim::U64}) {
    Reg a = b.convert(t, a64), c = b.convert(t, b64);
    for (BinOp op : {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod, BinOp::Quot, BinOp::Rem,
                     BinOp::Pow, BinOp::Shl, BinOp::Shr, BinOp::LShr, BinOp::Min, BinOp::Max, BinOp::And,
                     BinOp::Xor})
      res.push_back(b.binary(op, a, c));
    for (UnOp op : {UnOp::Neg, UnOp::Abs, UnOp::Signum, UnOp::Complement, UnOp::Popc, UnOp::Clz, UnOp::Ctz})
      res.push_back(b.unary(op, a));
    for (Prim to : {Prim::I16, Prim::U32, Prim::F32, Prim::F64, Prim::Bool}) res.push_back(b.convert(to, a));
  }
  b.ret(res);
  auto results = e.f.result_types();
  std::vector<int> writes;
  for (size_t r = 0; r < results.size(); ++r) writes.push_back(int(r + 2));
  plan::Step s = step(StepKind::SegMap, 3, n / 3, e.f, {0, 1}, writes);
  same_on_both_tiers(s, [&] {
    std::vector<BufferPtr> bufs = {buffer(Prim::I64, as), buffer(Prim::I64, bs)};
    for (Prim t : results) bufs.push_back(std::make_shared<Buffer>(t, n));
    return bufs;
  });
}

TEST_CASE("native tier: control flow and private arrays (while, for with permuted carries, if)") {
  // Mandelbrot-like escape count, a loop swapping its carried values, and a
  // private array filled forwards and read backwards.
  const int64_t rows = 37, cols = 53;
  ElemBuilder e;
  kir::Builder& b = e.b;
  auto f64c = [&](double v) { return b.constant(Scalar::floating(Prim::F64, v)); };
  Reg cr = b.binary(BinOp::Sub, b.binary(BinOp::Div, b.convert(Prim::F64, e.j), f64c(cols / 3.0)), f64c(2.0));
  Reg ci = b.binary(BinOp::Sub, b.binary(BinOp::Div, b.convert(Prim::F64, e.s), f64c(rows / 2.5)), f64c(1.25));
  auto esc = b.while_(
      {f64c(0), f64c(0), b.i32(0)},
      [&](const std::vector<Reg>& v) {
        Reg mag = b.binary(BinOp::Add, b.binary(BinOp::Mul, v[0], v[0]), b.binary(BinOp::Mul, v[1], v[1]));
        return b.binary(BinOp::LogAnd, b.compare(CmpOp::Lt, mag, f64c(4.0)), b.compare(CmpOp::Lt, v[2], b.i32(100)));
      },
      [&](const std::vector<Reg>& v) {
        Reg zr = b.binary(BinOp::Add, b.binary(BinOp::Sub, b.binary(BinOp::Mul, v[0], v[0]),
                                               b.binary(BinOp::Mul, v[1], v[1])), cr);
        Reg zi = b.binary(BinOp::Add, b.binary(BinOp::Mul, f64c(2.0), b.binary(BinOp::Mul, v[0], v[1])), ci);
        return std::vector<Reg>{zr, zi, b.binary(BinOp::Add, v[2], b.i32(1))};
      });
  auto swapped = b.for_(b.binary(BinOp::Rem, e.j, b.i64(5)), {e.s, e.j},
                        [&](Reg i, const std::vector<Reg>& v) { return std::vector<Reg>{v[1], b.binary(BinOp::Add, v[0], i)}; });
  int loc = b.local_array(Prim::F64, 16, "priv");
  b.for_(b.i64(16), {}, [&](Reg i, const std::vector<Reg>&) {
    b.local_write(loc, i, b.binary(BinOp::Mul, b.convert(Prim::F64, i), esc[0]));
    return std::vector<Reg>{};
  });
  auto sum = b.for_(b.i64(16), {f64c(0)}, [&](Reg i, const std::vector<Reg>& v) {
    Reg back = b.binary(BinOp::Sub, b.i64(15), i);
    return std::vector<Reg>{b.binary(BinOp::Add, b.binary(BinOp::Mul, v[0], f64c(0.5)), b.local_read(loc, back))};
  });
  auto picked = b.if_(b.compare(CmpOp::Gt, esc[2], b.i32(50)), [&] { return std::vector<Reg>{esc[0]}; },
                      [&] { return std::vector<Reg>{b.unary(UnOp::Sin, esc[1])}; });
  b.ret({esc[2], swapped[0], swapped[1], sum[0], picked[0]});
  plan::Step s = step(StepKind::SegMap, rows, cols, e.f, {}, {0, 1, 2, 3, 4});
  same_on_both_tiers(s, [&] {
    return std::vector<BufferPtr>{std::make_shared<Buffer>(Prim::I32, rows * cols),
                                  std::make_shared<Buffer>(Prim::I64, rows * cols),
                                  std::make_shared<Buffer>(Prim::I64, rows * cols),
                                  std::make_shared<Buffer>(Prim::F64, rows * cols),
                                  std::make_shared<Buffer>(Prim::F64, rows * cols)};
  });
}

TEST_CASE("native tier: many loops in one element (a counter named like a type would not compile)") {
  // The C source numbers loop counters; one named i64 (or i8, i16, i32)
  // made the next declaration a syntax error (finpar/LocVolCalib's row
  // element, 40 loops, stayed interpreted).
  ElemBuilder e;
  kir::Builder& b = e.b;
  Reg acc = e.j;
  for (int k = 0; k < 40; ++k) {
    auto r = b.for_(b.i64(3), {acc}, [&](Reg i, const std::vector<Reg>& v) {
      // Declarations of every integer type inside the loop.
      Reg t = b.binary(BinOp::Add, v[0], i);
      for (Prim p : {Prim::I8, Prim::I16, Prim::I32})
        t = b.binary(BinOp::Add, t, b.convert(Prim::I64, b.binary(BinOp::Add, b.convert(p, i), b.convert(p, t))));
      return std::vector<Reg>{b.binary(BinOp::Add, t, b.i64(k))};
    });
    acc = r[0];
  }
  b.ret({acc});
  plan::Step s = step(StepKind::SegMap, 3, 50, e.f, {}, {0});
  same_on_both_tiers(s, [&] { return std::vector<BufferPtr>{std::make_shared<Buffer>(Prim::I64, 150)}; });
}

TEST_CASE("native tier: the block form (uniform loops) agrees, including its partial last block") {
  // A row of a matrix product per element, as the flattener plans matmul:
  // uniform For loops over a row's columns and a dot product, the row in a
  // private array, then written out; plus a uniform If and While, and a
  // Check that fails only for some elements.
  const int64_t m = 19;
  auto xs = awkward_doubles(size_t(m * m), 21);
  for (double& x : xs)
    if (!std::isfinite(x)) x = 1.5;
  for (int64_t rows : {int64_t(1), int64_t(37), int64_t(100)}) {
    kir::Function f;
    kir::Builder b(f);
    Reg s = b.param(Prim::I64);
    b.param(Prim::I64);
    int a = b.free_array(Prim::F64, "xs");
    int out = b.free_array(Prim::F64, "out");
    int row = b.local_array(Prim::F64, m, "row");
    Reg base = b.binary(BinOp::Mul, b.binary(BinOp::Rem, s, b.i64(m)), b.i64(m));
    b.for_(b.i64(m), {}, [&](Reg c, const std::vector<Reg>&) {
      auto dot = b.for_(b.i64(m), {b.constant(Scalar::floating(Prim::F64, 0.0))}, [&](Reg k, const std::vector<Reg>& acc) {
        Reg x = b.read(a, b.binary(BinOp::Add, base, k));
        Reg y = b.read(a, b.binary(BinOp::Add, b.binary(BinOp::Mul, k, b.i64(m)), c));
        return std::vector<Reg>{b.binary(BinOp::Add, acc[0], b.binary(BinOp::Mul, x, y))};
      });
      b.local_write(row, c, dot[0]);
      return std::vector<Reg>{};
    });
    // A uniform If (on a value read at a fixed index) and While.
    Reg first = b.read(a, b.i64(0));
    auto scale = b.if_(b.compare(CmpOp::Gt, first, b.constant(Scalar::floating(Prim::F64, 0.0))),
                       [&] { return std::vector<Reg>{b.constant(Scalar::floating(Prim::F64, 0.5))}; },
                       [&] { return std::vector<Reg>{b.constant(Scalar::floating(Prim::F64, 2.0))}; });
    auto halvings = b.while_({b.i32(0), b.constant(Scalar::floating(Prim::F64, 100.0))},
                             [&](const std::vector<Reg>& v) {
                               return b.binary(BinOp::LogAnd,
                                               b.compare(CmpOp::Gt, v[1], b.constant(Scalar::floating(Prim::F64, 1.0))),
                                               b.compare(CmpOp::Lt, v[0], b.i32(20)));
                             },
                             [&](const std::vector<Reg>& v) {
                               return std::vector<Reg>{b.binary(BinOp::Add, v[0], b.i32(1)), b.binary(BinOp::Mul, v[1], scale[0])};
                             });
    b.check(b.compare(CmpOp::Lt, s, b.i64(90)), "row too large");
    b.for_(b.i64(m), {}, [&](Reg c, const std::vector<Reg>&) {
      b.write(out, b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(m)), c),
              b.binary(BinOp::Mul, b.local_read(row, c), scale[0]));
      return std::vector<Reg>{};
    });
    // Varying values through uniform control flow: an If yielding a
    // varying value on one side and a constant on the other, a While
    // carrying a uniform counter and a varying accumulator.
    Reg mine = b.convert(Prim::F64, s);
    auto mixed = b.if_(b.compare(CmpOp::Lt, first, b.constant(Scalar::floating(Prim::F64, 0.0))),
                       [&] { return std::vector<Reg>{mine}; },
                       [&] { return std::vector<Reg>{b.constant(Scalar::floating(Prim::F64, -1.0))}; });
    auto acc = b.while_({b.i32(0), mixed[0]},
                        [&](const std::vector<Reg>& v) { return b.compare(CmpOp::Lt, v[0], b.i32(7)); },
                        [&](const std::vector<Reg>& v) {
                          return std::vector<Reg>{b.binary(BinOp::Add, v[0], b.i32(1)),
                                                  b.binary(BinOp::Add, b.unary(UnOp::Cos, v[1]), mine)};
                        });
    b.ret({halvings[0], b.unary(UnOp::Sin, b.local_read(row, b.i64(3))), acc[1]});
    plan::Step st = step(StepKind::SegMap, rows, 1, f, {0, 1}, {2, 3, 4});
    INFO("rows " << rows);
    CHECK(native::generate(st).text.find("thorn_for_blocks(begin") != std::string::npos);
    same_on_both_tiers(st, [&] {
      return std::vector<BufferPtr>{buffer(Prim::F64, xs), std::make_shared<Buffer>(Prim::F64, rows * m),
                                    std::make_shared<Buffer>(Prim::I32, rows), std::make_shared<Buffer>(Prim::F64, rows),
                                    std::make_shared<Buffer>(Prim::F64, rows)};
    }, Expect::Native, rows > 90 ? "runtime error: row too large" : "");
  }
}

namespace {

// (s, j) -> sin(xs[s*size + j]) * xs[...]: float values whose sums depend on
// the order of the additions.
kir::Function sin_rows(int64_t size) {
  kir::Function f;
  kir::Builder b(f);
  Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
  Reg x = b.read(b.free_array(Prim::F64, "xs"), b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(size)), j));
  b.ret({b.binary(BinOp::Mul, b.unary(UnOp::Sin, x), x)});
  return f;
}

// (x + y) * 1.0: commutative, but not recognised as a fast operator.
kir::Function slow_add_f64() {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::F64), y = b.param(Prim::F64);
  b.ret({b.binary(BinOp::Mul, b.binary(BinOp::Add, x, y), b.constant(Scalar::floating(Prim::F64, 1.0)))});
  return f;
}

// argmin on (distance, index), ties to the lower index.
kir::Function argmin_op() {
  kir::Function f;
  kir::Builder b(f);
  Reg d0 = b.param(Prim::F64), i0 = b.param(Prim::I64), d1 = b.param(Prim::F64), i1 = b.param(Prim::I64);
  Reg first = b.binary(BinOp::LogOr, b.compare(CmpOp::Lt, d0, d1),
                       b.binary(BinOp::LogAnd, b.compare(CmpOp::Eq, d0, d1), b.compare(CmpOp::Lt, i0, i1)));
  b.ret({b.select(first, d0, d1), b.select(first, i0, i1)});
  return f;
}

struct Shape {
  int64_t segments, size;
};
const std::vector<Shape> kShapes = {{1, 1},   {1, 255},  {1, 257}, {2, 1000}, {1, 70000}, {1000, 3},
                                    {333, 10}, {7, 129}, {3, 33},  {4, 0},    {40, 600},  {2, 513}};

}  // namespace

TEST_CASE("native tier: f64 reductions keep the interpreter's chunking and combine order") {
  for (Shape sh : kShapes) {
    auto xs = awkward_doubles(size_t(sh.segments * sh.size), 5);
    for (double& x : xs)
      if (!std::isfinite(x) || std::fabs(x) > 1e6) x = 0.25;  // sums must stay finite to show rounding
    for (int variant = 0; variant < 3; ++variant) {
      INFO("shape [" << sh.segments << "][" << sh.size << "] variant " << variant);
      plan::Step s = step(StepKind::SegRed, sh.segments, sh.size, sin_rows(sh.size), {0}, {1});
      s.op = variant == 0 ? testutil::binop_fn(BinOp::Add, Prim::F64) : slow_add_f64();
      s.neutral = {Scalar::floating(Prim::F64, 0.0)};
      s.commutative = variant != 2;  // variant 2: the ordered pairwise-tree path
      same_on_both_tiers(s, [&] {
        return std::vector<BufferPtr>{buffer(Prim::F64, xs), std::make_shared<Buffer>(Prim::F64, sh.segments)};
      }, sh.size > 0 ? Expect::Native : Expect::Either);
    }
  }
}

TEST_CASE("native tier: tuple reduction (argmin), scan, histogram and scatter") {
  const int64_t segs = 6, size = 900;
  auto xs = awkward_doubles(size_t(segs * size), 9);
  for (double& x : xs)
    if (std::isnan(x)) x = 1.0;
  // argmin over sin(x)*x with its position
  kir::Function f;
  {
    kir::Builder b(f);
    Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
    Reg x = b.read(b.free_array(Prim::F64, "xs"), b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(size)), j));
    b.ret({b.binary(BinOp::Mul, b.unary(UnOp::Sin, x), x), j});
  }
  plan::Step red = step(StepKind::SegRed, segs, size, f, {0}, {1, 2});
  red.op = argmin_op();
  red.neutral = {Scalar::floating(Prim::F64, std::numeric_limits<double>::infinity()), Scalar::i64(0)};
  red.commutative = true;
  same_on_both_tiers(red, [&] {
    return std::vector<BufferPtr>{buffer(Prim::F64, xs), std::make_shared<Buffer>(Prim::F64, segs),
                                  std::make_shared<Buffer>(Prim::I64, segs)};
  });

  plan::Step scan = step(StepKind::SegScan, segs, size, sin_rows(size), {0}, {1});
  scan.op = slow_add_f64();
  scan.neutral = {Scalar::floating(Prim::F64, 0.0)};
  same_on_both_tiers(scan, [&] {
    return std::vector<BufferPtr>{buffer(Prim::F64, xs), std::make_shared<Buffer>(Prim::F64, segs * size)};
  });

  // Histogram: bin (j * 7) % 13 - 1 (so -1 is out of range), value sin(x)*x.
  kir::Function hf;
  {
    kir::Builder b(hf);
    Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
    Reg x = b.read(b.free_array(Prim::F64, "xs"), b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(size)), j));
    Reg bin = b.binary(BinOp::Sub, b.binary(BinOp::Mod, b.binary(BinOp::Mul, j, b.i64(7)), b.i64(13)), b.i64(1));
    b.ret({bin, b.binary(BinOp::Mul, b.unary(UnOp::Sin, x), x)});
  }
  plan::Step hist = step(StepKind::SegHist, segs, size, hf, {0}, {1});
  hist.bins = 12;
  hist.op = slow_add_f64();
  hist.neutral = {Scalar::floating(Prim::F64, 0.0)};
  same_on_both_tiers(hist, [&] {
    return std::vector<BufferPtr>{buffer(Prim::F64, xs), buffer(Prim::F64, std::vector<double>(segs * 12, 0.5))};
  });

  // Scatter: index (j * 3) % (size + 10) (some out of range), value exp(x / 10).
  kir::Function sf;
  {
    kir::Builder b(sf);
    Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
    Reg x = b.read(b.free_array(Prim::F64, "xs"), b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(size)), j));
    Reg idx = b.binary(BinOp::Mod, b.binary(BinOp::Mul, j, b.i64(3)), b.i64(size + 10));
    b.ret({idx, b.unary(UnOp::Exp, b.binary(BinOp::Div, x, b.constant(Scalar::floating(Prim::F64, 10.0))))});
  }
  plan::Step sc = step(StepKind::Scatter, segs, size, sf, {0}, {1});
  sc.dest_size = size;
  same_on_both_tiers(sc, [&] {
    return std::vector<BufferPtr>{buffer(Prim::F64, xs), buffer(Prim::F64, std::vector<double>(segs * size, -1.0))};
  });
}

TEST_CASE("native tier: failing Checks and out-of-bounds reads report the interpreter's errors") {
  ElemBuilder e;
  kir::Builder& b = e.b;
  b.check(b.compare(CmpOp::Lt, e.j, b.i64(3000)), "j too large");
  Reg x = e.input(Prim::F64, "xs");
  b.ret({b.unary(UnOp::Sqrt, x)});
  auto xs = awkward_doubles(5000, 3);
  auto make = [&] {
    return std::vector<BufferPtr>{buffer(Prim::F64, xs), std::make_shared<Buffer>(Prim::F64, 5000)};
  };
  same_on_both_tiers(step(StepKind::SegMap, 1, 5000, e.f, {0}, {1}), make, Expect::Native,
                     "runtime error: j too large");
  same_on_both_tiers(step(StepKind::SegMap, 1, 2000, e.f, {0}, {1}), make);

  // A read past the end (a planner bug): the interpreter's error, not a crash.
  ElemBuilder o;
  Reg past = o.b.read(o.b.free_array(Prim::F64, "xs"), o.b.binary(BinOp::Add, o.j, o.b.i64(10)));
  o.b.ret({past});
  same_on_both_tiers(step(StepKind::SegMap, 1, 5000, o.f, {0}, {1}), make, Expect::Native,
                     "runtime error: index 5009 out of bounds for an array of 5000 elements (free array a0 of )");
}

TEST_CASE("native tier: f16 stays interpreted") {
  ElemBuilder e;
  e.b.ret({e.b.convert(Prim::F16, e.j)});
  same_on_both_tiers(step(StepKind::SegMap, 1, 300, e.f, {}, {0}),
                     [] { return std::vector<BufferPtr>{std::make_shared<Buffer>(Prim::F16, 300)}; }, Expect::Interpreted);
}

TEST_CASE("native tier: private arrays past the worker's stack come from a per-thread heap block") {
  // 512 KiB per element (a row-wise map's intermediates, kernel_ir.hpp's
  // kMaxSegMapPrivateBytes): filled, then read backwards; two arrays, so
  // that their offsets in the block matter.
  const int64_t rows = 5, count = 65536;
  ElemBuilder e;
  kir::Builder& b = e.b;
  int big = b.local_array(Prim::F64, count, "big");
  int small = b.local_array(Prim::I32, 3, "small");
  b.for_(b.i64(count), {}, [&](Reg i, const std::vector<Reg>&) {
    b.local_write(big, i, b.convert(Prim::F64, b.binary(BinOp::Add, i, e.s)));
    return std::vector<Reg>{};
  });
  b.local_write(small, b.i64(2), b.i32(7));
  auto sum = b.for_(b.i64(count), {b.constant(Scalar::floating(Prim::F64, 0))}, [&](Reg i, const std::vector<Reg>& v) {
    Reg back = b.binary(BinOp::Sub, b.i64(count - 1), i);
    return std::vector<Reg>{b.binary(BinOp::Add, b.binary(BinOp::Mul, v[0], b.constant(Scalar::floating(Prim::F64, 0.5))),
                                     b.local_read(big, back))};
  });
  b.ret({sum[0], b.local_read(small, b.i64(2))});
  plan::Step s = step(StepKind::SegMap, rows, 1, e.f, {}, {0, 1});
  same_on_both_tiers(s, [&] {
    return std::vector<BufferPtr>{std::make_shared<Buffer>(Prim::F64, rows), std::make_shared<Buffer>(Prim::I32, rows)};
  });
}

TEST_CASE("native tier: a cold step that runs long asks for its native code while it runs") {
  if (!native::toolchain().ok) return;
  native::Mode saved = native::mode();
  native::set_mode(native::Mode::Tiered);
  // Two elements (cold: few, first run), each a loop of seconds on the
  // interpreter. A structure no other test compiles.
  ElemBuilder e;
  kir::Builder& b = e.b;
  auto r = b.for_(b.i64(40'000'000), {b.binary(BinOp::Add, e.s, b.i64(3))}, [&](Reg i, const std::vector<Reg>& v) {
    return std::vector<Reg>{b.binary(BinOp::Xor, b.binary(BinOp::Mul, v[0], b.i64(6364136223846793005)), i)};
  });
  b.ret({r[0]});
  plan::Step s = step(StepKind::SegMap, 2, 1, e.f, {}, {0});
  native::Stats before = native::stats();
  std::vector<BufferPtr> bufs = {std::make_shared<Buffer>(Prim::I64, 2)};
  host::execute_step(s, bufs);
  native::wait_idle();
  native::Stats after = native::stats();
  CHECK(after.compiled + after.from_disk > before.compiled + before.from_disk);
  native::set_mode(saved);
}

TEST_CASE("native tier: tiered mode runs the interpreter until the compiled kernel is ready") {
  if (!native::toolchain().ok) return;
  native::Mode saved = native::mode();
  native::set_mode(native::Mode::Tiered);
  // A structure no other test compiles (the disk cache may still know it).
  ElemBuilder e;
  Reg x = e.b.convert(Prim::F32, e.j);
  e.b.ret({e.b.unary(UnOp::Atanh, e.b.binary(BinOp::Div, x, e.b.constant(Scalar::floating(Prim::F32, 1e5))))});
  plan::Step s = step(StepKind::SegMap, 1, 1000, e.f, {}, {0});
  std::vector<uint8_t> first;
  for (int run = 0; run < 4; ++run) {
    std::vector<BufferPtr> bufs = {std::make_shared<Buffer>(Prim::F32, 1000)};
    const native::Entries* before = nullptr;
    if (run == 0) {
      // Cold and small: the first run is interpreted and queues nothing.
      host::execute_step(s, bufs);
      first = bytes(bufs[0]);
      continue;
    }
    if (run == 2) native::wait_idle();  // the second run queued the compilation
    host::execute_step(s, bufs);
    CHECK(bytes(bufs[0]) == first);
    if (run == 3) {
      before = native::lookup(s);
      CHECK(before != nullptr);
    }
  }
  native::set_mode(saved);
}

TEST_CASE("native tier: Ctrl-C stops a long loop inside native code") {
  if (!native::toolchain().ok) return;
  native::Mode saved = native::mode();
  native::set_mode(native::Mode::Sync);
  // Each element counts to 4e9 (minutes); the flag is set after 200 ms.
  ElemBuilder e;
  auto n = e.b.while_({e.j}, [&](const std::vector<Reg>& v) { return e.b.compare(CmpOp::Lt, v[0], e.b.i64(4000000000)); },
                      [&](const std::vector<Reg>& v) { return std::vector<Reg>{e.b.binary(BinOp::Add, v[0], e.b.i64(1))}; });
  e.b.ret({n[0]});
  plan::Step s = step(StepKind::SegMap, 1, 64, e.f, {}, {0});
  REQUIRE(native::lookup(s) != nullptr);  // compiled now, not during the timed run
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    request_cancel();
  });
  auto t0 = std::chrono::steady_clock::now();
  std::vector<BufferPtr> bufs = {std::make_shared<Buffer>(Prim::I64, 64)};
  CHECK_THROWS_AS(host::execute_step(s, bufs), Interrupted);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ctrl_c.join();
  clear_cancel();
  CHECK(took < 5.0);
  native::set_mode(saved);
}

TEST_CASE("native tier: the corner check of affine reads is sound") {
  // Whenever AffineBounds::ok accepts a range, every element's index in it
  // is in bounds (brute force); within one segment it is also exact.
  std::mt19937 rng(5);
  std::uniform_int_distribution<int64_t> coef(-3, 12), size(1, 9), len(1, 40);
  for (int round = 0; round < 3000; ++round) {
    native::AffineBounds b;
    b.segment_size = size(rng);
    b.counts = {len(rng) * 3};
    host::Affine f;
    f.cs = coef(rng);
    f.cj = coef(rng);
    f.c0 = coef(rng) - 4;
    b.reads.push_back({0, f});
    int64_t total = 6 * b.segment_size;
    int64_t begin = std::uniform_int_distribution<int64_t>(0, total - 1)(rng);
    int64_t end = std::uniform_int_distribution<int64_t>(begin + 1, total)(rng);
    bool all_in = true;
    for (int64_t i = begin; i < end; ++i) {
      int64_t s = i / b.segment_size, j = i % b.segment_size, idx = f.cs * s + f.cj * j + f.c0;
      all_in &= idx >= 0 && idx < b.counts[0];
    }
    bool ok = b.ok(begin, end);
    INFO("round " << round);
    if (ok) REQUIRE(all_in);
    if (begin / b.segment_size == (end - 1) / b.segment_size) REQUIRE(ok == all_in);
  }
}

TEST_CASE("native tier: every constant is lifted out of the source, beyond the GPU's 128") {
  // x + c_0 + ... + c_199 with the constants offset by `base`: the source
  // must not depend on their values (a captured scalar that changes between
  // calls would otherwise compile a new kernel per call), and both tiers agree.
  const int64_t n = 300;
  auto make_step = [&](double base) {
    ElemBuilder e;
    kir::Builder& b = e.b;
    Reg acc = e.input(Prim::F64, "xs");
    for (int k = 0; k < 200; ++k)
      acc = b.binary(BinOp::Add, acc, b.constant(Scalar::floating(Prim::F64, base + 0.25 * k)));
    b.ret({acc});
    return step(StepKind::SegMap, 1, n, e.f, {0}, {1});
  };
  plan::Step a = make_step(2.0), c = make_step(3.5);
  CHECK(native::generate(a).text == native::generate(c).text);
  CHECK(native::lifted_constant_bits(a).size() == 200);
  CHECK(native::lifted_constant_bits(a) != native::lifted_constant_bits(c));
  auto xs = awkward_doubles(n, 7);
  for (const plan::Step* s : {&a, &c})
    same_on_both_tiers(*s, [&] { return std::vector<BufferPtr>{buffer(Prim::F64, xs), std::make_shared<Buffer>(Prim::F64, n)}; });
}

TEST_CASE("native tier: integer divisors stay in the source, and each one gets its own kernel") {
  // x / d + x % d + x * d: d is a shape in real kernels (index arithmetic),
  // compiled as a constant so that the C++ compiler turns the division
  // into a multiplication. Kernels differing only in d are different
  // kernels (the registry's key has d), and the multiplication's d is
  // still lifted.
  const int64_t n = 500;
  auto make_step = [&](int64_t d) {
    ElemBuilder e;
    kir::Builder& b = e.b;
    Reg x = e.input(Prim::I64, "xs");
    Reg q = b.binary(BinOp::Quot, x, b.constant(Scalar::i64(d)));
    Reg r = b.binary(BinOp::Rem, x, b.constant(Scalar::i64(d)));
    Reg m = b.binary(BinOp::Mul, x, b.constant(Scalar::i64(d)));
    b.ret({b.binary(BinOp::Add, b.binary(BinOp::Add, q, r), m)});
    return step(StepKind::SegMap, 1, n, e.f, {0}, {1});
  };
  plan::Step a = make_step(3), c = make_step(7);
  CHECK(native::generate(a).text != native::generate(c).text);
  CHECK(native::lifted_constant_bits(a).size() == 1);
  std::vector<int64_t> xs(n);
  for (int64_t k = 0; k < n; ++k) xs[size_t(k)] = k * 37 - 9000;
  for (const plan::Step* s : {&a, &c})
    same_on_both_tiers(*s, [&] { return std::vector<BufferPtr>{buffer(Prim::I64, xs), std::make_shared<Buffer>(Prim::I64, n)}; });
}

TEST_CASE("native tier: subroutines (several call sites, nested, in loops and branches, private arrays)") {
  const int64_t rows = 9, cols = 301;
  ElemBuilder e;
  kir::Builder& b = e.b;
  auto f64c = [&](double v) { return b.constant(Scalar::floating(Prim::F64, v)); };
  // s0: (x, y) -> (x*y + sin x, x - y / 3): a tuple result.
  int s0 = b.subroutine("poly", {Prim::F64, Prim::F64}, [&](const std::vector<Reg>& p) {
    Reg a = b.binary(BinOp::Add, b.binary(BinOp::Mul, p[0], p[1]), b.unary(UnOp::Sin, p[0]));
    Reg c = b.binary(BinOp::Sub, p[0], b.binary(BinOp::Div, p[1], f64c(3.0)));
    return std::vector<Reg>{a, c};
  });
  // s1: a loop over a private array that calls s0 in the loop and in a branch.
  int s1 = b.subroutine("walk", {Prim::F64, Prim::I64}, [&](const std::vector<Reg>& p) {
    int loc = b.local_array(Prim::F64, 8, "acc");
    b.for_(b.i64(8), {}, [&](Reg i, const std::vector<Reg>&) {
      auto r = b.call(s0, {p[0], b.convert(Prim::F64, i)});
      b.local_write(loc, i, r[0]);
      return std::vector<Reg>{};
    });
    auto sum = b.for_(p[1], {f64c(0.25)}, [&](Reg i, const std::vector<Reg>& v) {
      Reg x = b.local_read(loc, b.binary(BinOp::Rem, i, b.i64(8)));
      auto picked = b.if_(b.compare(CmpOp::Lt, x, f64c(1.5)),
                          [&] { return std::vector<Reg>{b.call(s0, {x, v[0]})[1]}; },
                          [&] { return std::vector<Reg>{b.binary(BinOp::Mul, x, f64c(0.5))}; });
      return std::vector<Reg>{b.binary(BinOp::Add, v[0], picked[0])};
    });
    return std::vector<Reg>{sum[0], b.local_read(loc, b.i64(7))};
  });
  // s2: fails its Check for some elements (the interpreter reports it).
  int s2 = b.subroutine("checked", {Prim::I64}, [&](const std::vector<Reg>& p) {
    b.check(b.compare(CmpOp::Ne, p[0], b.i64(-1)), "bad element");
    return std::vector<Reg>{b.binary(BinOp::Mul, p[0], b.i64(3))};
  });
  Reg x = b.binary(BinOp::Div, b.convert(Prim::F64, e.j), f64c(37.0));
  auto w1 = b.call(s1, {x, b.binary(BinOp::Rem, e.j, b.i64(13))});
  auto w2 = b.call(s1, {w1[1], e.s});
  auto t = b.call(s0, {w1[0], w2[0]});
  auto k = b.call(s2, {b.binary(BinOp::Sub, e.j, e.s)});
  b.ret({t[0], t[1], w2[1], k[0]});
  REQUIRE(kir::verify(e.f) == "");
  auto make = [&] {
    return std::vector<BufferPtr>{std::make_shared<Buffer>(Prim::F64, rows * cols),
                                  std::make_shared<Buffer>(Prim::F64, rows * cols),
                                  std::make_shared<Buffer>(Prim::F64, rows * cols),
                                  std::make_shared<Buffer>(Prim::I64, rows * cols)};
  };
  // One row: j - s >= 0, every element succeeds.
  same_on_both_tiers(step(StepKind::SegMap, 1, cols, e.f, {}, {0, 1, 2, 3}), make);
  // j - s == -1 at (1, 0): the subroutine's Check fails on both tiers.
  same_on_both_tiers(step(StepKind::SegMap, rows, cols, e.f, {}, {0, 1, 2, 3}), make, Expect::Native,
                     "runtime error: bad element");
}
