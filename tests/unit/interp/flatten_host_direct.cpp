// The host executor's direct paths (host_direct.hpp): SegRed and SegScan
// whose element function reads each input from contiguous memory, with a
// recognised operator. Against sequential oracles on the awkward shapes
// (empty, one element, odd sizes, sizes around the accumulator width, the
// block size and the thread split), integer wrap-around, f32/f64, every
// recognised operation; float results must not depend on the thread count.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <cstdlib>
#include <random>
#include <type_traits>

#include "flatten_test_util.hpp"
#include "interp/exec/host_direct.hpp"
#include "interp/util/error.hpp"

using namespace thorn;
using kir::BinOp;
using kir::Reg;
using plan::StepKind;
using testutil::buffer;
using testutil::contents;
using testutil::parallel_opts;
using testutil::serial_opts;

namespace {

struct Shape {
  int64_t segments, size;
};
constexpr int64_t B = host::kDirectBlock;
const std::vector<Shape> kShapes = {
    {1, 1},    {1, 2},      {1, 31},     {1, 32},     {1, 33},  {1, 63},   {1, 64},   {1, 65},  {1, 257},
    {1, B - 1}, {1, B},     {1, B + 1},  {1, 3 * B + 7}, {3, B + 1}, {2, 2 * B + 1}, {1000, 1}, {777, 10},
    {300, 31}, {300, 32},   {6, 8},      {5, 9},      {3, 7},   {7, 16},   {65, 33},    {9, 100},    {5, 1000}, {0, 5},    {4, 0},    {1, 0},   {5, 2 * B - 3}};

// Element (s, j) -> a[s * size + j + offset].
kir::Function read_at(Prim t, int64_t size, int64_t offset, int64_t stride = 1) {
  kir::Function f;
  f.name = "elem";
  kir::Builder b(f);
  Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
  Reg flat = b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(size)), j);
  Reg idx = b.binary(BinOp::Add, b.binary(BinOp::Mul, flat, b.i64(stride)), b.i64(offset));
  b.ret({b.read(b.free_array(t, "in"), idx)});
  return f;
}

plan::Step make_step(StepKind kind, Shape sh, kir::Function elem, kir::Function op, std::vector<Scalar> ne,
                     int64_t writes_from = 1) {
  plan::Step s;
  s.kind = kind;
  s.segments = sh.segments;
  s.segment_size = sh.size;
  s.element = std::move(elem);
  s.op = std::move(op);
  s.neutral = std::move(ne);
  for (size_t r = 0; r < s.neutral.size(); ++r) {
    s.reads.push_back(int(r));
    s.writes.push_back(int(writes_from + int64_t(r)));
  }
  return s;
}

template <class T> constexpr Prim prim_of() {
  if constexpr (std::is_same_v<T, int32_t>) return Prim::I32;
  else if constexpr (std::is_same_v<T, int64_t>) return Prim::I64;
  else if constexpr (std::is_same_v<T, uint8_t>) return Prim::U8;
  else if constexpr (std::is_same_v<T, float>) return Prim::F32;
  else return Prim::F64;
}

template <class T> Scalar scalar_of(T v) {
  constexpr Prim P = prim_of<T>();
  if constexpr (std::is_floating_point_v<T>) return Scalar::floating(P, double(v));
  else if constexpr (std::is_signed_v<T>) return Scalar::signed_int(P, int64_t(v));
  else return Scalar::unsigned_int(P, uint64_t(v));
}

// The operation as Futhark defines it (integers wrap).
template <class T> T apply(BinOp op, T a, T b) {
  switch (op) {
    case BinOp::Add:
    case BinOp::Mul:
      if constexpr (std::is_floating_point_v<T>) {
        return op == BinOp::Add ? a + b : a * b;
      } else {
        using U = std::make_unsigned_t<std::conditional_t<(sizeof(T) < 4), int32_t, T>>;
        return op == BinOp::Add ? T(U(a) + U(b)) : T(U(a) * U(b));
      }
    case BinOp::Min:
      if constexpr (std::is_floating_point_v<T>) return std::fmin(a, b);
      else return std::min(a, b);
    case BinOp::Max:
      if constexpr (std::is_floating_point_v<T>) return std::fmax(a, b);
      else return std::max(a, b);
    default:
      if constexpr (std::is_integral_v<T>) {
        if (op == BinOp::And) return T(a & b);
        if (op == BinOp::Or) return T(a | b);
        if (op == BinOp::Xor) return T(a ^ b);
      }
      FAIL("unexpected operation");
      return a;
  }
}

