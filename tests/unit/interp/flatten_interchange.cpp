// Loop interchange of a map around a loop (interp/flatten/interchange.hpp):
// the plan says which way it went and why, and both ways agree with the
// reference backend (the host session validates every call).
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "backend_pair.hpp"
#include "interp/eval/session.hpp"
#include "interp/eval/value_ops.hpp"
#include "interp/exec/host_backend.hpp"
#include "interp/exec/host_pool.hpp"
#include "interp/exec/host_program.hpp"

using namespace thorn;

namespace {

// Evaluates on both backends, checks the value; returns the plan log.
std::string plans(const std::string& expr, const std::string& expected) {
  testutil::eval_both(expr, &expected);
  return testutil::backend_pair().log;
}

}  // namespace

TEST_CASE("interchange: a narrow map around a loop with an inner reduce is interchanged") {
  std::string log = plans(
      "let xss = [[1i64, 2, 3], [4, 5, 6]] in "
      "map (\\xs -> loop acc = 0i64 for i < 4 do acc * 2 + reduce (+) 0 (map (\\x -> x * i) xs)) xss",
      "[66i64, 165i64]");
  CHECK(log.find("loop interchanged") != std::string::npos);
  CHECK(log.find("inner parallelism (reduce)") != std::string::npos);
  CHECK(log.find("4 iterations, each one flattened map over 2 elements") != std::string::npos);
}

TEST_CASE("interchange: kept sequential without inner parallelism, or when the trip count varies") {
  std::string log = plans("map (\\x -> loop acc = x for i < 3 do acc * 2 + i) [1i64, 2, 3]", "[12i64, 20i64, 28i64]");
  CHECK(log.find("loop kept sequential inside each element (the loop body has no inner parallelism)") !=
        std::string::npos);
  log = plans("let ys = [1i64, 2] in map (\\x -> loop acc = 0i64 for i < x do acc + reduce (+) 0 (map (+i) ys)) [1i64, 3]",
              "[3i64, 15i64]");
  CHECK(log.find("its trip count depends on the element") != std::string::npos);
  CHECK(log.find("loop interchanged") == std::string::npos);
}

TEST_CASE("interchange: a map wider than the lanes stays sequential") {
  std::string log = plans("let ys = [1i64, 1] in i64.sum (map (\\x -> loop acc = x for i < 2 do acc + reduce (+) 0 (map (*(i*x)) ys)) (iota 5000))",
                          "37492500i64");
  if (host::ThreadPool::instance().size() * host::kLanes <= 5000)
    CHECK(log.find("loop kept sequential inside each element (outer size 5000 fills") != std::string::npos);
}
