// The host executor's batched interpreter: Futhark semantics of every
// operation class, and control flow on lane subsets.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "flatten_test_util.hpp"
#include "interp/util/error.hpp"

using namespace thorn;
using kir::BinOp;
using kir::CmpOp;
using kir::Reg;
using kir::UnOp;
using testutil::run_lanes;

namespace {

std::vector<std::vector<Scalar>> pairs_i32(const std::vector<std::pair<int32_t, int32_t>>& v) {
  std::vector<std::vector<Scalar>> rows;
  for (auto [a, b] : v) rows.push_back({Scalar::i32(a), Scalar::i32(b)});
  return rows;
}

kir::Function div_family(Prim t) {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(t), y = b.param(t);
  b.ret({b.binary(BinOp::Div, x, y), b.binary(BinOp::Mod, x, y), b.binary(BinOp::Quot, x, y),
         b.binary(BinOp::Rem, x, y)});
  return f;
}

}  // namespace

TEST_CASE("host: signed division rounds toward negative infinity, // and %% truncate") {
  auto out = run_lanes(div_family(Prim::I32), pairs_i32({{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {6, 3}}));
  std::vector<std::vector<int64_t>> expect = {
      {3, 1, 3, 1}, {-4, 1, -3, -1}, {-4, -1, -3, 1}, {3, -1, 3, -1}, {2, 0, 2, 0}};
  for (size_t l = 0; l < expect.size(); ++l)
    for (size_t r = 0; r < 4; ++r) CHECK_MESSAGE(out[l][r].i == expect[l][r], "lane " << l << " result " << r);
  // INT_MIN / -1 wraps instead of trapping.
  auto wrap = run_lanes(div_family(Prim::I32), pairs_i32({{std::numeric_limits<int32_t>::min(), -1}}));
  CHECK(wrap[0][0].i == std::numeric_limits<int32_t>::min());
  CHECK(wrap[0][1].i == 0);
}

TEST_CASE("host: unsigned and small integer arithmetic wraps") {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::U8), y = b.param(Prim::U8);
  Reg p = b.param(Prim::I16), q = b.param(Prim::I16);
  b.ret({b.binary(BinOp::Add, x, y), b.binary(BinOp::Sub, x, y), b.binary(BinOp::Mul, p, q),
         b.binary(BinOp::Div, x, y)});
  auto out = run_lanes(f, {{Scalar::unsigned_int(Prim::U8, 200), Scalar::unsigned_int(Prim::U8, 100),
                            Scalar::signed_int(Prim::I16, 300), Scalar::signed_int(Prim::I16, 300)}});
  CHECK(out[0][0].u == 44);
  CHECK(out[0][1].u == 100);
  CHECK(out[0][2].i == int16_t(90000 - 65536 * 1));  // 90000 mod 2^16 as i16
  CHECK(out[0][3].u == 2);
}

TEST_CASE("host: shifts, pow, bit counts") {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::I32), y = b.param(Prim::I32);
  b.ret({b.binary(BinOp::Shl, x, y), b.binary(BinOp::Shr, x, y), b.binary(BinOp::LShr, x, y),
         b.binary(BinOp::Pow, x, y), b.unary(UnOp::Popc, x), b.unary(UnOp::Clz, x),
         b.unary(UnOp::Ctz, x)});
  auto out = run_lanes(f, pairs_i32({{-8, 1}, {1, 40}, {-1, 40}, {3, 4}, {0, 0}}));
  CHECK(out[0][0].i == -16);
  CHECK(out[0][1].i == -4);
  CHECK(out[0][2].i == int32_t(0x7ffffffc));
  CHECK(out[1][0].i == 0);   // shifted out
  CHECK(out[2][1].i == -1);  // arithmetic shift keeps the sign
  CHECK(out[2][2].i == 0);
  CHECK(out[3][3].i == 81);
  CHECK(out[4][3].i == 1);  // 0 ** 0
  CHECK(out[0][4].i == 29);  // popc(-8) = 32 - 3
  CHECK(out[3][5].i == 30);  // clz(3)
  CHECK(out[4][5].i == 32);
  CHECK(out[4][6].i == 32);
  CHECK(out[0][6].i == 3);
}

