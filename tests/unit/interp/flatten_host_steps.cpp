// The host executor's segmented primitives against sequential oracles:
// SegMap, SegRed (commutative or not, tuples, redomap outputs), SegScan,
// SegHist, Scatter, on the awkward shapes (empty and one-element
// segments, sizes around the tile width) and on the parallel paths.
#include <doctest/doctest.h>

#include <cstdlib>
#include <random>

#include "flatten_test_util.hpp"
#include "interp/util/error.hpp"

using namespace thorn;
using kir::BinOp;
using kir::CmpOp;
using kir::Reg;
using plan::StepKind;
using testutil::buffer;
using testutil::random_i64;
using testutil::step;
using testutil::contents;
using testutil::parallel_opts;
using testutil::serial_opts;

namespace {

// Affine composition (a,b) op (c,d) = (a*c, b*c + d) on i64: associative,
// not commutative, neutral (1, 0). `extra` adds a useless instruction so the
// operator is not recognised as a fast one.
kir::Function affine_op() {
  kir::Function f;
  f.name = "affine";
  kir::Builder b(f);
  Reg a = b.param(Prim::I64), bb = b.param(Prim::I64), c = b.param(Prim::I64), d = b.param(Prim::I64);
  b.ret({b.binary(BinOp::Mul, a, c), b.binary(BinOp::Add, b.binary(BinOp::Mul, bb, c), d)});
  return f;
}
struct Aff {
  uint64_t a, b;
};
Aff affine(Aff x, Aff y) { return {x.a * y.a, x.b * y.a + y.b}; }

// A commutative operator the fast path does not recognise: (x + y) * 1.
kir::Function slow_add(Prim t) {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(t), y = b.param(t);
  b.ret({b.binary(BinOp::Mul, b.binary(BinOp::Add, x, y), b.constant(Scalar::signed_int(t, 1)))});
  return f;
}

struct Shape {
  int64_t segments, size;
};
const std::vector<Shape> kShapes = {{1, 1},   {1, 7},    {3, 3},    {1, 255}, {1, 256}, {1, 257},
                                    {2, 1000}, {1, 5000}, {1000, 1}, {500, 2}, {333, 10}, {7, 129},
                                    {4, 0},    {0, 5},    {3, 33},   {2, 513}, {1, 70000}};

}  // namespace

TEST_CASE("host SegMap: several results, affine and transposed reads") {
  // out0[s][j] = xs[s][j] * 2, out1[s][j] = xs[j][s] (a transpose of a square), out2 = s < j
  const int64_t n = 37;
  std::vector<int32_t> xs(n * n);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = int32_t(i);
  kir::Function f;
  kir::Builder b(f);
  Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
  int a = b.free_array(Prim::I32, "xs");
  Reg row = b.read(a, b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(n)), j));
  Reg col = b.read(a, b.binary(BinOp::Add, b.binary(BinOp::Mul, j, b.i64(n)), s));
  b.ret({b.binary(BinOp::Mul, row, b.i32(2)), col, b.compare(CmpOp::Lt, s, j)});
  for (auto opts : {serial_opts(), parallel_opts()}) {
    std::vector<BufferPtr> bufs = {buffer(Prim::I32, xs), std::make_shared<Buffer>(Prim::I32, n * n),
                                   std::make_shared<Buffer>(Prim::I32, n * n),
                                   std::make_shared<Buffer>(Prim::Bool, n * n)};
    host::execute_step(step(StepKind::SegMap, n, n, f, {0}, {1, 2, 3}), bufs, opts);
    auto o0 = contents<int32_t>(bufs[1]), o1 = contents<int32_t>(bufs[2]);
    auto o2 = contents<uint8_t>(bufs[3]);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < n; ++c) {
        REQUIRE(o0[size_t(r * n + c)] == xs[size_t(r * n + c)] * 2);
        REQUIRE(o1[size_t(r * n + c)] == xs[size_t(c * n + r)]);
        REQUIRE(o2[size_t(r * n + c)] == (r < c ? 1 : 0));
      }
  }
}

