// The flattener end to end: Futhark expressions evaluated by the host
// backend (with --validate, so every flattened nest is also checked
// against the reference backend) and by the reference backend, compared,
// and the plans inspected for the flattening and fusion they should show.
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "backend_pair.hpp"

using namespace thorn;

namespace {

using testutil::same;
using testutil::has;

}  // namespace

TEST_CASE("flatten: reduce of a map is one fused SegRed") {
  std::string log = same("let xs = map (\\i -> f64.i64 i * 0.5) (iota 100000) in reduce (+) 0 (map (\\x -> x * x) xs)");
  CHECK(has(log, "SegRed [1][100000]"));
  CHECK(has(log, "fused: map"));
  CHECK(!has(log, "runs on the reference backend"));
  log = same("i32.sum (map (\\i -> i32.i64 (i % 7) - 3) (iota 77777))");
  CHECK(has(log, "SegRed"));
}

TEST_CASE("flatten: scans, including a non-commutative tuple operator") {
  std::string log = same("scan (+) 0 (map (\\i -> i * i) (iota 5000))");
  CHECK(has(log, "SegScan [1][5000]"));
  log = same(
      "let op (a: i64, b: i64) (c: i64, d: i64) = (a * c, b * c + d) in "
      "scan op (1, 0) (zip (map (\\i -> i % 3 - 1) (iota 3000)) (map (\\i -> i % 11) (iota 3000)))");
  CHECK(has(log, "SegScan"));
  same("let op (a: i64, b: i64) (c: i64, d: i64) = (a * c, b * c + d) in "
       "reduce op (1, 0) (zip (map (\\i -> i % 3 - 1) (iota 3001)) (map (\\i -> i % 11) (iota 3001)))");
}

TEST_CASE("flatten: reduce with a tuple operator (argmin)") {
  std::string log = same(
      "let xs = map (\\i -> f32.i64 ((i * 7919) % 1000)) (iota 10000) in "
      "reduce (\\(a, i) (b, j) -> if a < b || (a == b && i < j) then (a, i) else (b, j)) (f32.inf, -1) "
      "(zip xs (iota 10000))");
  CHECK(has(log, "SegRed"));
}

TEST_CASE("flatten: histograms and scatter, with out-of-bounds indices") {
  std::string log = same("hist (+) 0 10 (map (\\i -> (i * 37) % 13 - 1) (iota 20000)) (map (\\i -> i32.i64 i) (iota 20000))");
  CHECK(has(log, "SegHist"));
  log = same("reduce_by_index (replicate 5 1f64) (*) 1 [0, 1, 1, 7, -2, 4] [2, 3, 4, 5, 6, 7]");
  CHECK(has(log, "SegHist"));
  log = same("scatter (replicate 10 0i32) [9, -1, 3, 100, 0] [1, 2, 3, 4, 5]");
  CHECK(has(log, "Scatter"));
}

TEST_CASE("flatten: a flattened delayed map is fused into its consumer (k-means's bins)") {
  std::string log = same(
      "let a = map (\\i -> (i * 7) % 13) (iota 3000) in "
      "let bins = flatten (map (\\x -> map (\\j -> x * 4 + j) (iota 4)) a) in "
      "reduce_by_index (replicate 52 0f64) (+) 0 bins (flatten (map (\\x -> map (\\j -> f64.i64 (x - j)) (iota 4)) a))");
  CHECK(has(log, "SegHist [1][12000]"));
  CHECK(!has(log, "[12000]i64 in"));  // the bins are not materialised
  CHECK(!has(log, "[12000]f64 in"));
  same("let a = map (\\i -> i % 13) (iota 600) in unflatten (flatten (map (\\x -> map (+ x) (iota 6)) a) :> [1200 * 3]i64) "
       "|> map i64.sum");
}

TEST_CASE("flatten: map-reduce and map-scan become segmented steps") {
  std::string log = same("map (\\r -> reduce (+) 0 r) ((unflatten (map (\\i -> i % 17) (iota 5000)) : [100][50]i64))");
  CHECK(has(log, "SegRed [100][50]"));
  log = same("map (\\r -> scan (+) 0 (map (\\x -> x * 2) r)) ((unflatten (iota 210) : [30][7]i64))");
  CHECK(has(log, "SegScan [30][7]"));
  log = same("map (\\r -> f64.sum r) ((unflatten (map f64.i64 (iota 10000)) : [1000][10]f64))");
  CHECK(has(log, "SegRed [1000][10]"));
}

