// Records, tuples, sum types, arrays, indexing, slicing, updates and type
// abbreviations.
#include <doctest/doctest.h>

#include "types_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

TEST_CASE("records and tuples") {
  CHECK(type_of("{a = 1, b = 2.0}.b") == "f64");
  CHECK(type_of("let r = {x = 1i8, y = (true, 2u32)} in r.y.1") == "u32");
  CHECK(type_of("let r = {x = 1i8} in r with x = 3") == "{x: i8}");
  CHECK(type_of("let r = {p = {q = 1f32}} in r with p.q = 2") == "{p: {q: f32}}");
  CHECK(type_of("let x = 1 in {x}") == "{x: i32}");
  CHECK(type_of("(.a) {a = true}") == "bool");
  CHECK(type_of("(.0) (1i16, 2)") == "i16");
  CHECK(type_of("let {a, b = c} = {a = 1, b = true} in (c, a)") == "(bool, i32)");
  // A field access on a not-yet-known type becomes a record constraint.
  CHECK(type_of("map (\\r -> r.x) [{x = 1u8, y = 2}]") == "[1]u8");
  CHECK(type_of("let f r = r.x + 1i64 in f {x = 2}") == "i64");
}

TEST_CASE("record errors") {
  CHECK(error_message("", "{a = 1}.b") == "type {a: i32} has no field \"b\"");
  CHECK(error_message("", "(1).a") == "cannot access field \"a\" of a value of type i32");
  CHECK(error_message("", "{a = 1, a = 2}").find("Field \"a\" previously defined at ") == 0);
  CHECK(error_message("", "let r = {x = 1} in r with x = true") ==
        "Type mismatch when updating record field \"x\": the new value has type bool, but the field has type i32.");
  // The field's sizes may change (tests/programs/record_update_sizes.fut runs it).
  CHECK(error_message("", "let r = {x = [1i32]} in (r with x = [2, 3]).x") == "<no error>");
}

TEST_CASE("sum types") {
  CHECK(type_of("#foo 1 : #foo i32 | #bar") == "#bar | #foo i32");
  // `[]` in an ascription takes the expression's size (Futhark: checkAscript
  // uses checkTypeExpNonrigid and unifies).
  CHECK(type_of("[#red, #green] : [](#red | #green | #blue)") == "[2](#blue | #green | #red)");
  CHECK(type_of("match (#some 2 : #none | #some i64) case #none -> 0 case #some x -> x") == "i64");
  CHECK(type_of("let opt 'a (x: a) : (#none | #some a) = #some x in opt true") == "#none | #some bool");
  // An unannotated constructor gets the sum type of what is known of it.
  // As in Futhark, a sum type is never guessed from the constructors used.
  CHECK(error_message("", "#foo 1").find("Type is ambiguous") == 0);
  CHECK(error_message("", "#foo 1 : #bar i32").find("expected #bar i32, got #foo i32") != std::string::npos);
  CHECK(error_message("type t = #a | #b", "(#c : t)").find("expected #a | #b") != std::string::npos);
}

TEST_CASE("type abbreviations") {
  Session s;
  s.decls(R"(
type point = {x: f32, y: f32}
type pair 'a = (a, a)
type vec [n] = [n]f32
type opt 'a = #none | #some a
def origin: point = {x = 0, y = 0}
def swap 'a ((a, b): pair a): pair a = (b, a)
def norm [n] (v: vec [n]): f32 = reduce (+) 0 (map (\x -> x * x) v)
def get (o: opt i32) = match o case #some x -> x case #none -> 0
)");
  CHECK(s.value_type("origin") == "{x: f32, y: f32}");
  CHECK(s.value_type("swap") == "(a, a) -> (a, a)");
  CHECK(s.value_type("norm") == "[n]f32 -> f32");
  CHECK(s.value_type("get") == "(#none | #some i32) -> i32");
  CHECK(s.type_of("swap (1u8, 2)") == "(u8, u8)");
  CHECK(s.type_of("[1,2,3] : vec [3]") == "[3]f32");
  CHECK(s.type_of("#none : opt bool") == "#none | #some bool");
  CHECK(error_message("type pair 'a = (a, a)\ndef p: pair = (1, 2)") == "type \"pair\" takes 1 argument(s), but is given 0");
  CHECK(error_message("def p: nosuch = 1") == "Unknown type \"nosuch\"");
}