TEST_CASE("host SegMap: f16 results are stored as half bits; a failing Check is an error") {
  kir::Function f;
  kir::Builder b(f);
  b.param(Prim::I64);
  Reg j = b.param(Prim::I64);
  b.check(b.compare(CmpOp::Lt, j, b.i64(1000)), "j too large");
  b.ret({b.binary(BinOp::Div, b.convert(Prim::F16, j), b.constant(Scalar::floating(Prim::F16, 3.0)))});
  std::vector<BufferPtr> bufs = {std::make_shared<Buffer>(Prim::F16, 10)};
  host::execute_step(step(StepKind::SegMap, 1, 10, f, {}, {0}), bufs);
  auto bits = contents<uint16_t>(bufs[0]);
  for (int i = 0; i < 10; ++i) CHECK(f16_from_bits(bits[size_t(i)]) == round_to_f16(i / 3.0));
  std::vector<BufferPtr> big = {std::make_shared<Buffer>(Prim::F16, 2000)};
  CHECK_THROWS_WITH_AS(host::execute_step(step(StepKind::SegMap, 1, 2000, f, {}, {0}), big, parallel_opts()),
                       "runtime error: j too large", Error);
}

TEST_CASE("host SegRed: sums on every shape, fast and generic operators, serial and parallel") {
  for (Shape sh : kShapes) {
    for (bool fast : {true, false}) {
      for (auto opts : {serial_opts(), parallel_opts()}) {
        auto xs = random_i64(size_t(sh.segments * sh.size), 7);
        std::vector<BufferPtr> bufs = {buffer(Prim::I64, xs),
                                       std::make_shared<Buffer>(Prim::I64, sh.segments)};
        plan::Step s = step(StepKind::SegRed, sh.segments, sh.size, testutil::read_rows_fn({Prim::I64}, sh.size),
                            {0}, {1});
        s.op = fast ? testutil::binop_fn(BinOp::Add, Prim::I64) : slow_add(Prim::I64);
        s.neutral = {Scalar::i64(0)};
        s.commutative = true;
        host::execute_step(s, bufs, opts);
        auto out = contents<int64_t>(bufs[1]);
        for (int64_t g = 0; g < sh.segments; ++g) {
          int64_t sum = 0;
          for (int64_t j = 0; j < sh.size; ++j) sum += xs[size_t(g * sh.size + j)];
          REQUIRE_MESSAGE(out[size_t(g)] == sum, "shape [" << sh.segments << "][" << sh.size << "] segment " << g
                                                           << std::string(fast ? " fast" : " generic"));
        }
      }
    }
  }
}

TEST_CASE("host SegRed: non-commutative tuple operator keeps the order") {
  // The seed's example: segment size 3, [(2,1),(3,0),(1,5)] -> (6,8); [(2,2),(1,1),(3,3)] -> (6,12).
  {
    std::vector<int64_t> a = {2, 3, 1, 2, 1, 3}, b = {1, 0, 5, 2, 1, 3};
    std::vector<BufferPtr> bufs = {buffer(Prim::I64, a), buffer(Prim::I64, b),
                                   std::make_shared<Buffer>(Prim::I64, 2), std::make_shared<Buffer>(Prim::I64, 2)};
    plan::Step s = step(StepKind::SegRed, 2, 3, testutil::read_rows_fn({Prim::I64, Prim::I64}, 3), {0, 1}, {2, 3});
    s.op = affine_op();
    s.neutral = {Scalar::i64(1), Scalar::i64(0)};
    host::execute_step(s, bufs);
    CHECK(contents<int64_t>(bufs[2]) == std::vector<int64_t>{6, 6});
    CHECK(contents<int64_t>(bufs[3]) == std::vector<int64_t>{8, 12});
  }
  for (Shape sh : kShapes) {
    for (auto opts : {serial_opts(), parallel_opts()}) {
      size_t n = size_t(sh.segments * sh.size);
      auto a = random_i64(n, 11, -3, 3), b = random_i64(n, 12, -100, 100);
      std::vector<BufferPtr> bufs = {buffer(Prim::I64, a), buffer(Prim::I64, b),
                                     std::make_shared<Buffer>(Prim::I64, sh.segments),
                                     std::make_shared<Buffer>(Prim::I64, sh.segments)};
      plan::Step s = step(StepKind::SegRed, sh.segments, sh.size,
                          testutil::read_rows_fn({Prim::I64, Prim::I64}, sh.size), {0, 1}, {2, 3});
      s.op = affine_op();
      s.neutral = {Scalar::i64(1), Scalar::i64(0)};
      host::execute_step(s, bufs, opts);
      auto oa = contents<int64_t>(bufs[2]), ob = contents<int64_t>(bufs[3]);
      for (int64_t g = 0; g < sh.segments; ++g) {
        Aff acc{1, 0};
        for (int64_t j = 0; j < sh.size; ++j) {
          size_t i = size_t(g * sh.size + j);
          acc = affine(acc, Aff{uint64_t(a[i]), uint64_t(b[i])});
        }
        REQUIRE_MESSAGE((oa[size_t(g)] == int64_t(acc.a) && ob[size_t(g)] == int64_t(acc.b)),
                        "shape [" << sh.segments << "][" << sh.size << "] segment " << g);
      }
    }
  }
}