TEST_CASE("flatten: vectorised operators reduce column by column") {
  std::string log = same("reduce (map2 (+)) (replicate 3 0) ((unflatten (map (\\i -> i % 101) (iota 3000)) : [1000][3]i64))");
  CHECK(has(log, "vectorised operator"));
  CHECK(has(log, "SegRed [3][1000]"));
  log = same("reduce (\\a b -> map2 f32.max a b) (replicate 4 (-f32.inf)) ((unflatten (map f32.i64 (iota 200)) : [50][4]f32))");
  CHECK(has(log, "vectorised operator"));
  log = same("let res = scan (map2 (+)) [0, 0, 0] (replicate 1000 [1, 2, 3]) in (res[999], i32.sum (flatten res))");
  CHECK(has(log, "SegScan [3][1000]"));
  CHECK(has(log, "delayed replicate 1000 of 3"));
  // k-means: per-cluster vector sums.
  log = same(
      "let pts = (unflatten (map (\\i -> f32.i64 (i % 97) / 7) (iota 15000)) : [5000][3]f32) "
      "let member = map (\\i -> (i * 7) % 5) (iota 5000) in "
      "hist (map2 (+)) (replicate 3 0) 5 member pts");
  CHECK(has(log, "3 histograms of 5 bins"));
  // Not elementwise: whole rows folded by chunks, and still right.
  log = same("reduce (\\a b -> map (\\i -> a[i] + b[2 - i]) (iota 3)) (replicate 3 0) ((unflatten (iota 12) : [4][3]i64))");
  CHECK(has(log, "not column by column"));
  CHECK(!has(log, "runs on the reference backend"));
}

TEST_CASE("flatten: map-map over the flattened domain; nested results keep their shape") {
  std::string log = same("map (\\r -> map (\\x -> x + 1) r) ((unflatten (iota 600) : [20][30]i64))");
  CHECK(has(log, "600 elements"));
  same("map (\\i -> map (\\j -> i * j) (iota 4)) (iota 5)");
  same("map (\\i -> replicate 3 i) (iota 4)");
}

TEST_CASE("flatten: control flow, loops, free arrays and inlined functions in lambdas") {
  std::string log = same(
      "let xs = map (\\i -> i * 3) (iota 100) "
      "let f (x: i64) = if x % 2 == 0 then x / 2 else 3 * x + 1 in "
      "map (\\i -> if i % 3 == 0 then xs[i] else (loop acc = 0 for j < i % 10 do acc + f j)) (iota 100)");
  CHECK(!has(log, "runs on the reference backend"));
  same("map (\\n -> (loop (n, s) = (n, 0) while n > 1 do ((if n % 2 == 0 then n / 2 else 3 * n + 1), s + 1)).1) (iota 300)");
  same("let ys = [1.5, 2.5, -1.0] in map (\\i -> ys[i % 3] * f64.sqrt (f64.i64 i)) (iota 50)");
  same("map (\\(a, b) -> (b, a + b)) (zip (iota 10) (map (\\i -> i * i) (iota 10)))");
  same("let (a, b) = unzip (map (\\i -> (i, f32.i64 i / 3)) (iota 17)) in (reduce (+) 0 a, reduce (+) 0 b)");
  same("map (\\x -> x && true || false) (map (\\i -> i % 3 == 0) (iota 9))");
  same("map (\\x -> f32.max (f32.abs x) 0.5) [-2.0, 0.25, 3.0, f32.nan]");
}

TEST_CASE("flatten: delayed arrays are materialised when indexed or updated") {
  same("let ys = map (\\x -> x * 2) (iota 10) in ys[3] + ys[9]");
  same("let xs = iota 10 let ys = map (+1) xs let xs[0] = 100 in (xs, ys)");
  same("let t = transpose ((unflatten (iota 12) : [3][4]i64)) in (t, map i64.sum t)");
  same("let r = replicate 5 (1i32, true) in r");
}

