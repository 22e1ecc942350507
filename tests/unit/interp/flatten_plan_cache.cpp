// The flattener's plan cache (interp/flatten/planner_cache.hpp): a reduce
// or scan in a loop is planned once; a change of shape, offset or neutral
// element is a miss; a hit runs on the new call's data. Every expression is
// evaluated by the host backend under --validate (each call also checked
// against the reference backend) and by the reference backend, compared.
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "backend_pair.hpp"
#include "interp/eval/session.hpp"
#include "interp/eval/value_ops.hpp"
#include "interp/exec/host_backend.hpp"
#include "interp/flatten/planner_cache.hpp"

using namespace thorn;

namespace {

struct Delta {
  uint64_t hits = 0, misses = 0;
};

// Evaluates `expr` on both backends; returns the host run's cache hits and misses.
Delta same(const std::string& expr, const std::string& expected) {
  flatten::PlanCacheStats before = flatten::plan_cache().stats();
  testutil::eval_both(expr, &expected);  // the reference run plans nothing
  flatten::PlanCacheStats after = flatten::plan_cache().stats();
  return {after.hits - before.hits, after.misses - before.misses};
}

}  // namespace

TEST_CASE("plan cache: a reduce in a loop is planned once and runs on each call's data") {
  REQUIRE(flatten::plan_cache_enabled());
  Delta d = same("loop acc = 0i64 for i < 10 do acc + reduce (+) 0 [i, 2*i, 3]", "165i64");
  CHECK(d.misses == 1);
  CHECK(d.hits == 9);
  CHECK(testutil::backend_pair().log.find("(this call: cached plan)") != std::string::npos);
  // A tuple-free scan, its array result rebuilt from the cached plan's fresh outputs.
  d = same("loop acc = 0i32 for i < 5 do acc + (scan (*) 1 [i32.i64 i + 1, 2, 3])[2]", "90i32");
  CHECK(d.misses == 1);
  CHECK(d.hits == 4);
}

TEST_CASE("plan cache: a prelude operator that forwards to an intrinsic is cached") {
  Delta d = same("loop acc = 0i64 for i < 6 do acc + reduce i64.max i64.lowest [i, 5 - i]", "24i64");
  CHECK(d.misses == 1);
  CHECK(d.hits == 5);
}

TEST_CASE("plan cache: a change of shape, offset or neutral element misses") {
  // Shape: a slice of growing length.
  Delta d = same("let xs = [1i64, 2, 3, 4, 5] in loop acc = 0i64 for i < 4 do acc + reduce (+) 0 xs[0:i+1]", "20i64");
  CHECK(d.misses == 4);
  CHECK(d.hits == 0);
  // Offset: a window of fixed length moving over the array (offsets are
  // constants in the kernel IR).
  d = same("let xs = [1i64, 2, 3, 4, 5] in loop acc = 0i64 for i < 3 do acc + reduce (+) 0 xs[i:i+2]", "15i64");
  CHECK(d.misses == 3);
  CHECK(d.hits == 0);
  // The neutral element (a plan constant); a true neutral element of max
  // (Futhark leaves reduce with a non-neutral one unspecified).
  d = same("loop acc = 0i64 for i < 6 do acc + reduce i64.max i [3, 1]", "21i64");
  CHECK(d.misses == 6);
  CHECK(d.hits == 0);
  // The same values again, at the same call site: hits. (Each REPL input
  // is a new source, so its calls are new call sites.)
  d = same("let f (k: i64) = loop acc = k for i < 6 do acc + reduce i64.max i [3, 1] in f 0 + f 1", "43i64");
  CHECK(d.misses == 6);
  CHECK(d.hits == 6);
}

TEST_CASE("plan cache: lambdas capturing scalars are not cached, and stay correct") {
  Delta d = same("loop acc = 0i64 for i < 4 do acc + reduce (\\a b -> a + b + i) 0 [1, 2, 3]", "42i64");
  CHECK(d.misses == 0);
  CHECK(d.hits == 0);
}

