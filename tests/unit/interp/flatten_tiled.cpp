// The tiled schedule of product-like nests (interp/flatten/plan_tiled.hpp,
// interp/exec/host_tiled.cpp): chosen for the spellings of a matrix
// product (f64.sum, reduce (+) 0, |> reduce, f32, i32, i64, b's rows) and
// of k-means's nearest centre (squared distances, an argmin with ties to
// the lower index or another comparison), and bit for bit the same results
// as the planned step (THORN_TILED=0) and the reference backend, at sizes
// that are no multiple of the blocks, with an empty k dimension, one row
// or column, ties and NaNs.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "interp/eval/session.hpp"
#include "interp/eval/value_ops.hpp"
#include "interp/exec/host_pool.hpp"
#include "interp/exec/host_tiled.hpp"

using namespace thorn;

namespace {

struct Sessions {
  std::string log;
  std::unique_ptr<Session> ref, host;
  Sessions() {
    setenv("THORN_HOST_MIN_WORK", "0", 1);
    ref = std::make_unique<Session>();
    SessionOptions o;
    o.backend = "host";
    o.on_plan = [this](const std::string& s) { log += s; };
    host = std::make_unique<Session>(o);
    const char* defs =
        "def mm64 [n][m][p] (a: [n][m]f64) (b: [m][p]f64): [n][p]f64 =\n"
        "  map (\\r -> map (\\c -> f64.sum (map2 (*) r c)) (transpose b)) a\n"
        "def mm32 [n][m][p] (a: [n][m]f32) (b: [m][p]f32): [n][p]f32 =\n"
        "  map (\\r -> map (\\c -> reduce (+) 0 (map2 (*) r c)) (transpose b)) a\n"
        "def mm32p [n][m][p] (a: [n][m]f32) (b: [m][p]f32): [n][p]f32 =\n"
        "  map (\\r -> map (\\c -> map2 (*) r c |> reduce (+) 0) (transpose b)) a\n"
        "def mmi32 [n][m][p] (a: [n][m]i32) (b: [m][p]i32): [n][p]i32 =\n"
        "  map (\\r -> map (\\c -> i32.sum (map2 (*) r c)) (transpose b)) a\n"
        "def mmi64 [n][m][p] (a: [n][m]i64) (b: [m][p]i64): [n][p]i64 =\n"
        "  map (\\r -> map (\\c -> i64.sum (map2 (*) r c)) (transpose b)) a\n"
        "def rows [n][m][p] (a: [n][m]f64) (b: [p][m]f64): [n][p]f64 =\n"
        "  map (\\r -> map (\\c -> f64.sum (map2 (*) r c)) b) a\n"
        "def sqd [n][m][p] (a: [n][m]f64) (b: [p][m]f64): [n][p]f64 =\n"
        "  map (\\r -> map (\\c -> f64.sum (map2 (\\x y -> (x - y) * (x - y)) r c)) b) a\n"
        // k-means's assignment step (bench/native/workloads.fut), its
        // distance, f32, and a comparison that keeps the later of equals.
        "def nearest [n][d][k] (points: [n][d]f64) (centres: [k][d]f64): [n]i64 =\n"
        "  let dist (p: [d]f64) (c: [d]f64) = f64.sum (map2 (\\x y -> (x - y) * (x - y)) p c)\n"
        "  let closer (d1: f64, i1: i64) (d2: f64, i2: i64) =\n"
        "    if d1 < d2 || (d1 == d2 && i1 < i2) then (d1, i1) else (d2, i2)\n"
        "  in map (\\p -> (reduce closer (f64.inf, 0) (zip (map (dist p) centres) (iota k))).1) points\n"
        "def nearestd [n][d][k] (points: [n][d]f64) (centres: [k][d]f64): [n]f64 =\n"
        "  let dist (p: [d]f64) (c: [d]f64) = f64.sum (map2 (\\x y -> (x - y) * (x - y)) p c)\n"
        "  let closer (d1: f64, i1: i64) (d2: f64, i2: i64) =\n"
        "    if d1 < d2 || (d1 == d2 && i1 < i2) then (d1, i1) else (d2, i2)\n"
        "  in map (\\p -> (reduce closer (f64.inf, 0) (zip (map (dist p) centres) (iota k))).0) points\n"
        "def nearest32 [n][d][k] (points: [n][d]f32) (centres: [k][d]f32): [n]i64 =\n"
        "  let dist (p: [d]f32) (c: [d]f32) = f32.sum (map2 (\\x y -> (x - y) * (x - y)) p c)\n"
        "  let closer (d1: f32, i1: i64) (d2: f32, i2: i64) =\n"
        "    if d1 < d2 || (d1 == d2 && i1 < i2) then (d1, i1) else (d2, i2)\n"
        "  in map (\\p -> (reduce closer (f32.inf, 0) (zip (map (dist p) centres) (iota k))).1) points\n"
        "def nearestle [n][d][k] (points: [n][d]f64) (centres: [k][d]f64): [n]i64 =\n"
        "  let dist (p: [d]f64) (c: [d]f64) = f64.sum (map2 (\\x y -> (x - y) * (x - y)) p c)\n"
        "  let closer (d1: f64, i1: i64) (d2: f64, i2: i64) = if d1 <= d2 then (d1, i1) else (d2, i2)\n"
        "  in map (\\p -> (reduce closer (f64.inf, 7) (zip (map (dist p) centres) (iota k))).1) points\n"
        // Small integers: many equal distances (ties).
        "def grid (n: i64) (m: i64) (seed: i64): [n][m]f64 =\n"
        "  map (\\i -> map (\\j -> f64.i64 ((i * 7919 + j * 104729 + seed) % 5 - 2)) (iota m)) (iota n)\n"
        "def diffs [n][m][p] (a: [n][m]f64) (b: [m][p]f64): [n][p]f64 =\n"
        "  map (\\r -> map (\\c -> f64.sum (map2 (-) r c)) (transpose b)) a\n"
        // Values with many significant bits and both signs, so that any
        // change in the order of the additions shows in the last bits.
        "def mat (n: i64) (m: i64) (seed: i64): [n][m]f64 =\n"
        "  map (\\i -> map (\\j -> f64.sin (f64.i64 (i * 7919 + j * 104729 + seed)) * 1e3) (iota m)) (iota n)\n"
        "def imat (n: i64) (m: i64) (seed: i64): [n][m]i64 =\n"
        "  map (\\i -> map (\\j -> (i * 7919 + j * 104729 + seed) % 2000003 - 1000000) (iota m)) (iota n)\n";
    std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/thorn-tiled-" +
                       std::to_string(getpid()) + ".fut";
    {
      std::ofstream f(path);
      f << defs;
    }
    ref->load_file(path);
    host->load_file(path);
    std::remove(path.c_str());
  }
};

Sessions& sessions() {
  static Sessions s;
  return s;
}

std::string plain(const Value& v) { return eval::format_value_plain(v); }

// `f` applied to the inputs made by the expressions `xs` (made on the
// reference backend, so that the host sees materialised inputs) tiled, as
// planned, and on the reference backend; returns the tiled run's plan log.
std::string same_on(const std::string& f, const std::vector<std::string>& xs, bool reference = true) {
  Sessions& s = sessions();
  std::vector<Value> args;
  for (const std::string& x : xs) args.push_back(s.ref->eval_input(x).value);
  INFO("call: " << f << " on " << xs.at(0) << ", " << xs.at(1));
  unsetenv("THORN_TILED");
  s.log.clear();
  std::string tiled = plain(s.host->call(f, args).at(0));
  std::string log = s.log;
  if (std::getenv("TILED_DEBUG")) MESSAGE(log);
  setenv("THORN_TILED", "0", 1);
  std::string planned = plain(s.host->call(f, args).at(0));
  unsetenv("THORN_TILED");
  CHECK(tiled == planned);
  if (reference) CHECK(tiled == plain(s.ref->call(f, args).at(0)));
  return log;
}

// The product `f` of an n x m and an m x p matrix of element type `t`.
std::string same(const std::string& f, const std::string& t, int64_t n, int64_t m, int64_t p, bool reference = true) {
  std::string mk = t == "i32" || t == "i64" ? "imat" : "mat";
  std::string conv = t == "f64" || t == "i64" ? "" : "map (map " + t + "." + (t == "i32" ? "i64" : "f64") + ") ";
  auto make = [&](int64_t r, int64_t c, int seed) {
    return conv + "(" + mk + " " + std::to_string(r) + " " + std::to_string(c) + " " + std::to_string(seed) + ")";
  };
  return same_on(f, {make(n, m, 1), make(m, p, 2)}, reference);
}

// The nearest of k centres for n points of d dimensions, made by `mk`
// ("mat" or "grid"); true when the tiled schedule ran.
bool nearest(const std::string& f, const std::string& mk, int64_t n, int64_t d, int64_t k,
             const std::string& conv = "") {
  uint64_t before = host::tiled_runs();
  auto make = [&](int64_t r, int seed) {
    return conv + "(" + mk + " " + std::to_string(r) + " " + std::to_string(d) + " " + std::to_string(seed) + ")";
  };
  same_on(f, {make(n, 1), make(k, 2)});
  return host::tiled_runs() > before;
}

// Enough rows for the row-per-element plan, which the tiled schedule
// replaces: fewer than 256 per thread are distributed differently.
int64_t big(int64_t extra) { return 256 * int64_t(host::ThreadPool::instance().size()) + extra; }

bool tiled(const std::string& log) { return log.find("schedule: tiled product") != std::string::npos; }

}  // namespace