TEST_CASE("host SegRed: redomap writes its map-part outputs; empty segments give the neutral element") {
  // element (s, j) = (x*2 as map output, x + 1 reduced with max), x = xs[s][j]
  const int64_t segs = 5, size = 300;
  auto xs = random_i64(size_t(segs * size), 3, -1000, 1000);
  kir::Function f;
  kir::Builder b(f);
  Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
  Reg x = b.read(b.free_array(Prim::I64, "xs"), b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(size)), j));
  b.ret({b.binary(BinOp::Mul, x, b.i64(2)), b.binary(BinOp::Add, x, b.i64(1))});
  for (auto opts : {serial_opts(), parallel_opts()}) {
    std::vector<BufferPtr> bufs = {buffer(Prim::I64, xs), std::make_shared<Buffer>(Prim::I64, segs * size),
                                   std::make_shared<Buffer>(Prim::I64, segs)};
    plan::Step st = step(StepKind::SegRed, segs, size, f, {0}, {1, 2});
    st.num_map_outputs = 1;
    st.op = testutil::binop_fn(BinOp::Max, Prim::I64);
    st.neutral = {Scalar::i64(std::numeric_limits<int64_t>::min())};
    host::execute_step(st, bufs, opts);
    auto doubled = contents<int64_t>(bufs[1]), mx = contents<int64_t>(bufs[2]);
    for (size_t i = 0; i < xs.size(); ++i) REQUIRE(doubled[i] == xs[i] * 2);
    for (int64_t g = 0; g < segs; ++g) {
      int64_t m = std::numeric_limits<int64_t>::min();
      for (int64_t k = 0; k < size; ++k) m = std::max(m, xs[size_t(g * size + k)] + 1);
      REQUIRE(mx[size_t(g)] == m);
    }
  }
  std::vector<BufferPtr> bufs = {std::make_shared<Buffer>(Prim::I64, 0), std::make_shared<Buffer>(Prim::I64, 0),
                                 std::make_shared<Buffer>(Prim::I64, 4)};
  plan::Step st = step(StepKind::SegRed, 4, 0, f, {0}, {1, 2});
  st.num_map_outputs = 1;
  st.op = testutil::binop_fn(BinOp::Max, Prim::I64);
  st.neutral = {Scalar::i64(-7)};
  host::execute_step(st, bufs);
  CHECK(contents<int64_t>(bufs[2]) == std::vector<int64_t>{-7, -7, -7, -7});
}

TEST_CASE("host SegRed: f32 sums within tolerance") {
  const int64_t n = 100000;
  std::vector<float> xs(n);
  for (int64_t i = 0; i < n; ++i) xs[size_t(i)] = float(i % 1000) * 0.001f;
  std::vector<BufferPtr> bufs = {buffer(Prim::F32, xs), std::make_shared<Buffer>(Prim::F32, 1)};
  plan::Step s = step(StepKind::SegRed, 1, n, testutil::read_rows_fn({Prim::F32}, n), {0}, {1});
  s.op = testutil::binop_fn(BinOp::Add, Prim::F32);
  s.neutral = {Scalar::floating(Prim::F32, 0.0)};
  host::execute_step(s, bufs, parallel_opts());
  double expect = 0;
  for (float x : xs) expect += x;
  CHECK(contents<float>(bufs[1])[0] == doctest::Approx(expect).epsilon(1e-5));
}

