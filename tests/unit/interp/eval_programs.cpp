// Whole programs through Session::load_file and Session::call: functions,
// polymorphism, size parameters, modules and functors, sum types, records,
// loops, and the run-time errors with their locations.
#include "eval_test_util.hpp"

#include "interp/core/value_io.hpp"

using thorn::Session;
using thorn::Value;
using thorn::test::load_program;

namespace {

std::string call_text(Session& s, const std::string& name, std::vector<Value> args = {}) {
  std::vector<Value> out = s.call(name, std::move(args));
  std::string text;
  for (const auto& v : out) text += (text.empty() ? "" : " ") + thorn::format_value(v, nullptr);
  return thorn::test::one_line(text);
}

std::string call_error(Session& s, const std::string& name, std::vector<Value> args = {}) {
  try {
    s.call(name, std::move(args));
  } catch (const thorn::Error& e) {
    return e.message;
  }
  return "";
}

Value i32s(std::vector<int32_t> xs) {
  std::vector<Value> rows;
  for (int32_t x : xs) rows.push_back(Value(thorn::Scalar::i32(x)));
  return thorn::array_from_rows(rows);
}

}  // namespace

TEST_CASE("functions, closures, partial application, sections") {
  Session s;
  load_program(s, R"(
def add (x: i32) (y: i32) = x + y
def twice 'a (f: a -> a) (x: a) = f (f x)
def compose = (>->)
def adder (n: i32) = \x -> x + n
entry main = (twice (add 3) 1, (add 1 >-> add 2) 0, adder 5 1, map (adder 2) [1, 2],
              (|>) 3 (add 1), 4 |> (* 2), (flip (-)) 1 10, curry (\(a, b) -> a - b) 5 3,
              uncurry (-) (5, 3), const 1 true, id 9, iterate 3 (* 2) 1, iterate_while (< 100) (* 3) 1,
              iterate_until (> 100) (* 3) 1)
)",
               "functions");
  CHECK(call_text(s, "main") == "7i32 3i32 6i32 [3i32, 4i32] 4i32 8i32 9i32 2i32 2i32 1i32 9i32 8i32 243i32 243i32");
}

TEST_CASE("polymorphic functions build empty results of the instantiated type") {
  Session s;
  load_program(s, R"(
def empty_like 't [n] (xs: [n]t): []t = filter (\_ -> false) xs
def pairs 'a 'b (xs: []a) (ys: []b) = map (\x -> (x, ys)) xs
entry a = map (\(x: f32) -> x) []
entry b (n: i64) = pairs (iota n) [true]
entry c = empty_like [[1, 2], [3, 4]]
entry d = map (\x -> (x, [x, x])) (iota 0)
)",
               "poly");
  CHECK(call_text(s, "a") == "empty([0]f32)");
  CHECK(call_text(s, "c") == "empty([0][2]i32)");
  CHECK(call_text(s, "b", {Value(thorn::Scalar::i64(1))}).find("0i64") != std::string::npos);
}

TEST_CASE("size parameters are bound from arguments and checked") {
  Session s;
  load_program(s, R"(
def dot [n] (xs: [n]i32) (ys: [n]i32): i32 = reduce (+) 0 (map2 (*) xs ys)
def len [n] 't (_: [n]t) = n
def first_n [m] (n: i64) (xs: [m]i32): [n]i32 = xs[0:n] :> [n]i32
def bad [n] (xs: [n]i32): [n]i32 = xs ++ xs
def inner [n] [m] (xss: [n][m]i32): (i64, i64) = (n, m)
entry main (xs: []i32) (ys: []i32) = dot xs ys
entry sizes = (len [1, 2, 3], inner [[1, 2, 3], [4, 5, 6]], first_n 2 [5, 6, 7])
entry broken (x: i32) = bad [x, x]
entry coerce (xs: []i32) = xs :> [2]i32
)",
               "sizes");
  CHECK(call_text(s, "main", {i32s({1, 2, 3}), i32s({4, 5, 6})}) == "32i32");
  CHECK(call_text(s, "sizes") == "3i64 (2i64, 3i64) [5i32, 6i32]");
  std::string e = call_error(s, "main", {i32s({1, 2, 3}), i32s({4, 5})});
  CHECK(e.find("Size mismatch: 3 vs 2") != std::string::npos);
  CHECK(call_error(s, "broken", {Value(thorn::Scalar::i32(1))}) ==
        "Function return value does not match shape of declared return type.");
  CHECK(call_error(s, "coerce", {i32s({1, 2, 3})}) == "Value of shape [3] cannot match shape of type \"[2]i32\".");
  CHECK(call_text(s, "coerce", {i32s({1, 2})}) == "[1i32, 2i32]");
}

