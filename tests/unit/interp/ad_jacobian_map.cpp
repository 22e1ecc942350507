// jvp2/vjp2 inside a mapped function (interp/flatten/lower_ad.cpp): a
// Jacobian computed as a map of jvp or vjp over one-hot seeds is one plan
// (no "runs on the reference backend" for the map), array literals in the
// differentiated function have rules (no "runs on the reference tape"),
// and the results agree with the reference backend's tape.
#include <doctest/doctest.h>

#include <string>

#include "backend_pair.hpp"

using namespace thorn;

namespace {

using testutil::same;
using testutil::has;

const char* kDefs =
    "let onehot n (i: i64) : [n]f64 = tabulate n (\\j -> f64.bool (i == j)) "
    "let bellman (x: [2]f64) : [2]f64 = [f64.sqrt x[1], f64.sqrt (1 - x[0] ** 2)] "
    "let squash [n] (x: [n]f64) : [n]f64 = let s = f64.sum (map (\\a -> a * a) x) in map (\\a -> a / (1 + s)) x "
    "let stack (c: f64) (x: [2]f64) : [3][2]f64 = [x, map (* c) x, [x[0] * x[1], c]] "
    "let iter (x: [2]f64) : [2]f64 = loop y = x for i < 3 do [y[0] * y[1] + f64.i64 i, f64.sin y[0]] ";

}  // namespace

TEST_CASE("ad: a Jacobian as tabulate of jvp/vjp over one-hot seeds is flattened") {
  for (const char* e : {"in tabulate 2 (jvp bellman [0.5, 0.25] <-< onehot 2)",
                        "in tabulate 2 (vjp bellman [0.5, 0.25] <-< onehot 2)",
                        "in tabulate 3 (jvp squash [1, 2, 0.5] <-< onehot 3)",
                        "in tabulate 3 (vjp squash [1, 2, 0.5] <-< onehot 3)",
                        "in tabulate 2 (jvp (stack 2) [3, 5] <-< onehot 2)",
                        "in tabulate 2 (jvp iter [0.5, 1.5] <-< onehot 2)"}) {
    std::string log = same(std::string(kDefs) + e);
    INFO(std::string(e) << "\n" << log);
    CHECK(!has(log, "runs on the reference"));
    CHECK((has(log, "plan at") || has(log, "delayed map")));  // delayed: fused into its consumer
  }
}

TEST_CASE("ad: a map of jvp/vjp over given seeds is flattened") {
  for (const char* e : {"in map (\\v -> jvp bellman [0.5, 0.25] v) [[1, 0], [0, 1], [0.5, 2]]",
                        "in map (\\v -> vjp bellman [0.5, 0.25] v) [[1, 0], [0, 1], [0.5, 2]]",
                        "in map (\\v -> (jvp2 squash [1, 2, 0.5] v).1) [[1, 0, 0], [0, 1, 3]]",
                        "in map (\\s -> vjp (stack 2) [3, 5] s) [[[1, 0], [0, 0], [0, 1]], [[0, 0], [2, 1], [0, 0]]]"}) {
    std::string log = same(std::string(kDefs) + e);
    INFO(std::string(e) << "\n" << log);
    CHECK(!has(log, "runs on the reference"));
  }
}

TEST_CASE("ad: an array literal in a differentiated function has forward and reverse rules") {
  for (const char* e : {"in jvp bellman [0.5, 0.25] [1, 2]", "in vjp bellman [0.5, 0.25] [1, 2]",
                        "in jvp (stack 2) [3, 5] [1, -1]", "in vjp (stack 2) [3, 5] [[1, 2], [3, 4], [5, 6]]"}) {
    std::string log = same(std::string(kDefs) + e);
    INFO(std::string(e) << "\n" << log);
    CHECK(!has(log, "runs on the reference tape"));
  }
}

TEST_CASE("ad: a derivative in a mapped function that cannot be generated falls back, with its reason") {
  // A function of a nested pair: the transformations take tuples of
  // floats, not tuples of tuples. (At a point that differs per element: at
  // one point for every element the map is a Jacobian, map_jacobian.cpp.)
  std::string log = same(std::string(kDefs) +
                         "in map (\\v -> jvp (\\((a, b), c) -> a * b * c) ((v, 3.0), 1.0) ((v, 1 - v), 0.0)) [0.0, 0.5, 1]");
  CHECK(has(log, "inside a mapped function"));
}

TEST_CASE("ad: a gather of a captured active array at a literal index (typed i32) keeps its rule") {
  // `x[0]` in the mapped lambda: the gather site's position is widened to i64.
  for (const char* e : {"vjp (\\(x: [3]f64) -> map (\\a -> a * a * x[0]) x) [1, 2, 3] [1, 0.5, 2]",
                        "jvp (\\(x: [3]f64) -> map (\\a -> a * a * x[0]) x) [1, 2, 3] [1, 0.5, 2]"}) {
    std::string log = same(e);
    INFO(std::string(e) << "\n" << log);
    CHECK(!has(log, "runs on the reference tape"));
  }
}

TEST_CASE("ad: a derivative whose code loops is stored once per row, not recomputed per entry") {
  // squash's tangent sums over x: read by flatten entry by entry, a delayed
  // row would run that sum again for every entry.
  std::string log = same(std::string(kDefs) + "in f64.sum (flatten (tabulate 3 (jvp squash [1, 2, 0.5] <-< onehot 3)))");
  CHECK(has(log, "rows built once each"));
  CHECK(!has(log, "runs on the reference"));
}