TEST_CASE("tiled: f64 and f32 products at awkward sizes") {
  CHECK(tiled(same("mm64", "f64", big(30), 40, 50)));
  CHECK(tiled(same("mm64", "f64", big(31), 129, 67)));
  CHECK(tiled(same("mm64", "f64", big(30), 7, 1)));
  CHECK(tiled(same("mm64", "f64", big(30), 1, 33)));
  CHECK(tiled(same("mm32", "f32", big(33), 61, 47)));
  CHECK(tiled(same("mm32p", "f32", big(30), 17, 130)));
  // Small and empty products take other plans; the results still agree.
  same("mm64", "f64", 1, 1, 1);
  same("mm64", "f64", 3, 4, 5);
  same("mm64", "f64", big(30), 0, 37);
  same("mm32", "f32", 2, 0, 2);
}

TEST_CASE("tiled: integer products wrap as the element code does") {
  CHECK(tiled(same("mmi64", "i64", big(30), 31, 45)));
  CHECK(tiled(same("mmi32", "i32", big(30), 33, 19)));
}

TEST_CASE("tiled: a large product against the planned step") {
  CHECK(tiled(same("mm64", "f64", big(24), 300, 260, false)));
  CHECK(tiled(same("mm32", "f32", big(30), 257, 515, false)));
}

