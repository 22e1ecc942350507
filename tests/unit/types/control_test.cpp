// Control flow and binding forms: if, let, loops, match, lambdas,
// assertions, attributes and intrinsics.
#include <doctest/doctest.h>

#include "types_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

TEST_CASE("if and let") {
  CHECK(type_of("if true then 1 else 2u64") == "u64");
  CHECK(type_of("let (a, b) = (1, 2f32) in a + 1") == "i32");
  CHECK(type_of("let x: i16 = 1 in x") == "i16");
  CHECK(type_of("let [n] (xs: [n]i32) = [1,2] in n") == "i64");
  CHECK(error_message("", "if 1 then 2 else 3") == "in if condition: expected bool, got i32");
  CHECK(error_message("", "if true then 1 else true") == "if branches have types i32 and bool");
  CHECK(error_message("", "let (a, b) = 1 in a").find("in let binding (the pattern cannot match the value): expected (t") == 0);
  CHECK(error_message("", "let (a, a) = (1, 2) in a").find("Name \"a\" also bound at ") == 0);
}

TEST_CASE("loops") {
  CHECK(type_of("loop acc = 0 for i < 10 do acc + i") == "i32");
  CHECK(type_of("loop acc = 0i64 for i < 10 do acc + i") == "i64");
  CHECK(type_of("loop (x, y) = (1, 1.0) while x < 10 do (x * 2, y / 2)") == "(i32, f64)");
  CHECK(type_of("loop s = 0f32 for x in [1, 2, 3] do s + x") == "f32");
  CHECK(type_of("loop xs = [1] for i < 3 do xs ++ xs") == "[]i32");
  CHECK(type_of("let x = 1u8 in loop x for i < 2 do x + 1") == "u8");
  // The body keeps a's size, so it is invariant: the loop's result has the
  // initial value's size, as in Futhark's checkLoop (Terms/Loop.hs, "dim
  // handling": invariant sizes are substituted back to the initial size).
  CHECK(type_of("loop (a: *[]i32) = [1, 2] for i < 2 do a with [i] = 0") == "[2]i32");
  // Swapping equally sized arrays keeps the sizes; differently sized ones
  // are loop-variant.
  CHECK(type_of("loop (a, b) = ([1, 2], [3, 4]) for i < 2 do (b, a)") == "([2]i32, [2]i32)");
  CHECK(type_of("loop (a, b) = ([1, 2], [3]) for i < 2 do (b, a)") == "([]i32, []i32)");
  CHECK(error_message("", "loop acc = 0 for i < 10 do true") ==
        "Loop body does not have expected type: expected a numeric type, got bool");
  CHECK(error_message("", "loop x = 0 while 1 do x") == "in while-loop condition: expected bool, got i32");
  CHECK(error_message("", "loop x = 0 for i < 1.5 do x") == "in loop bound: expected an integral type, got f64");
}

TEST_CASE("match") {
  CHECK(type_of("match 3 case 0 -> true case _ -> false") == "bool");
  CHECK(type_of("match (1, 2.0) case (0, y) -> y case (x, _) -> 1.0") == "f64");
  CHECK(type_of("match -1i8 case -1 -> 1 case _ -> 2") == "i32");
  CHECK(error_message("", "match 1 case 0 -> 1 case _ -> true") ==
        "match cases have different types: i32 (case 1) and bool (case 2)");
  CHECK(error_message("", "match 1 case true -> 1 case _ -> 2") ==
        "pattern of type bool cannot match a value of type i32");
}

TEST_CASE("lambdas, sections, application errors") {
  CHECK(type_of("\\x -> x + 1u16") == "u16 -> u16");
  CHECK(type_of("(\\x y -> x * y) 2f32") == "f32 -> f32");
  CHECK(type_of("(\\(x: i64): i64 -> x) 1") == "i64");
  CHECK(error_message("", "1 2") == "Cannot apply expression as function, as it has non-function type:\n  i32");
  CHECK(error_message("def f (x: i32) = x", "f 1 2") ==
        "Cannot apply \"f\" to \"2\" (argument 2).\nFunction accepts only 1 arguments (the result of the previous ones "
        "has type i32).");
  CHECK(error_message("def f (x: i32) (y: bool) = x", "f 1 2") == "Cannot apply \"f\" to \"2\" (argument 2): expected bool, got i32");
  CHECK(error_message("", "foo 1") == "Unknown name \"foo\"");
}

TEST_CASE("assert, attributes, intrinsics") {
  CHECK(type_of("assert (1 < 2) 3u8") == "u8");
  CHECK(type_of("#[unroll] (1 + 1)") == "i32");
  CHECK(error_message("", "assert 1 2") == "in assertion condition: expected bool, got i32");
  Session s;
  s.decls("def my_abs (x: f32): f32 = __intrinsic \"fabs32\" x");
  CHECK(s.value_type("my_abs") == "f32 -> f32");
}

TEST_CASE("error locations") {
  auto e = type_error("def f (x: i32) =\n  x + 1.0");
  REQUIRE(e);
  CHECK(e->loc.line == 2);
  CHECK(e->loc.col == 7);
  CHECK(e->render().find("test.fut:2:7: type error: in right operand of \"+\": expected i32, got f64") == 0);
  auto u = type_error("def g = 1\ndef h = g + zz");
  REQUIRE(u);
  CHECK(u->loc.line == 2);
  CHECK(u->loc.col == 13);
}

TEST_CASE("save and restore") {
  Session s;
  auto state = s.checker.save();
  s.decls("def extra = 1");
  CHECK(s.value_type("extra") == "i32");
  s.checker.restore(state);
  CHECK(s.value_type("extra") == "<none>");
  CHECK(s.value_type("map") != "<none>");
}