TEST_CASE("flatten: what cannot be flattened falls back and says why") {
  // A filter's result whose length stays inside the element is flattened...
  std::string log = same("map (\\x -> length (filter (> 1) [x, x + 1, x + 2])) (iota 4)");
  CHECK(!has(log, "runs on the reference backend"));
  // ...irregular results (each element's array has its own length) stay on the reference backend...
  log = same("let sizes = [2, 2, 2] in map (\\n -> scan (+) 0 (iota n)) sizes");
  CHECK(has(log, "runs on the reference backend"));
  // ...but a sequential loop over an element's own size does not need a regular shape.
  log = same("let sizes = [1, 2, 3] in map (\\n -> reduce (+) 0 (iota n)) sizes");
  CHECK(!has(log, "runs on the reference backend"));
  same("map (\\x -> x + 1) (filter (> 100) (iota 3))");
  same("reduce (+) 0 (map f32.i64 (filter (> 100) (iota 3)))");
}

TEST_CASE("flatten: run-time errors in flattened code are errors") {
  testutil::BackendPair& b = testutil::backend_pair();
  CHECK_THROWS_WITH_AS(b.host->eval_input("map (\\x -> 10 / x) (map (\\i -> i32.i64 i - 3) (iota 10))"),
                       doctest::Contains("division by zero"), Error);
  CHECK_THROWS_WITH_AS(b.host->eval_input("let xs = [1, 2, 3] in map (\\i -> xs[i]) (iota 4)"),
                       doctest::Contains("out of bounds"), Error);
  // The session survives.
  CHECK(b.host->eval_input("reduce (+) 0 (iota 10)").value.scalar.i == 45);
}

TEST_CASE("flatten: unzip keeps the components' row shapes, so they concatenate with literals") {
  // finpar's initOperator: [[a, b, c]] ++ (unzip of a map of pairs of
  // 3-element rows).0 ++ [[d, e, f]] inside a mapped function.
  std::string log = same(
      "map (\\j -> let x = map (\\i -> f32.i64 (i * i + j)) (iota 8) "
      "           let (mid, _) = unzip (map (\\i -> ([x[i], x[i] * 2, 1], [x[i] - 1, 0, 0])) (1...6)) "
      "           in [[0f32, 1, 2]] ++ mid ++ [[x[7], 0, 0]]) (iota 4)");
  CHECK(!has(log, "runs on the reference backend"));
}

TEST_CASE("flatten: match and sum types inside mapped functions") {
  // Literal patterns on a scalar element.
  std::string log = same("map (\\x -> match x case 0 -> 10 case 1 -> 20 case _ -> 30) (map i32.i64 (iota 1000))");
  CHECK(!has(log, "runs on the reference backend"));
  // A sum built per element and matched there.
  log = same(
      "map (\\i -> let s : #a f64 | #b i64 i64 | #c = if i % 3 == 0 then #a (f64.i64 i) else if i % 3 == 1 then #b 2i64 i else #c "
      "           in match s case #a x -> x case #b k j -> f64.i64 (k * j) case #c -> -1) (iota 1000)");
  CHECK(!has(log, "runs on the reference backend"));
  // A captured sum inside a record: the plan picks the case.
  log = same(
      "let conf = {mode = (#scale 3.0 : #scale f64 | #shift f64), k = 2.0} "
      "in map (\\i -> match conf.mode case #scale s -> s * f64.i64 i case #shift d -> d + conf.k) (iota 1000)");
  CHECK(!has(log, "runs on the reference backend"));
}

TEST_CASE("flatten: an operator passed as a function and sizes bound inside tuple-typed parameters") {
  // pbbs' rangeQuery2d: lower_bound (<=) xs x, `xs[t] `lte` x` inside a loop,
  // and rank [n] (w: ([n]i64, []i32)) using n.
  std::string log = same(
      "let lower_bound [n] 't (lte: t -> t -> bool) (xs: [n]t) (x: t) : i64 = "
      "  (loop (l, r) = (0, n) while l < r do let t = l + (r - l) / 2 in if xs[t] `lte` x then (t + 1, r) else (l, t)).0 "
      "let rank [n] (w: ([n]i64, []i32)) (k: i64) = i64.min k n + w.0[0] "
      "let xs = map (\\i -> i * 3) (iota 100) "
      "in map (\\x -> lower_bound (<=) xs x + rank (xs, [1i32, 2]) x) (iota 1000)");
  CHECK(!has(log, "runs on the reference backend"));
}