TEST_CASE("tiled: b's rows (B[k, j] strided in j) and squared differences") {
  auto mat = [](int64_t r, int64_t c, int seed) {
    return "mat " + std::to_string(r) + " " + std::to_string(c) + " " + std::to_string(seed);
  };
  CHECK(tiled(same_on("rows", {mat(big(30), 30, 1), mat(30, 30, 2)})));
  CHECK(tiled(same_on("rows", {mat(big(3), 130, 1), mat(17, 130, 2)})));
  std::string log = same_on("sqd", {mat(big(30), 19, 1), mat(21, 19, 2)});
  CHECK(log.find("schedule: tiled squared differences") != std::string::npos);
}

TEST_CASE("tiled: nests that are not products keep their plans") {
  CHECK(!tiled(same("diffs", "f64", big(30), 30, 40)));
}

TEST_CASE("tiled: k-means's nearest centre, an argmin over squared distances") {
  CHECK(nearest("nearest", "mat", 1000, 16, 32));
  CHECK(nearest("nearest", "mat", 777, 5, 13));
  CHECK(nearest("nearest", "mat", 3001, 130, 3));
  CHECK(nearest("nearestd", "mat", 1000, 7, 9));
  CHECK(nearest("nearest32", "mat", 1000, 16, 32, "map (map f32.f64) "));
  CHECK(nearest("nearestle", "mat", 1000, 6, 17));
  // Ties: the truth table of the element code's comparison decides.
  CHECK(nearest("nearest", "grid", 1000, 3, 40));
  CHECK(nearest("nearestd", "grid", 1000, 2, 30));
  CHECK(nearest("nearestle", "grid", 1000, 3, 40));
  // NaNs: no comparison holds, so the element code takes the new pair.
  uint64_t before = host::tiled_runs();
  same_on("nearest", {"mat 999 4 1", "(mat 20 4 2) with [3, 1] = f64.nan"});
  same_on("nearestle", {"(mat 999 4 1) with [5, 2] = f64.nan", "mat 20 4 2"});
  CHECK(host::tiled_runs() >= before + 2);
  // One centre, and no dimensions at all.
  nearest("nearest", "mat", 500, 4, 1);
  nearest("nearest", "mat", 500, 0, 5);
}