TEST_CASE("host SegScan: prefix sums and the affine operator on every shape") {
  for (Shape sh : kShapes) {
    for (auto opts : {serial_opts(), parallel_opts()}) {
      size_t n = size_t(sh.segments * sh.size);
      auto a = random_i64(n, 21, -3, 3), b = random_i64(n, 22, -100, 100);
      // Prefix sums (fast path) and the generic affine scan, separately.
      std::vector<BufferPtr> bufs = {buffer(Prim::I64, a), buffer(Prim::I64, b),
                                     std::make_shared<Buffer>(Prim::I64, int64_t(n)),
                                     std::make_shared<Buffer>(Prim::I64, int64_t(n)),
                                     std::make_shared<Buffer>(Prim::I64, int64_t(n))};
      plan::Step sum = step(StepKind::SegScan, sh.segments, sh.size, testutil::read_rows_fn({Prim::I64}, sh.size),
                            {1}, {4});
      sum.op = testutil::binop_fn(BinOp::Add, Prim::I64);
      sum.neutral = {Scalar::i64(0)};
      host::execute_step(sum, bufs, opts);
      plan::Step aff = step(StepKind::SegScan, sh.segments, sh.size,
                            testutil::read_rows_fn({Prim::I64, Prim::I64}, sh.size), {0, 1}, {2, 3});
      aff.op = affine_op();
      aff.neutral = {Scalar::i64(1), Scalar::i64(0)};
      host::execute_step(aff, bufs, opts);
      auto oa = contents<int64_t>(bufs[2]), ob = contents<int64_t>(bufs[3]), os = contents<int64_t>(bufs[4]);
      for (int64_t g = 0; g < sh.segments; ++g) {
        Aff acc{1, 0};
        int64_t s = 0;
        for (int64_t j = 0; j < sh.size; ++j) {
          size_t i = size_t(g * sh.size + j);
          acc = affine(acc, Aff{uint64_t(a[i]), uint64_t(b[i])});
          s += b[i];
          REQUIRE_MESSAGE((oa[i] == int64_t(acc.a) && ob[i] == int64_t(acc.b) && os[i] == s),
                          "shape [" << sh.segments << "][" << sh.size << "] at " << g << "," << j);
        }
      }
    }
  }
}

