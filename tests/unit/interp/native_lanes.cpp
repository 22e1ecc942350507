// The native tier's masked While loops and lane loops (interp/exec/native/
// native_uniform.hpp) against the interpreter, bit for bit: lanes that run
// a While to different trip counts, lanes that are done while others go
// on (their condition and body still computed, never kept), partial last
// blocks, and the loops that must stay as they were (effects in a masked
// body, iterations that depend on each other).
#include <doctest/doctest.h>

#include <cmath>

#include "flatten_test_util.hpp"
#include "interp/exec/native/native_source.hpp"
#include "native_test_util.hpp"

using namespace thorn;
using namespace thorn::nativetest;
using kir::BinOp;
using kir::CmpOp;
using kir::Reg;
using kir::UnOp;
using plan::StepKind;
using testutil::buffer;
using testutil::step;

namespace {

Reg f64c(kir::Builder& b, double v) { return b.constant(Scalar::floating(Prim::F64, v)); }

// Mandelbrot's escape loop for c = (cr, ci), at most `limit` iterations,
// with more carried values than it needs: a counter that wraps (i64), a
// bool flipped each iteration, a pair swapped each iteration, and an
// integer division whose divisor is 0 exactly when the lane is done (a
// lane that is done still computes its body: it must not trap).
std::vector<Reg> escape(kir::Builder& b, Reg cr, Reg ci, Reg limit, Reg seed) {
  return b.while_(
      {f64c(b, 0), f64c(b, 0), b.i32(0), seed, b.constant(Scalar::boolean(false)), seed, b.i64(7)},
      [&](const std::vector<Reg>& v) {
        Reg mag = b.binary(BinOp::Add, b.binary(BinOp::Mul, v[0], v[0]), b.binary(BinOp::Mul, v[1], v[1]));
        // `&&` as the lowering writes it (a Select on bools).
        return b.select(b.compare(CmpOp::Lt, v[2], limit), b.compare(CmpOp::Lt, mag, f64c(b, 4.0)),
                        b.constant(Scalar::boolean(false)));
      },
      [&](const std::vector<Reg>& v) {
        Reg zr = b.binary(BinOp::Add, b.binary(BinOp::Sub, b.binary(BinOp::Mul, v[0], v[0]),
                                               b.binary(BinOp::Mul, v[1], v[1])), cr);
        Reg zi = b.binary(BinOp::Add, b.binary(BinOp::Mul, f64c(b, 2.0), b.binary(BinOp::Mul, v[0], v[1])), ci);
        Reg it = b.binary(BinOp::Add, v[2], b.i32(1));
        Reg wrap = b.binary(BinOp::Add, b.binary(BinOp::Mul, v[3], b.i64(6364136223846793005LL)), b.i64(1442695040888963407LL));
        Reg left = b.binary(BinOp::Sub, limit, it);  // 0 on the last iteration
        Reg q = b.binary(BinOp::Div, b.i64(1000), b.convert(Prim::I64, left));
        Reg flip = b.binary(BinOp::LogOr, b.unary(UnOp::Not, v[4]), b.compare(CmpOp::Gt, q, b.i64(5000)));
        return std::vector<Reg>{zr, zi, it, wrap, flip, b.binary(BinOp::Add, v[6], q), v[5]};
      });
}

bool has(const plan::Step& s, const char* what) { return native::generate(s).text.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("native lanes: a While whose condition varies runs masked in the block form") {
  // One pixel per element, its escape loop masked across the block's lanes;
  // c from awkward doubles (NaN and infinities escape at once, others run to
  // the limit), so lanes of one block finish at very different iterations.
  auto xs = awkward_doubles(500, 7);
  for (double& x : xs)
    if (std::isfinite(x)) x = x / 8.0;
  for (int64_t cols : {int64_t(1), int64_t(31), int64_t(77)}) {
    ElemBuilder e;
    kir::Builder& b = e.b;
    Reg cr = e.input(Prim::F64, "xs");
    Reg ci = b.binary(BinOp::Sub, b.binary(BinOp::Div, b.convert(Prim::F64, e.s), f64c(b, 2.0)), f64c(b, 1.0));
    auto esc = escape(b, cr, ci, b.i32(90), e.j);
    // A second masked loop after the first, on its results.
    auto halve = b.while_({esc[2], b.i64(0)}, [&](const std::vector<Reg>& v) { return b.compare(CmpOp::Gt, v[0], b.i32(0)); },
                          [&](const std::vector<Reg>& v) {
                            return std::vector<Reg>{b.binary(BinOp::Div, v[0], b.i32(2)), b.binary(BinOp::Add, v[1], b.i64(1))};
                          });
    b.ret({esc[0], esc[1], esc[2], esc[3], esc[4], esc[5], esc[6], halve[1]});
    const int64_t rows = 5;
    plan::Step s = step(StepKind::SegMap, rows, cols, e.f, {0}, {1, 2, 3, 4, 5, 6, 7, 8});
    INFO("cols " << cols);
    CHECK(has(s, "thorn_for_blocks(begin"));
    CHECK(has(s, "masked while"));
    std::vector<double> in(xs.begin(), xs.begin() + cols);
    same_on_both_tiers(s, [&] {
      const int64_t n = rows * cols;
      return std::vector<BufferPtr>{buffer(Prim::F64, in), std::make_shared<Buffer>(Prim::F64, n),
                                    std::make_shared<Buffer>(Prim::F64, n), std::make_shared<Buffer>(Prim::I32, n),
                                    std::make_shared<Buffer>(Prim::I64, n), std::make_shared<Buffer>(Prim::Bool, n),
                                    std::make_shared<Buffer>(Prim::I64, n), std::make_shared<Buffer>(Prim::I64, n),
                                    std::make_shared<Buffer>(Prim::I64, n)};
    });
  }
}

TEST_CASE("native lanes: a row's For runs its iterations as lanes (Mandelbrot's row plan)") {
  // As the flattener plans `map (\i -> map (\j -> escape ...) (iota n))`:
  // one element per row; a subroutine fills a private row with a For over
  // the columns, an escape loop per column (the lane loop), and the element
  // writes the row out. Row lengths around the lane count, and a Check in
  // the lane loop that fails for one row only.
  for (int64_t m : {int64_t(0), int64_t(1), int64_t(45), int64_t(64)}) {
    const int64_t rows = 6;
    kir::Function f;
    kir::Builder b(f);
    Reg s = b.param(Prim::I64);
    b.param(Prim::I64);
    int xs = b.free_array(Prim::F64, "xs");
    int out = b.free_array(Prim::I32, "out");
    int row = b.local_array(Prim::I32, std::max<int64_t>(m, 1), "row");
    int fill = b.subroutine("fill", {Prim::I64}, [&](const std::vector<Reg>& p) {
      Reg ci = b.binary(BinOp::Sub, b.binary(BinOp::Div, b.convert(Prim::F64, p[0]), f64c(b, 3.0)), f64c(b, 1.0));
      b.for_(b.i64(m), {}, [&](Reg c, const std::vector<Reg>&) {
        Reg cr = b.read(xs, c);
        b.check(b.compare(CmpOp::Ne, b.binary(BinOp::Add, p[0], c), b.i64(4 + 44)), "bad pixel");
        auto esc = escape(b, cr, ci, b.i32(70), c);
        b.local_write(row, c, b.binary(BinOp::Add, esc[2], b.convert(Prim::I32, esc[4])));
        return std::vector<Reg>{};
      });
      return std::vector<Reg>{};
    });
    b.call(fill, {s});
    b.for_(b.i64(m), {}, [&](Reg c, const std::vector<Reg>&) {
      b.write(out, b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(m)), c), b.local_read(row, c));
      return std::vector<Reg>{};
    });
    b.ret({});
    REQUIRE(kir::verify(f) == "");
    plan::Step st = step(StepKind::SegMap, rows, 1, f, {0, 1}, {});
    INFO("m " << m);
    CHECK(has(st, "lane loop"));
    CHECK(has(st, "masked while"));
    auto xsv = awkward_doubles(size_t(std::max<int64_t>(m, 1)), 11);
    for (double& x : xsv)
      if (std::isfinite(x)) x = x / 6.0;
    same_on_both_tiers(st, [&] {
      return std::vector<BufferPtr>{buffer(Prim::F64, xsv), std::make_shared<Buffer>(Prim::I32, rows * m)};
    }, Expect::Native, m > 44 ? "runtime error: bad pixel" : "");
  }
}