TEST_CASE("host: float operations follow IEEE and Futhark's min/max/mod") {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::F64), y = b.param(Prim::F64);
  b.ret({b.binary(BinOp::Min, x, y), b.binary(BinOp::Max, x, y), b.binary(BinOp::Mod, x, y),
         b.unary(UnOp::IsNan, x), b.unary(UnOp::Round, x), b.unary(UnOp::Signum, x)});
  double nan = std::nan("");
  auto out = run_lanes(f, {{Scalar::floating(Prim::F64, nan), Scalar::floating(Prim::F64, 2.0)},
                           {Scalar::floating(Prim::F64, -7.5), Scalar::floating(Prim::F64, 2.0)},
                           {Scalar::floating(Prim::F64, 2.5), Scalar::floating(Prim::F64, -2.0)}});
  CHECK(out[0][0].f == 2.0);  // NaN is ignored by min/max
  CHECK(out[0][1].f == 2.0);
  CHECK(out[0][3].b);
  CHECK(out[1][2].f == -1.5);  // float % is C's fmod, as in Futhark's compiled code
  CHECK(out[2][2].f == 0.5);
  CHECK(out[2][4].f == 2.0);   // round half to even
  CHECK(out[1][5].f == -1.0);
  CHECK(!out[1][3].b);
}

// The reference's conversion (eval::scalar_convert) is Scalar::convert_to:
// NaN and the infinities give integer 0, finite values beyond i64 saturate.
static Scalar reference_convert(const Scalar& v, Prim to) { return v.convert_to(to); }

TEST_CASE("host: conversions agree with the reference's") {
  std::vector<Prim> prims = {Prim::Bool, Prim::I8, Prim::I16, Prim::I32, Prim::I64, Prim::U8,
                             Prim::U16, Prim::U32, Prim::U64, Prim::F16, Prim::F32, Prim::F64};
  std::vector<Scalar> samples = {
      Scalar::floating(Prim::F64, -3.7),  Scalar::floating(Prim::F64, 1e20),
      Scalar::floating(Prim::F64, std::nan("")), Scalar::floating(Prim::F64, 0.1),
      Scalar::i32(300),  Scalar::i32(-1), Scalar::signed_int(Prim::I8, -128),
      Scalar::unsigned_int(Prim::U32, 4294967295u), Scalar::boolean(true),
      Scalar::floating(Prim::F32, 65519.0), Scalar::i64(std::numeric_limits<int64_t>::min()),
      Scalar::floating(Prim::F64, -INFINITY), Scalar::floating(Prim::F32, -1e30),
      Scalar::floating(Prim::F32, INFINITY)};
  for (const Scalar& v : samples) {
    for (Prim to : prims) {
      kir::Function f;
      kir::Builder b(f);
      Reg x = b.param(v.type);
      b.ret({b.convert(to, x)});
      auto out = run_lanes(f, {{v}});
      Scalar expect = reference_convert(v, to);
      bool same = is_float(to) && std::isnan(expect.f) ? std::isnan(out[0][0].f) : out[0][0] == expect;
      CHECK_MESSAGE(same, format_scalar(v) << " to " << prim_name(to) << ": got "
                                           << format_scalar(out[0][0]) << ", expected "
                                           << format_scalar(expect));
    }
  }
}

TEST_CASE("host: f16 arithmetic rounds every result") {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::F16), y = b.param(Prim::F16);
  b.ret({b.binary(BinOp::Add, x, y), b.binary(BinOp::Div, x, y)});
  auto out = run_lanes(f, {{Scalar::floating(Prim::F16, 1.0), Scalar::floating(Prim::F16, 3.0)}});
  CHECK(out[0][0].f == 4.0);
  CHECK(out[0][1].f == round_to_f16(1.0 / 3.0));
  CHECK(out[0][1].f != 1.0 / 3.0);
}

TEST_CASE("host: Check fails with its message and location") {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::I32), y = b.param(Prim::I32);
  b.check(b.compare(CmpOp::Ne, y, b.i32(0)), "division by zero");
  b.ret({b.binary(BinOp::Div, x, y)});
  CHECK(run_lanes(f, pairs_i32({{1, 1}, {4, 2}}))[1][0].i == 2);
  try {
    run_lanes(f, pairs_i32({{1, 1}, {4, 0}, {3, 3}}));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind == ErrorKind::Runtime);
    CHECK(e.message == "division by zero");
  }
}