TEST_CASE("host SegHist: the seed's cases, out-of-bounds bins, batched and parallel") {
  auto hist_step = [](int64_t segs, int64_t size, int64_t bins, kir::Function op, Scalar ne) {
    // element (s, j) = (is[s][j], vs[s][j])
    plan::Step s = step(StepKind::SegHist, segs, size, testutil::read_rows_fn({Prim::I64, Prim::I32}, size), {0, 1}, {2});
    s.op = std::move(op);
    s.neutral = {ne};
    s.bins = bins;
    s.commutative = true;
    return s;
  };
  {
    std::vector<BufferPtr> bufs = {buffer<int64_t>(Prim::I64, {0, 1, 1, 3, 3, 3}), buffer<int32_t>(Prim::I32, {1, 1, 1, 1, 1, 1}),
                                   buffer<int32_t>(Prim::I32, {0, 0, 0, 0, 0})};
    host::execute_step(hist_step(1, 6, 5, testutil::binop_fn(BinOp::Add, Prim::I32), Scalar::i32(0)), bufs);
    CHECK(contents<int32_t>(bufs[2]) == std::vector<int32_t>{1, 2, 0, 3, 0});
  }
  {
    std::vector<BufferPtr> bufs = {buffer<int64_t>(Prim::I64, {0, 2, 2}), buffer<int32_t>(Prim::I32, {1, 2, 3}),
                                   buffer<int32_t>(Prim::I32, {10, 20, 30})};
    host::execute_step(hist_step(1, 3, 3, slow_add(Prim::I32), Scalar::i32(0)), bufs);
    CHECK(contents<int32_t>(bufs[2]) == std::vector<int32_t>{11, 20, 35});
  }
  {
    std::vector<int64_t> is = {-1, 3, 5, 0, 2, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    std::vector<BufferPtr> bufs = {buffer(Prim::I64, is), buffer(Prim::I32, std::vector<int32_t>(is.size(), 1)),
                                   buffer<int32_t>(Prim::I32, {0, 0, 0})};
    host::execute_step(hist_step(1, int64_t(is.size()), 3, testutil::binop_fn(BinOp::Add, Prim::I32), Scalar::i32(0)), bufs);
    CHECK(contents<int32_t>(bufs[2]) == std::vector<int32_t>{1, 0, 1});
  }
  // Random, with out-of-range bins, over batched shapes, fast and generic operators.
  struct HShape {
    int64_t segs, size, bins;
  };
  for (HShape hsz : std::vector<HShape>{{1, 100000, 31}, {1, 5000, 24577}, {100, 300, 22}, {1, 1, 1}, {3, 0, 4},
                                        {2, 50000, 7}, {1, 1000, 1 << 16}}) {
    for (bool fast : {true, false}) {
      for (auto opts : {serial_opts(), parallel_opts()}) {
        size_t n = size_t(hsz.segs * hsz.size);
        auto is = random_i64(n, 5, -2, hsz.bins + 1);
        auto v64 = random_i64(n, 6, -50, 50);
        std::vector<int32_t> vs(v64.begin(), v64.end());
        std::vector<int32_t> dest(size_t(hsz.segs * hsz.bins), 3);
        std::vector<BufferPtr> bufs = {buffer(Prim::I64, is), buffer(Prim::I32, vs), buffer(Prim::I32, dest)};
        host::execute_step(hist_step(hsz.segs, hsz.size, hsz.bins,
                                     fast ? testutil::binop_fn(BinOp::Add, Prim::I32) : slow_add(Prim::I32),
                                     Scalar::i32(0)),
                           bufs, opts);
        std::vector<int32_t> expect = dest;
        for (int64_t g = 0; g < hsz.segs; ++g)
          for (int64_t j = 0; j < hsz.size; ++j) {
            size_t i = size_t(g * hsz.size + j);
            if (is[i] >= 0 && is[i] < hsz.bins) expect[size_t(g * hsz.bins + is[i])] += vs[i];
          }
        REQUIRE_MESSAGE(contents<int32_t>(bufs[2]) == expect,
                        "hist [" << hsz.segs << "][" << hsz.size << "] bins " << hsz.bins << std::string(fast ? " fast" : " generic"));
      }
    }
  }
}

TEST_CASE("host SegHist: a tuple operator (argmax with a tie rule) is independent of the split") {
  // op((i1,v1),(i2,v2)) = v1 > v2 || (v1 == v2 && i1 < i2) ? (i1,v1) : (i2,v2); neutral (max, min)
  kir::Function op;
  {
    kir::Builder b(op);
    Reg i1 = b.param(Prim::I64), v1 = b.param(Prim::I32), i2 = b.param(Prim::I64), v2 = b.param(Prim::I32);
    Reg first = b.binary(BinOp::LogOr, b.compare(CmpOp::Gt, v1, v2),
                         b.binary(BinOp::LogAnd, b.compare(CmpOp::Eq, v1, v2), b.compare(CmpOp::Lt, i1, i2)));
    b.ret({b.select(first, i1, i2), b.select(first, v1, v2)});
  }
  const int64_t n = 60000, bins = 10;
  auto is = random_i64(size_t(n), 8, 0, bins - 1);
  auto v64 = random_i64(size_t(n), 9, 0, 20);
  std::vector<int32_t> vs(v64.begin(), v64.end());
  // element (s, j) = (bin, j, v)
  kir::Function f;
  {
    kir::Builder b(f);
    b.param(Prim::I64);
    Reg j = b.param(Prim::I64);
    Reg bin = b.read(b.free_array(Prim::I64, "is"), j);
    Reg v = b.read(b.free_array(Prim::I32, "vs"), j);
    b.ret({bin, j, v});
  }
  std::vector<std::vector<int64_t>> results;
  for (auto opts : {serial_opts(), parallel_opts()}) {
    std::vector<BufferPtr> bufs = {buffer(Prim::I64, is), buffer(Prim::I32, vs),
                                   buffer(Prim::I64, std::vector<int64_t>(bins, std::numeric_limits<int64_t>::max())),
                                   buffer(Prim::I32, std::vector<int32_t>(bins, std::numeric_limits<int32_t>::min()))};
    plan::Step s = step(StepKind::SegHist, 1, n, f, {0, 1}, {2, 3});
    s.op = op;
    s.neutral = {Scalar::i64(std::numeric_limits<int64_t>::max()), Scalar::i32(std::numeric_limits<int32_t>::min())};
    s.bins = bins;
    host::execute_step(s, bufs, opts);
    results.push_back(contents<int64_t>(bufs[2]));
    for (int64_t k = 0; k < bins; ++k) {
      int64_t best = -1;
      for (int64_t i = 0; i < n; ++i)
        if (is[size_t(i)] == k && (best < 0 || vs[size_t(i)] > vs[size_t(best)])) best = i;
      REQUIRE(results.back()[size_t(k)] == best);
    }
  }
}

TEST_CASE("host Scatter: in-bounds writes land, out-of-bounds are ignored, segments are separate") {
  // element (s, j) = (idx[s][j], val[s][j]) into dest[s][..4]
  std::vector<int64_t> idx = {0, 3, 9, -1, 1, 2, 2, 4};  // two segments of 4
  std::vector<int32_t> val = {10, 11, 12, 13, 20, 21, 22, 23};
  std::vector<BufferPtr> bufs = {buffer(Prim::I64, idx), buffer(Prim::I32, val), buffer(Prim::I32, std::vector<int32_t>(8, -1))};
  plan::Step s = step(StepKind::Scatter, 2, 4, testutil::read_rows_fn({Prim::I64, Prim::I32}, 4), {0, 1}, {2});
  s.dest_size = 4;
  host::execute_step(s, bufs);
  auto d = contents<int32_t>(bufs[2]);
  CHECK(d[0] == 10);
  CHECK(d[3] == 11);
  CHECK(d[1] == -1);
  CHECK(d[4 + 1] == 20);
  CHECK((d[4 + 2] == 21 || d[4 + 2] == 22));
  CHECK(d[4 + 0] == -1);
  CHECK(d[4 + 3] == -1);
}

TEST_CASE("host execute: allocates outputs, rejects malformed steps") {
  plan::Plan p;
  p.buffers.push_back({Prim::I32, 4, "xs", true});
  p.buffers.push_back({Prim::I32, 1, "sum", false});
  plan::Step s = step(StepKind::SegRed, 1, 4, testutil::read_rows_fn({Prim::I32}, 4), {0}, {1});
  s.op = testutil::binop_fn(BinOp::Add, Prim::I32);
  s.neutral = {Scalar::i32(0)};
  p.steps.push_back(s);
  std::vector<BufferPtr> bufs = {buffer<int32_t>(Prim::I32, {1, 2, 3, 4}), nullptr};
  host::execute(p, bufs);
  CHECK(contents<int32_t>(bufs[1]) == std::vector<int32_t>{10});
  p.steps[0].neutral.clear();
  CHECK_THROWS_AS(host::execute(p, bufs), Error);
  std::vector<BufferPtr> missing = {nullptr, nullptr};
  CHECK_THROWS_AS(host::execute(p, missing), Error);
}

// Bug report: a SegMap whose element checks `j < segment_size` must pass for
// every segment size, including ones that are not a multiple of the tile
// width and span several tiles (700), serial and parallel.
TEST_CASE("host SegMap: the segment index j stays below segment_size") {
  for (int64_t n : {1, 63, 64, 65, 700, 1000}) {
    for (int64_t segs : {1, 3, 17}) {
      for (bool par : {false, true}) {
        plan::Plan p;
        plan::BufferDesc o;
        o.elem = Prim::I64;
        o.count = segs * n;
        p.buffers = {o};
        plan::Step st;
        st.kind = StepKind::SegMap;
        st.segments = segs;
        st.segment_size = n;
        kir::Builder b(st.element);
        Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
        b.check(b.compare(CmpOp::Lt, j, b.i64(n)), "j out of bounds");
        b.ret({b.binary(BinOp::Add, s, j)});
        st.writes = {0};
        p.steps.push_back(std::move(st));
        std::vector<BufferPtr> bufs(1);
        CAPTURE(n);
        CAPTURE(segs);
        CAPTURE(par);
        REQUIRE_NOTHROW(host::execute(p, bufs, par ? parallel_opts() : host::ExecOptions{}));
        const int64_t* out = bufs[0]->data<int64_t>();
        for (int64_t k = 0; k < segs * n; ++k) REQUIRE(out[k] == k / n + k % n);
      }
    }
  }
}