template <class T> T neutral_of(BinOp op) {
  switch (op) {
    case BinOp::Mul: return T(1);
    case BinOp::Min: return std::is_floating_point_v<T> ? T(INFINITY) : std::numeric_limits<T>::max();
    case BinOp::Max: return std::is_floating_point_v<T> ? T(-INFINITY) : std::numeric_limits<T>::lowest();
    case BinOp::And:
      if constexpr (std::is_integral_v<T>) return T(~T(0));
      return T(0);
    default: return T(0);
  }
}

template <class T> std::vector<T> data_for(BinOp op, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  std::uniform_real_distribution<double> u(0, 1);
  for (auto& x : v) {
    double r = u(rng);
    if constexpr (std::is_floating_point_v<T>) x = op == BinOp::Mul ? T(1 + (r - 0.5) * 1e-3) : T(r);
    else if constexpr (sizeof(T) >= 4) x = T(int64_t(r * 2e9) - int64_t(op == BinOp::Mul ? 0 : 1e9));  // wraps when summed
    else x = T(r * 255);
  }
  return v;
}

// Float sums and products: close to the exact result; anything else (min,
// max, integers): exactly the sequential fold.
template <class T> bool close(BinOp op, T got, T seq, long double exact) {
  if constexpr (std::is_floating_point_v<T>) {
    if (op == BinOp::Add || op == BinOp::Mul) {
      double tol = std::is_same_v<T, float> ? 1e-3 : 1e-10;
      return std::fabs(double(got) - double(exact)) <= tol * std::max(1.0, std::fabs(double(exact)));
    }
  }
  return std::memcmp(&got, &seq, sizeof(T)) == 0;
}

template <class T> void check_reduce(BinOp op) {
  constexpr Prim P = prim_of<T>();
  for (Shape sh : kShapes)
    for (int64_t offset : {0, 3}) {
      size_t n = size_t(sh.segments * sh.size);
      auto xs = data_for<T>(op, n + size_t(offset), uint32_t(n + 17));
      std::vector<std::vector<T>> outs;
      for (auto opts : {serial_opts(), parallel_opts()}) {
        std::vector<BufferPtr> bufs = {buffer(P, xs), std::make_shared<Buffer>(P, sh.segments)};
        host::execute_step(make_step(StepKind::SegRed, sh, read_at(P, sh.size, offset), testutil::binop_fn(op, P),
                                     {scalar_of(neutral_of<T>(op))}),
                           bufs, opts);
        outs.push_back(contents<T>(bufs[1]));
      }
      for (int64_t g = 0; g < sh.segments; ++g) {
        T seq = neutral_of<T>(op);
        long double exact = std::is_floating_point_v<T> && op == BinOp::Mul ? 1.0L : 0.0L;
        for (int64_t j = 0; j < sh.size; ++j) {
          T x = xs[size_t(g * sh.size + j + offset)];
          seq = apply(op, seq, x);
          if (op == BinOp::Mul) exact *= x;
          else exact += x;
        }
        INFO("shape [" << sh.segments << "][" << sh.size << "] offset " << offset << " segment " << g);
        REQUIRE(close<T>(op, outs[0][size_t(g)], seq, exact));
        // The order of evaluation depends on the shape only, not the threads.
        REQUIRE(std::memcmp(&outs[0][size_t(g)], &outs[1][size_t(g)], sizeof(T)) == 0);
        // Rows shorter than the accumulators fold left to right, exactly.
        if (sh.size < int64_t(256 / sizeof(T))) REQUIRE(std::memcmp(&outs[0][size_t(g)], &seq, sizeof(T)) == 0);
      }
    }
}