TEST_CASE("native lanes: loops whose lanes would not be independent stay as they were") {
  // Each a For over the columns with an escape loop in it that must not run
  // as lanes (a private array written elsewhere than at the counter, or read
  // in the loop, a store to a free array, a Check in the escape loop's
  // body), with a varying If to keep the element out of the block form.
  const int64_t m = 37, rows = 4;
  for (int variant = 0; variant < 4; ++variant) {
    kir::Function f;
    kir::Builder b(f);
    Reg s = b.param(Prim::I64);
    b.param(Prim::I64);
    int xs = b.free_array(Prim::F64, "xs");
    int out = b.free_array(Prim::I64, "out");
    int row = b.local_array(Prim::I64, m, "row");
    Reg ci = b.binary(BinOp::Div, b.convert(Prim::F64, s), f64c(b, 4.0));
    b.for_(b.i64(m), {}, [&](Reg c, const std::vector<Reg>&) {
      b.local_write(row, c, b.binary(BinOp::Mul, c, b.i64(10)));
      return std::vector<Reg>{};
    });
    b.for_(b.i64(m), {}, [&](Reg c, const std::vector<Reg>&) {
      Reg cr = b.read(xs, c);
      Reg limit = b.i32(50);
      std::vector<Reg> esc;
      if (variant == 3) {
        esc = b.while_({f64c(b, 0), b.i32(0)},
                       [&](const std::vector<Reg>& v) {
                         return b.select(b.compare(CmpOp::Lt, v[1], limit),
                                         b.compare(CmpOp::Lt, b.binary(BinOp::Mul, v[0], v[0]), f64c(b, 4.0)),
                                         b.constant(Scalar::boolean(false)));
                       },
                       [&](const std::vector<Reg>& v) {
                         b.check(b.compare(CmpOp::Lt, v[1], b.i32(1000)), "runaway");
                         return std::vector<Reg>{b.binary(BinOp::Add, b.binary(BinOp::Mul, v[0], v[0]), cr),
                                                 b.binary(BinOp::Add, v[1], b.i32(1))};
                       });
        esc.insert(esc.begin(), esc[0]);
      } else {
        esc = escape(b, cr, ci, limit, c);
      }
      Reg it = b.convert(Prim::I64, esc[2]);
      if (variant == 0) b.local_write(row, b.binary(BinOp::Sub, b.i64(m - 1), c), it);
      if (variant == 1) {  // the previous column's new value (the last column's initial one)
        Reg prev = b.local_read(row, b.binary(BinOp::Rem, b.binary(BinOp::Add, c, b.i64(m - 1)), b.i64(m)));
        b.local_write(row, c, b.binary(BinOp::Add, it, prev));
      }
      if (variant == 2) b.write(out, b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(m)), c), it);
      if (variant == 3) b.local_write(row, c, it);
      return std::vector<Reg>{};
    });
    auto pick = b.if_(b.compare(CmpOp::Eq, b.binary(BinOp::Rem, s, b.i64(2)), b.i64(0)),
                      [&] { return std::vector<Reg>{b.local_read(row, b.i64(3))}; },
                      [&] { return std::vector<Reg>{b.local_read(row, b.i64(m - 2))}; });
    if (variant != 2)
      b.for_(b.i64(m), {}, [&](Reg c, const std::vector<Reg>&) {
        b.write(out, b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(m)), c), b.local_read(row, c));
        return std::vector<Reg>{};
      });
    b.ret({pick[0]});
    REQUIRE(kir::verify(f) == "");
    plan::Step st = step(StepKind::SegMap, rows, 1, f, {0, 1}, {2});
    INFO("variant " << variant);
    CHECK(!has(st, "lane loop"));
    auto xsv = awkward_doubles(size_t(m), 5);
    for (double& x : xsv)
      if (std::isfinite(x)) x = x / 6.0;
    same_on_both_tiers(st, [&] {
      return std::vector<BufferPtr>{buffer(Prim::F64, xsv), std::make_shared<Buffer>(Prim::I64, rows * m),
                                    std::make_shared<Buffer>(Prim::I64, rows)};
    });
  }
}

