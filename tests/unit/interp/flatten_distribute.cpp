// Map distribution (interp/flatten/distribute.hpp): the plan says which way
// a narrow map with inner parallelism went and why, and every way agrees
// with the reference backend (the host session validates every call).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "backend_pair.hpp"
#include "interp/exec/host_pool.hpp"
#include "interp/exec/host_program.hpp"

using namespace thorn;

namespace {

std::string plans(const std::string& expr, const std::string& expected) {
  testutil::eval_both(expr, &expected);
  return testutil::backend_pair().log;
}

bool has(const std::string& log, const std::string& what) { return log.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("distribution: a narrow map of lets runs one map per let, each its own step") {
  testutil::ForceDistribute always("always");
  std::string log = plans(
      "let xss = [[1i64, 2, 3, 4], [5, 6, 7, 8]] in "
      "map (\\xs -> let s = i64.sum xs let ys = scan (+) 0 (map (*s) xs) in ys[3] - s) xss",
      "[90i64, 650i64]");
  CHECK(has(log, "distributed (THORN_DISTRIBUTE=always)"));
  CHECK(has(log, "3 maps, one per let (sum, scan, scalar code)"));
  CHECK(has(log, "map-reduce flattened to one SegRed over [2][4]"));
  CHECK(has(log, "map-scan flattened to one SegScan over [2][4]"));
}

TEST_CASE("distribution: a user function's body of lets, and a map of a map") {
  testutil::ForceDistribute always("always");
  std::string log = plans(
      "let f [n] (xs: [n]i64) = let ys = scan (+) 0 xs in map (\\i -> ys[n - 1 - i]) (iota n) in "
      "map (\\xs -> f xs) [[1i64, 2, 3], [4, 5, 6]]",
      "[[6i64, 3i64, 1i64], [15i64, 9i64, 4i64]]");
  CHECK(has(log, "distributed"));
  CHECK(has(log, "map-scan flattened to one SegScan over [2][3]"));
  log = plans(
      "map (\\xss -> map (\\xs -> let s = scan (+) 0 xs in s[2] * 2) xss) [[[1i64, 2, 3], [4, 5, 6]], [[7i64, 8, 9], [1, 1, 1]]]",
      "[[12i64, 30i64], [48i64, 6i64]]");
  CHECK(has(log, "map of map over [2][2]: 2 inner maps as one map of 4 elements"));
  CHECK(has(log, "map-scan flattened to one SegScan over [4][3]"));
}

TEST_CASE("distribution: irregular intermediates stay sequential") {
  testutil::ForceDistribute always("always");
  std::string log = plans(
      "let zs = [3i64, 4, 6, 8, 10] in map (\\x -> let ys = filter (> x) zs in length ys + i64.sum ys) [1i64, 5, 9]",
      "[36i64, 27i64, 11i64]");
  // filter's result has a size no name gives and which may differ between
  // elements: seen in its type, before anything runs.
  CHECK_FALSE(has(log, ": distributed"));
  CHECK(has(log, "has a size that may differ between elements)"));
  // A call's argument mapped per element (call_of) is irregular only when
  // it runs: the distribution stops there, the map runs undistributed, and
  // the same body is not tried again.
  log = plans(
      "let zs = [3i64, 4, 6, 8, 10] in "
      "let g (ys: []i64) = let s = i64.sum ys in map (+s) ys |> i64.sum in "
      "loop acc = 0i64 for i < 2 do acc + (map (\\x -> g (filter (> x) zs)) [1i64, 5, 9 + i])[2]",
      "20i64");
  CHECK(has(log, "not distributed (an intermediate result is irregular)"));
  CHECK(has(log, "not distributed (an intermediate result was irregular at an earlier call)"));
}

TEST_CASE("distribution: a pipeline's stages are distributed like lets") {
  testutil::ForceDistribute always("always");
  std::string log = plans(
      "map (\\xs -> xs |> map (*2) |> scan (+) 0 |> map (+1)) [[1i64, 2, 3], [4, 5, 6]]",
      "[[3i64, 7i64, 13i64], [9i64, 19i64, 31i64]]");
  CHECK(has(log, "3 maps, one per let (map, scan, map)"));
  CHECK(has(log, "map-scan flattened to one SegScan over [2][3]"));
}

TEST_CASE("distribution: lets whose sizes the types leave unknown are distributed") {
  // xs's size is `[]` in the lambda's type, as is every let's: the same in
  // every element, as in most real programs' narrow maps.
  testutil::ForceDistribute always("always");
  std::string log = plans(
      "let g (xs: []f64) = let a = map (*2) xs let b = scan (+) 0 a in map (+1) b in "
      "map (\\xs -> g xs) [[1.0, 2, 3], [4, 5, 6]]",
      "[[3.0f64, 7.0f64, 13.0f64], [9.0f64, 19.0f64, 31.0f64]]");
  CHECK(has(log, "3 maps, one per let (map, scan, map)"));
}

TEST_CASE("distribution: chosen when the elements are fewer than the host's lanes") {
  size_t threads = host::ThreadPool::instance().size();
  std::string log = plans("map (\\xs -> let s = i64.sum xs in scan (+) s xs) [[1i64, 2, 3]]", "[[7i64, 9i64, 12i64]]");
  CHECK(has(log, "distributed (outer size 1 < " + std::to_string(threads * host::kLanes) + " lanes of " +
                     std::to_string(threads) + " threads"));
  log = plans("let r = map (\\x -> let ys = map (+x) [1i64, 2] in i64.sum ys) (iota 5000) in i64.sum r",
              "25010000i64");
  if (threads * host::kLanes <= 5000) CHECK(has(log, "kept sequential inside each element (outer size 5000 fills"));
  testutil::ForceDistribute never("never");
  log = plans("map (\\xs -> let s = i64.sum xs in scan (+) s xs) [[1i64, 2, 3]]", "[[7i64, 9i64, 12i64]]");
  CHECK(has(log, "kept sequential inside each element (THORN_DISTRIBUTE=never)"));
}

TEST_CASE("distribution: an if with parallel branches splits the elements") {
  testutil::ForceDistribute always("always");
  std::string log = plans(
      "map2 (\\xs k -> if k > 0 then scan (+) 0 xs else map (* 2) xs) [[1i64, 2], [3, 4], [5, 6]] [1i64, 0, 1]",
      "[[1i64, 3i64], [6i64, 8i64], [5i64, 11i64]]");
  CHECK(has(log, "if with parallel branches: 2 elements take the then branch, 1 the else branch, each one map"));
  CHECK(has(log, "map-scan flattened to one SegScan over [2][2]"));
}

TEST_CASE("flattening: a row's private arrays before its SOAC are built once per row, not per element") {
  testutil::ForceDistribute never("never");
  // The inner map has a loop per element, so it is materialised into
  // private arrays; a segmented step would build them again in each of the
  // row's elements.
  std::string log = plans(
      "map (\\r -> let q = map (\\x -> loop a = x for i < 10 do a * 3 % 1001) r in i64.sum (map (+1) q)) "
      "(unflatten (iota 600) : [20][30]i64)",
      "[24709i64, 16710i64, 7710i64, 17729i64, 19740i64, 10740i64, 10749i64, 22770i64, 13770i64, 4770i64, 24799i64, 16800i64, 7800i64, 17819i64, 19830i64, 10830i64, 10839i64, 22860i64, 13860i64, 4860i64]");
  CHECK(has(log, "rows built once each"));
  CHECK_FALSE(has(log, "SegRed [20][30]"));
  // Without private arrays the segmented step stays.
  log = plans("map (\\r -> i64.sum (map (\\x -> x * 3 % 1001) r)) (unflatten (iota 600) : [20][30]i64)",
              "[1305i64, 4005i64, 6705i64, 9405i64, 12105i64, 14805i64, 17505i64, 20205i64, 22905i64, 25605i64, 28305i64, 4979i64, 3675i64, 6375i64, 9075i64, 11775i64, 14475i64, 17175i64, 19875i64, 22575i64]");
  CHECK(has(log, "SegRed [20][30]"));
}

TEST_CASE("distribution: an array every element's inner map reads alike is read in place, not copied per element") {
  testutil::ForceDistribute always("always");
  // B is the same for both rows of A: the flattened inner map reads it
  // through a cyclic view (repeat_whole) instead of two copies of it.
  std::string log = plans(
      "let B = [[1i64, 2], [3, 4], [5, 6]] in map (\\a -> map (\\b -> i64.sum (map2 (*) a b)) B) [[1i64, 1], [2, 0]]",
      "[[3i64, 7i64, 11i64], [2i64, 6i64, 10i64]]");
  CHECK(has(log, "map of map over [2][3]"));
  CHECK(has(log, "repeat_whole"));
}

TEST_CASE("distribution: on the host a product's map of maps with rows enough for every thread keeps its inner map") {
  const int64_t threads = int64_t(host::ThreadPool::instance().size());
  const int64_t n = threads * 8;
  // Rows by columns run row by row (tiled): distributing would only add
  // index arithmetic. Only an inner map that reduces is kept: rows of
  // scalar code are built one per element, which runs best distributed.
  const std::string rows = fmt::format("(map (\\i -> [i, 1]) (iota {}))", n);
  std::string log = plans("let B = [[1i64, 2], [3, 4], [5, 6]] in map (\\a -> map (\\b -> i64.sum (map2 (*) a b)) B) " +
                              rows + " |> map i64.sum |> i64.sum",
                          fmt::format("{}i64", 9 * n * (n - 1) / 2 + 12 * n));
  CHECK(has(log, fmt::format("inner map of reductions kept inside each element (outer size {} gives each of {} host threads 8 rows",
                             n, threads)));
  log = plans(fmt::format("map (\\a -> map (\\b -> a * b + 1) (iota 3)) (iota {}) |> map i64.sum |> i64.sum", n),
              fmt::format("{}i64", 3 * n * (n - 1) / 2 + 3 * n));
  CHECK_FALSE(has(log, "kept inside each element"));
}

TEST_CASE("distribution: a partial application of a function of lets is distributed like a lambda") {
  testutil::ForceDistribute always("always");
  std::string log = plans(
      "let f (k: i64) (xs: []i64) = let s = i64.sum xs in map (\\x -> x * k + s) xs in map (f 2) [[1i64, 2, 3], [0, 0, 1]]",
      "[[8i64, 10i64, 12i64], [1i64, 1i64, 3i64]]");
  CHECK(has(log, "distributed (THORN_DISTRIBUTE=always)"));
  CHECK(has(log, "map-reduce flattened to one SegRed over [2][3]"));
}

TEST_CASE("flattening: a map over few rows whose elements need more than 64 KiB of private arrays") {
  testutil::ForceDistribute never("never");
  // Each element updates its own copy of a 10,000-element row (80 KB): the
  // host runs such a SegMap in narrower tiles instead of the reference.
  std::string log = plans(
      "map (\\r -> let a = loop a = copy r for i < 3 do a with [i * 7] = a[i * 7] * 2 in i64.sum a) "
      "(unflatten (iota 20000) : [2][10000]i64)",
      "[49995021i64, 150025021i64]");
  CHECK_FALSE(has(log, "private arrays of more than"));
  CHECK_FALSE(has(log, "reference backend"));
}

TEST_CASE("distribution: a narrow map whose only inner parallelism is a loop without SOACs is not split") {
  // One map per let would run the same sequential loop in one of them:
  // more calls and intermediate arrays, no more parallelism.
  std::string log = plans(
      "let xss = [[1i64, 2, 3, 4], [5, 6, 7, 8]] in "
      "map (\\xs -> let a = xs[0] * 2 "
      "             let b = loop acc = a for i < 4 do acc + xs[i] * i "
      "             in a + b) xss",
      "[24i64, 64i64]");
  CHECK(has(log, "not distributed (outer size 2 <"));
  CHECK(has(log, "loops without SOACs"));
  // A SOAC inside the loop is parallelism: that body is still distributed.
  log = plans(
      "let xss = [[1i64, 2, 3, 4], [5, 6, 7, 8]] in "
      "map (\\xs -> let a = xs[0] * 2 "
      "             let b = loop acc = a for i < 2 do acc + i64.sum (map (* i) xs) "
      "             in a + b) xss",
      "[14i64, 46i64]");
  CHECK(!has(log, "loops without SOACs"));
  CHECK(has(log, "distributed (outer size 2 <"));
}