TEST_CASE("records, tuples, sum types and match") {
  Session s;
  load_program(s, R"(
type shape = #circle f64 | #rect f64 f64 | #point
type maybe 'a = #none | #some a
def area (s: shape): f64 =
  match s
  case #circle r -> 3.0 * r * r
  case #rect w h -> w * h
  case #point -> 0
def classify (x: i32) =
  match x
  case 0 -> "zero"
  case -1 -> "minus one"
  case _ -> "other"
def first (p: (i32, i32)) = match p case (0, y) -> y case (x, _) -> x
def get (m: maybe i32) = match m case #some x -> x case #none -> -1
def swap {a: i32, b: i32} = {a = b, b = a}
entry main = (map area [#circle 1, #rect 2 3, #point], classify 0, classify (-1), classify 5,
              first (0, 7), first (3, 7), get (#some 4), get #none, swap {a = 1, b = 2},
              (#some 1 : maybe i32) == #some 1, (#none : maybe i32) == #some 1)
)",
               "sums");
  CHECK(call_text(s, "main") ==
        "[3.0f64, 6.0f64, 0.0f64] [122u8, 101u8, 114u8, 111u8] [109u8, 105u8, 110u8, 117u8, 115u8, 32u8, 111u8, "
        "110u8, 101u8] [111u8, 116u8, 104u8, 101u8, 114u8] 7i32 3i32 4i32 -1i32 {a = 2i32, b = 1i32} true false");
}

TEST_CASE("loops: for, for-in, while, with patterns") {
  Session s;
  load_program(s, R"(
def fact (n: i32) = loop acc = 1 for i < n do acc * (i + 1)
def sum_in (xs: []i32) = loop acc = 0 for x in xs do acc + x
def collatz (n: i32) = (loop (x, steps) = (n, 0) while x != 1 do
                          (if x % 2 == 0 then x / 2 else 3 * x + 1, steps + 1)).1
def fib (n: i32) = let (a, _) = loop (a, b) = (0, 1) for _i < n do (b, a + b) in a
def unsigned_loop = loop acc = 0u8 for i < 3u8 do acc + i
def shorthand (x: i32) = loop x for i < 3 do x * 2
def pairs_in (xs: [](i32, i32)) = loop acc = 0 for (a, b) in xs do acc + a * b
entry main = (fact 5, sum_in [1, 2, 3], collatz 27, fib 10, unsigned_loop, shorthand 1, pairs_in [(1, 2), (3, 4)])
)",
               "loops");
  CHECK(call_text(s, "main") == "120i32 6i32 111i32 55i32 3u8 8i32 14i32");
}

TEST_CASE("modules, open, local, qualified names and functors") {
  Session s;
  load_program(s, R"(
module type monoid = { type t val op: t -> t -> t val ne: t }
module sum_i32 : monoid with t = i32 = { type t = i32 def op = (+) def ne = 0i32 }
module max_f64 = { type t = f64 def op = f64.max def ne = -f64.inf }
module fold (M: monoid) = {
  def all [n] (xs: [n]M.t): M.t = reduce M.op M.ne xs
}
module fs = fold sum_i32
module fm = fold max_f64
module outer = { module inner = { def x = 41i32 } def y = inner.x + 1 }
local def hidden = 5i32
module opened = { open outer def z = y * 2 }
def (<+>) (a: i32) (b: i32) = a * 10 + b
entry main = (fs.all [1, 2, 3], fm.all [1, 5, 2], outer.inner.x, outer.y, opened.z, hidden, 1 <+> 2,
              i32.(1 + 2), (3 `i32.max` 4))
)",
               "modules");
  CHECK(call_text(s, "main") == "6i32 5.0f64 41i32 42i32 84i32 5i32 12i32 3i32 4i32");
}

TEST_CASE("run-time errors carry locations") {
  Session s;
  load_program(s, R"(
def get (xs: []i32) (i: i64) = xs[i]
def checked (x: i32) = assert (x > 0) (x * 2)
entry oob (i: i64) = get [1, 2, 3] i
entry div (x: i32) = 10 / x
entry failed (x: i32) = checked x
)",
               "errors");
  try {
    s.call("oob", {Value(thorn::Scalar::i64(7))});
    FAIL("expected an error");
  } catch (const thorn::Error& e) {
    CHECK(e.kind == thorn::ErrorKind::Runtime);
    CHECK(e.message == "Index [7] out of bounds for array of shape [3].");
    REQUIRE(e.loc.known());
    CHECK(e.loc.line == 2);
  }
  // A constant is evaluated when the program is loaded.
  Session s2;
  CHECK_THROWS_WITH(load_program(s2, "def xs = [1, 2]\ndef bad = xs[2]\n", "const_error"),
                    doctest::Contains("Index [2] out of bounds"));
  try {
    s.call("div", {Value(thorn::Scalar::i32(0))});
    FAIL("expected an error");
  } catch (const thorn::Error& e) {
    CHECK(e.message == "division by zero");
    CHECK(e.loc.line == 5);
  }
  try {
    s.call("failed", {Value(thorn::Scalar::i32(-1))});
    FAIL("expected an error");
  } catch (const thorn::Error& e) {
    CHECK(e.message == "Assertion is false: x > 0");
    CHECK(e.loc.line == 3);
  }
}