namespace {

// (acc, x) -> acc OP x per value of a tuple, or x OP acc with `swapped`;
// `slow`: an identity operation after each (the same values, untyped).
kir::Function tuple_op(const std::vector<Prim>& types, const std::vector<BinOp>& ops, bool swapped, bool slow) {
  kir::Function f;
  kir::Builder b(f);
  std::vector<Reg> acc, x, out;
  for (Prim t : types) acc.push_back(b.param(t));
  for (Prim t : types) x.push_back(b.param(t));
  for (size_t r = 0; r < types.size(); ++r)
    out.push_back(swapped ? b.binary(ops[r], x[r], acc[r]) : b.binary(ops[r], acc[r], x[r]));
  if (slow)  // (acc OP x) * 1 or + 0: not a typed operator
    for (size_t r = 0; r < types.size(); ++r)
      out[r] = is_float(types[r]) ? b.binary(BinOp::Mul, out[r], b.constant(Scalar::floating(types[r], 1.0)))
                                  : b.binary(BinOp::Add, out[r], b.constant(Scalar::signed_int(types[r], 0)));
  b.ret(out);
  return f;
}

}  // namespace

TEST_CASE("native lanes: SegRed's fold (element and operator per lane in one loop) agrees") {
  // n-body's shape: per segment i, a sum over j of a tuple computed from
  // xs[i] and xs[j], with sqrt and a division; plus an i32 product (wraps)
  // and an f32 sum. Awkward inputs (NaN, infinities) reach the sums; a
  // Check fails for one element of one segment in the last run.
  auto xs = awkward_doubles(3000, 17);
  for (int variant = 0; variant < 4; ++variant) {
    for (auto [segs, size] : {std::pair<int64_t, int64_t>{40, 600}, {3, 2900}, {1, 300}, {2000, 1}}) {
      ElemBuilder e;
      kir::Builder& b = e.b;
      int xa = b.free_array(Prim::F64, "xs");
      Reg xi = b.read(xa, e.s), xj = b.read(xa, e.j);
      Reg d = b.binary(BinOp::Sub, xj, xi);
      Reg r2 = b.binary(BinOp::Add, b.binary(BinOp::Mul, d, d), f64c(b, 1e-9));
      Reg sc = b.binary(BinOp::Div, xj, b.binary(BinOp::Mul, r2, b.unary(UnOp::Sqrt, r2)));
      if (variant == 3) b.check(b.compare(CmpOp::Ne, b.binary(BinOp::Add, b.binary(BinOp::Mul, e.s, b.i64(7)), e.j), b.i64(251)), "bad pair");
      Reg prod = b.binary(BinOp::Add, b.convert(Prim::I32, b.binary(BinOp::Rem, e.j, b.i64(9))), b.i32(1));
      b.ret({b.binary(BinOp::Mul, d, sc), b.convert(Prim::F32, sc), prod});
      plan::Step st = step(StepKind::SegRed, segs, size, e.f, {0}, {1, 2, 3});
      // 0, 3: typed, acc first (folded natively); 1: x first (the typed loops
      // compute acc OP x: not folded); 2: declared commutative, not typed.
      st.op = tuple_op({Prim::F64, Prim::F32, Prim::I32}, {BinOp::Add, BinOp::Add, BinOp::Mul}, variant == 1,
                       variant == 2);
      st.neutral = {Scalar::floating(Prim::F64, 0.0), Scalar::floating(Prim::F32, 0.0), Scalar::i32(1)};
      st.commutative = true;
      INFO("variant " << variant << " shape [" << segs << "][" << size << "]");
      CHECK(has(st, "thorn_fold") == (variant != 1));
      std::vector<double> in(xs.begin(), xs.begin() + std::max(segs, size));
      bool fails = false;
      for (int64_t i = 0; i < segs; ++i) fails |= variant == 3 && 251 - 7 * i >= 0 && 251 - 7 * i < size;
      same_on_both_tiers(st, [&] {
        return std::vector<BufferPtr>{buffer(Prim::F64, in), std::make_shared<Buffer>(Prim::F64, segs),
                                      std::make_shared<Buffer>(Prim::F32, segs), std::make_shared<Buffer>(Prim::I32, segs)};
      }, Expect::Native, fails ? "runtime error: bad pair" : "");
    }
  }
}