template <class T> void check_scan(BinOp op) {
  constexpr Prim P = prim_of<T>();
  for (Shape sh : kShapes)
    for (int64_t offset : {0, 5}) {
      size_t n = size_t(sh.segments * sh.size);
      auto xs = data_for<T>(op, n + size_t(offset), uint32_t(n + 29));
      std::vector<std::vector<T>> outs;
      for (auto opts : {serial_opts(), parallel_opts()}) {
        std::vector<BufferPtr> bufs = {buffer(P, xs), std::make_shared<Buffer>(P, int64_t(n))};
        host::execute_step(make_step(StepKind::SegScan, sh, read_at(P, sh.size, offset), testutil::binop_fn(op, P),
                                     {scalar_of(neutral_of<T>(op))}),
                           bufs, opts);
        outs.push_back(contents<T>(bufs[1]));
      }
      REQUIRE(std::memcmp(outs[0].data(), outs[1].data(), n * sizeof(T)) == 0);
      for (int64_t g = 0; g < sh.segments; ++g) {
        T seq = neutral_of<T>(op);
        long double exact = std::is_floating_point_v<T> && op == BinOp::Mul ? 1.0L : 0.0L;
        for (int64_t j = 0; j < sh.size; ++j) {
          size_t i = size_t(g * sh.size + j);
          T x = xs[i + size_t(offset)];
          seq = apply(op, seq, x);
          if (op == BinOp::Mul) exact *= x;
          else exact += x;
          INFO("shape [" << sh.segments << "][" << sh.size << "] offset " << offset << " at " << g << "," << j);
          REQUIRE(close<T>(op, outs[0][i], seq, exact));
          // Within the first block a scan is left to right, exactly.
          if (j < B) REQUIRE(std::memcmp(&outs[0][i], &seq, sizeof(T)) == 0);
        }
      }
    }
}

}  // namespace

TEST_CASE("host direct SegRed: every recognised operation on i32, i64, u8, f32, f64") {
  for (BinOp op : {BinOp::Add, BinOp::Mul, BinOp::Min, BinOp::Max}) {
    check_reduce<int32_t>(op);
    check_reduce<int64_t>(op);
    check_reduce<float>(op);
    check_reduce<double>(op);
  }
  for (BinOp op : {BinOp::Add, BinOp::Max, BinOp::And, BinOp::Or, BinOp::Xor}) check_reduce<uint8_t>(op);
  for (BinOp op : {BinOp::And, BinOp::Or, BinOp::Xor}) check_reduce<int64_t>(op);
}

TEST_CASE("host direct SegScan: every recognised operation on i32, i64, u8, f32, f64") {
  for (BinOp op : {BinOp::Add, BinOp::Mul, BinOp::Min, BinOp::Max}) {
    check_scan<int32_t>(op);
    check_scan<int64_t>(op);
    check_scan<float>(op);
    check_scan<double>(op);
  }
  for (BinOp op : {BinOp::Add, BinOp::Xor}) check_scan<uint8_t>(op);
}

TEST_CASE("host direct: i32 sums wrap around") {
  std::vector<int32_t> xs(100001, std::numeric_limits<int32_t>::max());
  for (auto opts : {serial_opts(), parallel_opts()}) {
    std::vector<BufferPtr> bufs = {buffer(Prim::I32, xs), std::make_shared<Buffer>(Prim::I32, 1),
                                   std::make_shared<Buffer>(Prim::I32, int64_t(xs.size()))};
    Shape sh{1, int64_t(xs.size())};
    host::execute_step(make_step(StepKind::SegRed, sh, read_at(Prim::I32, sh.size, 0),
                                 testutil::binop_fn(BinOp::Add, Prim::I32), {Scalar::signed_int(Prim::I32, 0)}),
                       bufs, opts);
    // 100001 * (2^31 - 1) mod 2^32, as a signed 32-bit number: 2^31 - 100001.
    CHECK(contents<int32_t>(bufs[1])[0] == int32_t(2147483647 - 100000));
    host::execute_step(make_step(StepKind::SegScan, sh, read_at(Prim::I32, sh.size, 0),
                                 testutil::binop_fn(BinOp::Add, Prim::I32), {Scalar::signed_int(Prim::I32, 0)}, 2),
                       bufs, opts);
    auto out = contents<int32_t>(bufs[2]);
    CHECK(out[0] == std::numeric_limits<int32_t>::max());
    CHECK(out[1] == -2);
    CHECK(out.back() == int32_t(2147483647 - 100000));
  }
}