TEST_CASE("host: if runs each branch on its own lanes, and untaken branches do not fail") {
  // if x > 0 then 100 / x else (check false in a loop that never runs; -x)
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::I32);
  auto r = b.if_(
      b.compare(CmpOp::Gt, x, b.i32(0)),
      [&] {
        b.check(b.compare(CmpOp::Gt, x, b.i32(0)), "then-branch ran on a lane with x <= 0");
        return std::vector<Reg>{b.binary(BinOp::Div, b.i32(100), x)};
      },
      [&] {
        auto inner = b.if_(b.compare(CmpOp::Eq, x, b.i32(0)), [&] { return std::vector<Reg>{b.i32(-1)}; },
                           [&] { return std::vector<Reg>{b.unary(UnOp::Neg, x)}; });
        return inner;
      });
  b.ret(r);
  std::vector<std::vector<Scalar>> rows;
  for (int v = -300; v <= 300; ++v) rows.push_back({Scalar::i32(v)});
  rows.resize(host::kLanes);  // one full batch
  auto out = run_lanes(f, rows);
  for (size_t l = 0; l < rows.size(); ++l) {
    int32_t v = int32_t(rows[l][0].i);
    int32_t expect = v > 0 ? 100 / v : v == 0 ? -1 : -v;
    REQUIRE(out[l][0].i == expect);
  }
}

TEST_CASE("host: for loops with per-lane trip counts, while loops with per-lane exits") {
  // sum of 0..n-1 (for), and Collatz steps of n (while).
  kir::Function f;
  kir::Builder b(f);
  Reg n = b.param(Prim::I64);
  auto sum = b.for_(n, {b.i64(0)}, [&](Reg i, const std::vector<Reg>& c) {
    return std::vector<Reg>{b.binary(BinOp::Add, c[0], i)};
  });
  auto collatz = b.while_(
      {n, b.i32(0)}, [&](const std::vector<Reg>& c) { return b.compare(CmpOp::Gt, c[0], b.i64(1)); },
      [&](const std::vector<Reg>& c) {
        Reg even = b.compare(CmpOp::Eq, b.binary(BinOp::Mod, c[0], b.i64(2)), b.i64(0));
        Reg next = b.select(even, b.binary(BinOp::Div, c[0], b.i64(2)),
                            b.binary(BinOp::Add, b.binary(BinOp::Mul, c[0], b.i64(3)), b.i64(1)));
        return std::vector<Reg>{next, b.binary(BinOp::Add, c[1], b.i32(1))};
      });
  // A loop whose body swaps its carried values (results are parameters).
  auto swapped = b.for_(n, {b.i32(1), b.i32(2)}, [&](Reg, const std::vector<Reg>& c) {
    return std::vector<Reg>{c[1], c[0]};
  });
  b.ret({sum[0], collatz[1], swapped[0]});
  std::vector<std::vector<Scalar>> rows;
  for (int v = 0; v < 200; ++v) rows.push_back({Scalar::i64(v)});
  auto out = run_lanes(f, rows);
  for (int v = 0; v < 200; ++v) {
    int64_t steps = 0;
    for (int64_t m = v; m > 1; m = m % 2 == 0 ? m / 2 : 3 * m + 1) ++steps;
    REQUIRE(out[size_t(v)][0].i == int64_t(v) * (v - 1) / 2);
    REQUIRE(out[size_t(v)][1].i == steps);
    REQUIRE(out[size_t(v)][2].i == (v % 2 == 0 ? 1 : 2));
  }
}

TEST_CASE("host: reads gather with bounds checks") {
  kir::Function f;
  kir::Builder b(f);
  Reg i = b.param(Prim::I64);
  int a = b.free_array(Prim::F32, "xs");
  b.ret({b.read(a, i)});
  auto buf = testutil::buffer<float>(Prim::F32, {1.5f, 2.5f, 3.5f});
  std::vector<host::ArrayBinding> arrays = {{buf->host(), buf->count()}};
  auto out = run_lanes(f, {{Scalar::i64(2)}, {Scalar::i64(0)}}, arrays);
  CHECK(out[0][0].f == 3.5);
  CHECK(out[1][0].f == 1.5);
  CHECK_THROWS_AS(run_lanes(f, {{Scalar::i64(3)}}, arrays), Error);
  CHECK_THROWS_AS(run_lanes(f, {{Scalar::i64(-1)}}, arrays), Error);
}

TEST_CASE("kernel IR: check messages name the value they report, or leave it out") {
  int64_t i = -1, n = -2;
  CHECK(kir::check_message("Index [{}] out of bounds for array of shape [3].", &i) ==
        "Index [-1] out of bounds for array of shape [3].");
  CHECK(kir::check_message("Index [{}] out of bounds for array of shape [3].", nullptr) ==
        "Index out of bounds for array of shape [3].");
  CHECK(kir::check_message("Range 0..1..<{} is invalid.", &n) == "Range 0..1..<-2 is invalid.");
  CHECK(kir::check_message("Range 0..1..<{} is invalid.", nullptr) == "Range 0..1..<n is invalid.");
  CHECK(kir::check_message("division by zero", &n) == "division by zero");
}
