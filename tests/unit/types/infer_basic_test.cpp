// Inference of literals, operators, defaulting and the printed form of
// types (what `futhark repl`'s :type shows).
#include <doctest/doctest.h>

#include "types_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

TEST_CASE("literals and defaulting") {
  CHECK(type_of("1") == "i32");
  CHECK(type_of("1.5") == "f64");
  CHECK(type_of("1i64") == "i64");
  CHECK(type_of("2f32") == "f32");
  CHECK(type_of("true") == "bool");
  CHECK(type_of("\"abc\"") == "[3]u8");
  CHECK(type_of("1 + 2") == "i32");
  CHECK(type_of("1 + 2.5") == "f64");  // an integer literal may be a float
  CHECK(type_of("1u8 + 2") == "u8");
  CHECK(type_of("(1, 2.0, true)") == "(i32, f64, bool)");
  CHECK(type_of("()") == "()");
}

TEST_CASE("operators") {
  CHECK(type_of("1 < 2") == "bool");
  CHECK(type_of("1.0 == 2") == "bool");
  CHECK(type_of("[1,2] == [3,4]") == "bool");
  CHECK(type_of("true && false || true") == "bool");
  CHECK(type_of("3 & 5") == "i32");
  CHECK(type_of("7i8 >> 1") == "i8");
  CHECK(type_of("-1.5f32") == "f32");
  CHECK(type_of("!true") == "bool");
  CHECK(type_of("!5u16") == "u16");
  CHECK(type_of("10 // 3") == "i32");
  CHECK(type_of("2 ** 0.5") == "f64");
  CHECK(type_of("(+)") == "i32 -> i32 -> i32");
  CHECK(type_of("(+ 1f32)") == "f32 -> f32");
  CHECK(type_of("(2 <)") == "i32 -> bool");
  CHECK(type_of("1 |> (+ 2i64)") == "i64");
}

TEST_CASE("operator errors") {
  CHECK(error_message("def f (x: i32) = x + 1.0") == "in right operand of \"+\": expected i32, got f64");
  CHECK(error_message("", "true + 1") == "in left operand of \"+\": expected a numeric type, got bool");
  CHECK(error_message("", "1.0 & 2") == "in left operand of \"&\": expected an integral type, got f64");
  CHECK(error_message("", "1 && true") == "in left operand of \"&&\": expected bool, got i32");
  CHECK(error_message("", "(\\x -> x) == (\\x -> x)").find("in left operand of \"==\"") == 0);
}

TEST_CASE("printing like futhark") {
  CHECK(type_of("[[1,2],[3,4]]") == "[2][2]i32");
  CHECK(type_of("[]") == "[0]()");
  CHECK(type_of("{a = 1, b = true}") == "{a: i32, b: bool}");
  CHECK(type_of("{b = 1, a = true}") == "{a: bool, b: i32}");
  CHECK(type_of("\\(x: i32) -> x") == "i32 -> i32");
  CHECK(type_of("\\(f: i32 -> i32) (x: i32) -> f x") == "(i32 -> i32) -> i32 -> i32");
  CHECK(type_of("[(1, true)]") == "[1](i32, bool)");
  CHECK(type_of("iota") == "(n: i64) -> *[n]i64");
  CHECK(type_of("iota 10") == "[10]i64");
  CHECK(type_of("#some 1 : #none | #some i32") == "#none | #some i32");
  // The ascription's `[]` is inferred (Futhark's checkAscript).
  CHECK(type_of("[#a, #b] : [](#a | #b)") == "[2](#a | #b)");
  CHECK(type_of("{0 = 1, 1 = 2}") == "(i32, i32)");
  CHECK(type_of("(1, 2).1") == "i32");
}

TEST_CASE("type.hpp to_string") {
  CHECK(to_string(array_type(prim_type(Prim::F32), {Dim{Dim::Kind::Name, 0, "n"}, Dim{Dim::Kind::Name, 0, "m"}})) ==
        "[n][m]f32");
  CHECK(to_string(array_type(array_type(prim_type(Prim::I32), {Dim{}}), {Dim{Dim::Kind::Constant, 3, ""}})) ==
        "[3][]i32");
  auto u8s = std::make_shared<Type>(*array_type(prim_type(Prim::U8), {Dim{}}));
  u8s->unique = true;
  CHECK(to_string(TypePtr(u8s)) == "*[]u8");
  CHECK(to_string(function_type(prim_type(Prim::I64), array_type(prim_type(Prim::I32), {Dim{Dim::Kind::Name, 0, "x"}}),
                                "x")) == "(x: i64) -> [x]i32");
  CHECK(to_string(sum_type({{"some", {prim_type(Prim::I32)}}, {"none", {}}})) == "#none | #some i32");
  CHECK(to_string(param_type(7, "t")) == "t");
  CHECK(to_string(tuple_type({})) == "()");
  CHECK(to_string(tuple_type({prim_type(Prim::I32)})) == "i32");
  // Tuple fields beyond 9 sort numerically.
  std::vector<std::pair<std::string, TypePtr>> fs;
  for (int i = 0; i < 11; ++i) fs.emplace_back(std::to_string(i), prim_type(Prim::I32));
  auto r = record_type(fs);
  CHECK(r->fields[10].first == "10");
  CHECK(same_type(*row_type(array_type(prim_type(Prim::I32), {Dim{}, Dim{}})), *array_type(prim_type(Prim::I32), {Dim{}})));
  CHECK(array_rank(*array_type(prim_type(Prim::I32), {Dim{}, Dim{}})) == 2);
}