TEST_CASE("host direct: zipped inputs with a tuple of recognised operations") {
  // reduce/scan (\(a, x) (b, y) -> (a + b, f64.max x y)) over zip is bs xs.
  kir::Function op;
  op.name = "op";
  {
    kir::Builder b(op);
    Reg a = b.param(Prim::I32), x = b.param(Prim::F64), bb = b.param(Prim::I32), y = b.param(Prim::F64);
    b.ret({b.binary(BinOp::Add, a, bb), b.binary(BinOp::Max, x, y)});
  }
  for (Shape sh : {Shape{1, 70001}, Shape{100, 33}, Shape{7, 5}}) {
    size_t n = size_t(sh.segments * sh.size);
    auto is = data_for<int32_t>(BinOp::Add, n, 3);
    auto xs = data_for<double>(BinOp::Max, n, 4);
    for (auto opts : {serial_opts(), parallel_opts()}) {
      std::vector<BufferPtr> bufs = {buffer(Prim::I32, is), buffer(Prim::F64, xs),
                                     std::make_shared<Buffer>(Prim::I32, sh.segments),
                                     std::make_shared<Buffer>(Prim::F64, sh.segments),
                                     std::make_shared<Buffer>(Prim::I32, int64_t(n)),
                                     std::make_shared<Buffer>(Prim::F64, int64_t(n))};
      std::vector<Scalar> ne = {Scalar::signed_int(Prim::I32, 0), Scalar::floating(Prim::F64, -INFINITY)};
      host::execute_step(make_step(StepKind::SegRed, sh, testutil::read_rows_fn({Prim::I32, Prim::F64}, sh.size), op,
                                   ne, 2),
                         bufs, opts);
      host::execute_step(make_step(StepKind::SegScan, sh, testutil::read_rows_fn({Prim::I32, Prim::F64}, sh.size), op,
                                   ne, 4),
                         bufs, opts);
      auto rs = contents<int32_t>(bufs[2]), ss = contents<int32_t>(bufs[4]);
      auto rx = contents<double>(bufs[3]), sx = contents<double>(bufs[5]);
      for (int64_t g = 0; g < sh.segments; ++g) {
        int32_t a = 0;
        double m = -INFINITY;
        for (int64_t j = 0; j < sh.size; ++j) {
          size_t i = size_t(g * sh.size + j);
          a = apply(BinOp::Add, a, is[i]);
          m = std::fmax(m, xs[i]);
          REQUIRE((ss[i] == a && sx[i] == m));
        }
        REQUIRE((rs[size_t(g)] == a && rx[size_t(g)] == m));
      }
    }
  }
}

TEST_CASE("host direct: strided and out-of-bounds reads take the general path") {
  Shape sh{3, 1000};
  std::vector<int64_t> xs(size_t(2 * 3 * 1000));
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = int64_t(i);
  std::vector<BufferPtr> bufs = {buffer(Prim::I64, xs), std::make_shared<Buffer>(Prim::I64, 3)};
  host::execute_step(make_step(StepKind::SegRed, sh, read_at(Prim::I64, sh.size, 0, 2),
                               testutil::binop_fn(BinOp::Add, Prim::I64), {Scalar::i64(0)}),
                     bufs, parallel_opts());
  auto out = contents<int64_t>(bufs[1]);
  for (int64_t g = 0; g < 3; ++g) {
    int64_t want = 0;
    for (int64_t j = 0; j < 1000; ++j) want += 2 * (g * 1000 + j);
    CHECK(out[size_t(g)] == want);
  }
  // One element past the end: the general path's error, not a read out of bounds.
  std::vector<BufferPtr> small = {buffer(Prim::I64, std::vector<int64_t>(3000, 1)),
                                  std::make_shared<Buffer>(Prim::I64, 3000)};
  for (auto kind : {StepKind::SegRed, StepKind::SegScan})
    CHECK_THROWS_AS(host::execute_step(make_step(kind, sh, read_at(Prim::I64, sh.size, 1),
                                                 testutil::binop_fn(BinOp::Add, Prim::I64), {Scalar::i64(0)}),
                                       small, serial_opts()),
                    Error);
}