TEST_CASE("plan cache: a map capturing a changing scalar is planned once, its value a parameter") {
  // `c` and `i` change every iteration: lifted into parameters, so every
  // later call is a hit, and each gets its own values (not the first's).
  Delta d = same("let xs = [1i64, 2, 3] in loop acc = 0i64 for i < 8 do let c = i % 3 in acc + (map (\\x -> x * c + i) xs)[2]",
                 "49i64");
  CHECK(d.misses == 1);
  CHECK(d.hits == 7);
  CHECK(testutil::backend_pair().log.find("(this call: cached plan)") != std::string::npos);
  // The outer size is a parameter too: a growing input still hits.
  d = same("let xs = iota 10 in loop acc = 0i64 for i < 6 do acc + (map (\\x -> x + i) (copy xs[0:i+1]))[i]", "30i64");
  CHECK(d.misses == 1);
  CHECK(d.hits == 5);
}

TEST_CASE("plan cache: a map building rows once each is cached, also over a delayed input") {
  // A tuple with an array component: a SegMap with one element per row
  // (map_rows). `i` changes every iteration: a parameter of the cached step.
  Delta d = same("let xss = [[1i64, 2, 3], [4, 5, 6]] in loop acc = 0i64 for i < 5 do "
                 "let (a, b) = unzip (map (\\xs -> (xs[0] + i, map (+i) xs)) xss) in acc + a[1] + b[1][2]",
                 "70i64");
  CHECK(d.misses == 1);
  CHECK(d.hits == 4);
  CHECK(testutil::backend_pair().log.find("(this call: cached plan)") != std::string::npos);
  // Its input a delayed map (fused as code, which no key holds): the call
  // site materialises it from then on, and its plan is cached. The inner
  // map is cached as well: 2 misses, 8 hits.
  d = same("let xss = [[1i64, 2, 3], [4, 5, 6]] in loop acc = 0i64 for i < 5 do "
           "let yss = map (\\xs -> map (*2) xs) xss "
           "let (a, b) = unzip (map (\\xs -> (xs[0] + i, map (+i) xs)) yss) in acc + a[1] + b[1][2]",
           "120i64");
  CHECK(d.misses == 2);
  CHECK(d.hits == 8);
}

TEST_CASE("guessed bounds: a costly map over a length each element computes is stored, and the bound grows") {
  // ys has x elements, x per element with no bound known when the nest
  // starts; its element is a loop (costly). The first guess (16) is
  // outgrown by x = 40 and x = 100: the planner retries with 128, which
  // holds them, and says so. ys[i] = 8i + 7x.
  same("map (\\x -> let ys = map (\\i -> loop acc = i for _j < 3 do acc * 2 + x) (iota x) "
       "in (i64.sum ys, [ys[0], ys[x - 1]])) [1i64, 40, 100]",
       "[(7i64, [7i64, 7i64]), (17440i64, [280i64, 592i64]), (109600i64, [700i64, 1492i64])]");
  CHECK(testutil::backend_pair().log.find("guessed bound of 128 elements") != std::string::npos);
}

TEST_CASE("plan cache: captures found through partial applications and local functions") {
  // A top-level-style function partially applied to the changing value.
  Delta d = same("let f (k: i64) (x: i64) = x * k + 1 in let xs = [1i64, 2] in "
                 "loop acc = 0i64 for i < 5 do acc + (map (f i) xs)[1]",
                 "25i64");
  CHECK(d.misses == 1);
  CHECK(d.hits == 4);
  // A local closure capturing the loop variable, called from the lambda.
  d = same("let xs = [3i64, 4] in loop acc = 0i64 for i < 5 do let g = \\y -> y - i in acc + (map (\\x -> g x * 2) xs)[0]",
           "10i64");
  CHECK(d.misses == 1);
  CHECK(d.hits == 4);
  // A captured array that changes: rebound, not stale.
  d = same("loop acc = 0i64 for i < 4 do let ys = [i, i + 1] in acc + (map (\\x -> ys[1] + x) [10i64])[0]", "50i64");
  CHECK(d.misses == 1);
  CHECK(d.hits == 3);
}