TEST_CASE("#[trace] reports the value and other attributes are transparent") {
  std::vector<std::string> lines;
  thorn::SessionOptions opts;
  opts.trace = [&](const std::string& line) { lines.push_back(line); };
  Session s(opts);
  load_program(s, R"(
entry main (y: i32) = let x = #[trace] (y + 2) in #[unroll] #[sequential] (x * 2)
entry tagged (xs: []i32) = #[trace(hello)] map (+ 1) xs
)",
               "trace");
  CHECK(call_text(s, "main", {Value(thorn::Scalar::i32(1))}) == "6i32");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "/tmp/thorn_eval_test_trace.fut:2:31-46: 3");
  CHECK(call_text(s, "tagged", {i32s({1, 2})}) == "[2i32, 3i32]");
  REQUIRE(lines.size() == 2);
  CHECK(lines[1] == "hello: [2, 3]");
}

TEST_CASE("in-place updates in loops stay linear") {
  Session s;
  load_program(s, R"(
entry fill (n: i64) = loop xs = replicate n 0i64 for i < n do xs with [i] = i
entry fill_scatter (n: i64) = loop xs = replicate n 0i64 for i < n do scatter xs [i] [i * 2]
)",
               "inplace");
  // 200000 updates would take minutes if each one copied the array.
  std::vector<Value> out = s.call("fill", {Value(thorn::Scalar::i64(200000))});
  REQUIRE(out.size() == 1);
  CHECK(thorn::prim_element(*out[0].array, 199999).i == 199999);
  out = s.call("fill_scatter", {Value(thorn::Scalar::i64(100000))});
  CHECK(thorn::prim_element(*out[0].array, 99999).i == 199998);
}
