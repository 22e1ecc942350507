// Forward mode of the map rule for element functions over arrays
// (interp/eval/ad_fwd.cpp): jvp of maps whose mapped function takes rows,
// contains SOACs or is a partial application of a named function runs on
// the plans (no "runs on the reference tape" line in the plan log) and
// agrees with the reference backend's tape.
#include <doctest/doctest.h>

#include <string>

#include "backend_pair.hpp"

using namespace thorn;

namespace {

using testutil::same;
using testutil::has;

const char* kData =
    "let xs = tabulate_2d 1000 4 (\\i j -> f64.i64 ((i * 7 + j * 3) % 11) / 11) "
    "let ys = map (\\x -> x[0] * 2 + x[1] - x[3]) xs ";

const char* kDot = "let dot = \\(xs: []f64) (ys: []f64) -> f64.sum (map2 (*) xs ys) ";

}  // namespace

TEST_CASE("ad: jvp of a least-squares loss over the rows of a matrix (gradient descent) stays on the plans") {
  std::string log = same(std::string(kData) +
                         "in jvp (\\w -> f64.sum (map2 (\\x y -> let p = f64.sum (map2 (*) w x) in (p - y) * (p - y)) xs ys)) "
                         "[0.5, 0.25, 1, 2] [0.5, -1, 2, 0.25]");
  CHECK(!has(log, "runs on the reference tape"));
  CHECK(has(log, "plan at"));
  // The rows carry the tangent, with a branch and an index of the row.
  log = same(std::string(kData) +
             "in jvp (\\xs -> f64.sum (map2 (\\x y -> let p = f64.sum (map2 (*) [1, 2, 3, 4] x) "
             "in (if x[0] > 0.5 then f64.sin p else p * x[1]) * y) xs ys)) xs (map (map (* 0.5)) xs)");
  CHECK(!has(log, "runs on the reference tape"));
}

TEST_CASE("ad: jvp of nested maps (matrix product, matrix-vector product, gemm)") {
  std::string pre = std::string(kDot) +
                    "let a = tabulate_2d 5 3 (\\i j -> f64.i64 (i * 3 + j) / 7) "
                    "let b = tabulate_2d 4 3 (\\i j -> f64.i64 (i + j * 5) / 5) "
                    "let da = tabulate_2d 5 3 (\\i j -> f64.i64 ((i + j) % 3) - 1) "
                    "let db = tabulate_2d 4 3 (\\i j -> f64.i64 ((i * j) % 4) / 2) ";
  std::string log = same(pre + "in jvp (\\(a, b) -> map (\\x -> map (dot x) b) a) (a, b) (da, db)");
  CHECK(!has(log, "runs on the reference tape"));
  // matvec as a partial application over the active matrix.
  log = same(pre + "let matvec (m: [][]f64) (v: []f64) = map (dot v) m "
                   "in jvp (\\(a, v) -> matvec a v) (a, [1, 2, 3]) (da, [0.5, -1, 0.25])");
  CHECK(!has(log, "runs on the reference tape"));
  // gemm: a captured matrix, transposed, and a captured scalar.
  log = same(std::string(kDot) +
             "let a = tabulate_2d 5 3 (\\i j -> f64.i64 (i * 3 + j) / 7) "
             "let b = tabulate_2d 3 4 (\\i j -> f64.i64 (i + j * 5) / 5) "
             "let c = tabulate_2d 5 4 (\\i j -> f64.i64 ((i * 2 + j) % 3)) "
             "let da = tabulate_2d 5 3 (\\i j -> f64.i64 ((i + j) % 3) - 1) "
             "in jvp (\\(xss, yss, css, s) -> map2 (\\xs cs -> map2 (\\ys c -> c * s + 0.7 * dot xs ys) (transpose yss) cs) xss css) "
             "(a, b, c, 0.5) (da, b, c, 1.5)");
  CHECK(!has(log, "runs on the reference tape"));
}

TEST_CASE("ad: jvp of a mapped function over arrays without a rule still falls back, with its reason") {
  std::string log = same(std::string(kData) + "in jvp (\\w -> f64.sum (map2 (\\x y -> f64.sum (scan (+) 0 (map2 (*) w x)) - y) xs ys)) [0.5, 0.25, 1, 2] [1, 0, 0, 0]");
  CHECK(has(log, "runs on the reference tape: scan"));
}