TEST_CASE("plan cache: a captured value that changes type or shape is a miss, not a stale plan") {
  // The same call site, its capture an array of another length: the plan
  // (its bounds check) depends on the shape, so the second call replans.
  Delta d = same("let f (ys: []i64) = (map (\\x -> x + ys[length ys - 1]) [1i64, 2])[1] in f [1, 2] + f [4, 5] + f [1, 2, 3]",
                 "16i64");
  CHECK(d.misses == 2);
  CHECK(d.hits == 1);
}

TEST_CASE("plan cache: bounded, least recently used out") {
  flatten::PlanCache c;
  auto p = std::make_shared<flatten::CachedPlan>();
  c.insert("k0", p);
  c.insert("k1", p);
  CHECK(c.find("k0") != nullptr);  // k0 is now more recent than k1
  for (size_t k = 2; k < flatten::PlanCache::kMaxEntries + 1; ++k) c.insert("k" + std::to_string(k), p);
  flatten::PlanCacheStats s = c.stats();
  CHECK(s.evictions == 1);
  CHECK(s.entries == flatten::PlanCache::kMaxEntries);
  CHECK(c.find("k1") == nullptr);
  CHECK(c.find("k0") != nullptr);
  CHECK(c.find("k" + std::to_string(flatten::PlanCache::kMaxEntries)) != nullptr);
}

TEST_CASE("plan cache: an entry keeps its code anchor alive until evicted") {
  flatten::PlanCache c;
  auto p = std::make_shared<flatten::CachedPlan>();
  auto anchor = std::make_shared<int>(1);
  std::weak_ptr<int> watch = anchor;
  c.set_anchor(anchor);
  c.insert("a", p);
  c.set_anchor(nullptr);
  anchor.reset();
  CHECK(!watch.expired());
  for (size_t k = 0; k < flatten::PlanCache::kMaxEntries; ++k) c.insert("k" + std::to_string(k), p);
  CHECK(watch.expired());
}

TEST_CASE("plan cache: a map called again with small delayed inputs copies them and is cached") {
  // `transpose m` is delayed: the first call fuses it into the map's
  // element (no key can hold it); from the second call on the input is
  // copied out and the plan is cached (rodinia/cfd's time loop).
  Delta d = same(
      "let m = [[1f32, 2, 3], [4, 5, 6]] in "
      "loop acc = 0f32 for i < 5 do acc + f32.sum (map (\\r -> r[0] * 2 + r[1] + f32.i64 i) (transpose m))",
      "165.0f32");
  CHECK(d.hits >= 3);
}

TEST_CASE("plan cache: a map capturing a small delayed array is cached from its second call") {
  // `t` (a transpose, delayed) is captured, not an input: the capture's
  // signature copies it at a site that was planned before.
  Delta d = same(
      "let m = [[1i64, 2, 3], [4, 5, 6]] in "
      "loop acc = 0i64 for i < 6 do "
      "  let t = transpose m in "
      "  acc + (map (\\k -> t[k % 3, 1] * k + i) [0i64, 1, 2, 3])[3]",
      "87i64");
  CHECK(d.hits >= 4);
}

TEST_CASE("plan cache: a site is hot from its second call within one anchor") {
  flatten::PlanCache c;
  CHECK(!c.hot_site("s"));
  CHECK(c.hot_site("s"));
  CHECK(c.hot_site("s"));
  CHECK(!c.hot_site("t"));
  // A new anchor (the REPL's next input) starts counting again.
  auto anchor = std::make_shared<int>(1);
  c.set_anchor(anchor);
  CHECK(!c.hot_site("s"));
  CHECK(c.hot_site("s"));
  c.set_anchor(nullptr);
  CHECK(!c.hot_site("s"));
}
