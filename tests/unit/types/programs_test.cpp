// Whole programs in the style of real Futhark code: they must check, be
// fully annotated, and give their entry points the expected types.
#include <doctest/doctest.h>

#include "types_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

TEST_CASE("mandelbrot") {
  Session s;
  Program& p = s.decls(R"(
def escape (limit: i32) (cx: f64) (cy: f64) : i32 =
  let (_, _, i) =
    loop (x, y, i) = (0.0, 0.0, 0) while i < limit && x * x + y * y < 4.0 do
      (x * x - y * y + cx, 2.0 * x * y + cy, i + 1)
  in i

def grid (w: i64) (h: i64) (limit: i32) : [h][w]i32 =
  tabulate_2d h w (\r c ->
    let cx = -2.2 + 3.2 * f64.i64 c / f64.i64 w
    let cy = -1.2 + 2.4 * f64.i64 r / f64.i64 h
    in escape limit cx cy)

def shade (limit: i32) (n: i32) : u8 =
  if n == limit then 35 else if n > limit / 4 then 43 else if n > 4 then 46 else 32

entry main (w: i64) (h: i64) (limit: i32) : ([h][w]u8, i64) =
  let counts = grid w h limit
  let picture = map (map (shade limit)) counts
  let total = i64.sum (map i64.i32 (flatten counts))
  in (picture, total)
)");
  CHECK(s.value_type("main") == "(w: i64) -> (h: i64) -> i32 -> ([h][w]u8, i64)");
  CHECK(s.value_type("grid") == "(w: i64) -> (h: i64) -> i32 -> [h][w]i32");
  CHECK(count_unannotated(p) == 0);
}

TEST_CASE("records, sums and in-place updates") {
  Session s;
  Program& p = s.decls(R"(
type body = {pos: (f32, f32), vel: (f32, f32), mass: f32}
type shape = #circle f32 | #rect f32 f32

def area (s: shape): f32 =
  match s
  case #circle r -> 3.14 * r * r
  case #rect w h -> w * h

def step (dt: f32) (b: body): body =
  let (x, y) = b.pos
  let (vx, vy) = b.vel
  in b with pos = (x + dt * vx, y + dt * vy)

def histogram [n] (k: i64) (is: [n]i64): [k]i32 =
  reduce_by_index (replicate k 0) (+) 0 is (replicate n 1)

def prefix_fill (n: i64): []i64 =
  let xs = replicate n 0
  let xs = loop xs for i < n do xs with [i] = i * 2
  in xs

def permute [n] (xs: [n]f32) (is: [n]i64): [n]f32 =
  scatter (copy xs) is xs

def total_area (ss: []shape) = ss |> map area |> f32.sum

def matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32): [n][p]f32 =
  map (\row -> map (\col -> f32.sum (map2 (*) row col)) (transpose b)) a

def count_true (bs: []bool) = reduce (+) 0i64 (map (\b -> if b then 1 else 0) bs)
)");
  CHECK(s.value_type("area") == "(#circle f32 | #rect f32 f32) -> f32");
  CHECK(s.value_type("step") == "f32 -> {mass: f32, pos: (f32, f32), vel: (f32, f32)} -> {mass: f32, pos: (f32, f32), vel: (f32, f32)}");
  CHECK(s.value_type("histogram") == "(k: i64) -> [n]i64 -> [k]i32");
  CHECK(s.value_type("prefix_fill") == "i64 -> []i64");
  CHECK(s.value_type("total_area") == "[](#circle f32 | #rect f32 f32) -> f32");
  CHECK(s.value_type("matmul") == "[n][m]f32 -> [m][p]f32 -> [n][p]f32");
  CHECK(s.type_of("matmul [[1,2]] [[3],[4]]") == "[1][1]f32");
  CHECK(s.value_type("count_true") == "[]bool -> i64");
  CHECK(count_unannotated(p) == 0);
}
