// The map rule for element functions over arrays (interp/eval/ad_rev.cpp):
// vjp of maps whose mapped function takes rows, contains SOACs or is a
// partial application of a named function runs on the plans (no "runs on
// the reference tape" line in the plan log) and agrees with the reference
// backend's tape.
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

}  // namespace

TEST_CASE("ad: vjp of a least-squares loss over the rows of a matrix (gradient descent) stays on the plans") {
  std::string log = same(std::string(kData) +
                         "in vjp (\\w -> f64.sum (map2 (\\x y -> let p = f64.sum (map2 (*) w x) in (p - y) * (p - y)) xs ys)) "
                         "[0.5, 0.25, 1, 2] 1");
  CHECK(!has(log, "runs on the reference tape"));
  CHECK(has(log, "plan at"));
  // The rows themselves carry the derivative (each row's adjoint is a row).
  log = same(std::string(kData) + "in vjp (\\xs -> f64.sum (map2 (\\x y -> let p = f64.sum (map2 (*) [1, 2, 3, 4] x) in f64.sin p * y) xs ys)) xs 1");
  CHECK(!has(log, "runs on the reference tape"));
}

TEST_CASE("ad: vjp of nested maps (matrix product, a partial application over an active matrix)") {
  std::string log = same(
      "let dot = \\(xs: []f64) (ys: []f64) -> f64.sum (map2 (*) xs ys) "
      "let a = tabulate_2d 5 3 (\\i j -> f64.i64 (i * 3 + j) / 7) "
      "let b = tabulate_2d 4 3 (\\i j -> f64.i64 (i + j * 5) / 5) "
      "let r = tabulate_2d 5 4 (\\i j -> f64.i64 ((i + j) % 3)) "
      "in vjp (\\(a, b) -> map (\\x -> map (dot x) b) a) (a, b) r");
  CHECK(!has(log, "runs on the reference tape"));
  // gemm: a captured matrix, transposed, and a captured scalar.
  log = same(
      "let dot = \\(xs: []f64) (ys: []f64) -> f64.sum (map2 (*) xs ys) "
      "let a = tabulate_2d 5 3 (\\i j -> f64.i64 (i * 3 + j) / 7) "
      "let b = tabulate_2d 3 4 (\\i j -> f64.i64 (i + j * 5) / 5) "
      "let c = tabulate_2d 5 4 (\\i j -> f64.i64 ((i * 2 + j) % 3)) "
      "let r = tabulate_2d 5 4 (\\i j -> f64.i64 ((i + j) % 4)) "
      "in vjp (\\(xss, yss, css, s) -> map2 (\\xs cs -> map2 (\\ys c -> c * s + 0.7 * dot xs ys) (transpose yss) cs) xss css) "
      "(a, b, c, 0.5) r");
  CHECK(!has(log, "runs on the reference tape"));
}

TEST_CASE("ad: a mapped function over arrays without a rule still falls back, with its reason") {
  std::string log = same(std::string(kData) + "in vjp (\\w -> f64.sum (map2 (\\x y -> f64.sum (scan (+) 0 (map2 (*) w x)) - y) xs ys)) [0.5, 0.25, 1, 2] 1");
  CHECK(has(log, "runs on the reference tape: scan"));
}

TEST_CASE("ad: a map of a partial application over a function that captures active values is not taken as constant") {
  // tabulate_2d maps `f >-> tabulate m`: which of its arguments carry
  // derivatives is unknown there, so it must fall back (it once gave 0).
  std::string log = same("vjp (\\(x: [8]f64) -> map f64.sum (tabulate_2d 4 4 (\\k j -> x[k + j] * x[j]))) "
                         "[1, 2, 3, 4, 5, 6, 7, 8f64] [1, 0, 0, 0]");
  CHECK(has(log, "runs on the reference tape"));
}