TEST_CASE("arrays, indexing and slicing") {
  Session s;
  s.decls("def m: [][]f32 = [[1,2],[3,4]]\ndef v = [1i8, 2, 3]");
  CHECK(s.type_of("m[0]") == "[]f32");
  CHECK(s.type_of("m[0, 1]") == "f32");
  CHECK(s.type_of("m[1:, 0]") == "[]f32");
  CHECK(s.type_of("m[:, 0]") == "[]f32");
  CHECK(s.type_of("v[:]") == "[3]i8");
  CHECK(s.type_of("m[0]") == "[]f32");
  CHECK(s.type_of("v[::2]") == "[]i8");
  // Globals are not consumable (as in Futhark): update fresh copies.
  CHECK(s.type_of("let w = copy v in w with [0] = 7") == "[3]i8");
  CHECK(s.type_of("let n = copy m in n with [0] = [5, 6]") == "[][]f32");
  CHECK(s.type_of("(.[1]) v") == "i8");
  CHECK(s.type_of("let i = 1 in v[i]") == "i8");  // indices are i64
  CHECK(s.type_of("[[[1]]]") == "[1][1][1]i32");
  CHECK(s.type_of("0..<10") == "[10]i32");
  CHECK(s.type_of("1i8...3") == "[3]i8");
  CHECK(s.type_of("0..2..<9u8") == "[]u8");
  CHECK(s.type_of("let n = 5i64 in 0..<n") == "[n]i64");
  // Futhark accepts any signed integer as an index, but only i64 in slices.
  CHECK(error_message("def v = [1i8]", "v[1i32]") == "<no error>");
  CHECK(error_message("def v = [1i8]", "v[1u8]") == "in array index: expected a signed integer type, got u8");
  CHECK(error_message("def v = [1i8]", "v[1.0]").find("in array index") == 0);
  CHECK(error_message("def v = [1i8]", "v[0:1i32]") == "in array slice: expected i64, got i32");
  CHECK(error_message("def v = [1i8]", "v[0, 0]") == "too many indices (2) for array of type [1]i8");
  CHECK(error_message("", "(1)[0]") == "cannot index into a value of type i32");
  CHECK(error_message("", "[1, true]") ==
        "array elements have different types: i32 (element 1) and bool (element 2)");
  CHECK(error_message("def v = [1i8]", "v with [0] = 1.0") ==
        "in the value of an in-place update: expected i8, got f64");
  CHECK(error_message("", "0..<1.0").find("in range end") == 0);
}

TEST_CASE("ascription and coercion") {
  // Anonymous sizes of an ascription are inferred (Futhark's checkAscript).
  CHECK(type_of("[1,2] : []i64") == "[2]i64");
  CHECK(type_of("[1,2] : [2]i64") == "[2]i64");
  CHECK(type_of("let n = 2i64 in [1,2] :> [n]i32") == "[n]i32");
  CHECK(error_message("", "1 : bool") == "Expression does not have expected type (type ascription): expected bool, got i32");
  CHECK(error_message("", "[1] :> [1]bool") == "in size coercion: expected [1]bool, got [1]i32");
}

TEST_CASE("sizes of branches") {
  CHECK(type_of("if true then [1,2] else [3,4]") == "[2]i32");
  CHECK(type_of("if true then [1,2] else [3]") == "[]i32");
  CHECK(type_of("if true then [[1,2]] else [[3,4],[5,6]]") == "[][2]i32");
  CHECK(type_of("match 1 case 0 -> [1] case _ -> [1,2]") == "[]i32");
  CHECK(type_of("[[1,2],[3]]") == "[2][]i32");
}
