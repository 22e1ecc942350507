// Static restrictions Futhark imposes beyond plain typing: sizes are i64,
// size binders must be used, non-lifted abstract types, signed indices.
#include <doctest/doctest.h>

#include "types_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

TEST_CASE("a size must name an i64") {
  CHECK(error_message("def f (n: f64, a: [n]i32) : []i32 = a").find("Size \"n\" must have type i64") == 0);
  CHECK(error_message("def f (n: i64, a: [n]i32) : []i32 = a") == "<no error>");
  CHECK(error_message("def f (n: i64) (a: [n]i32) : [n]i32 = a") == "<no error>");
}

TEST_CASE("a let-bound size must appear in the pattern") {
  CHECK(error_message("def f (xs: []i32) = let [n] ys = filter (> 0) xs in n") == "Size [n] unused in pattern.");
  CHECK(error_message("def f (xs: []i32) = let [n] (ys: [n]i32) = filter (> 0) xs in n") == "<no error>");
}

TEST_CASE("non-lifted abstract types cannot be functions") {
  CHECK(error_message("module m = {type^ t = i32 -> i32}: {type t}").find("non-lifted") != std::string::npos);
  CHECK(error_message("module m = {type^ t = i32 -> i32}: {type^ t}") == "<no error>");
  CHECK(error_message("module m = {type t = i32}: {type t}") == "<no error>");
}

TEST_CASE("match must be exhaustive") {
  const char* t = "type foobar = #foo i32 | #bar i32\n";
  auto m = [&](const std::string& body) { return error_message(std::string(t) + body); };
  CHECK(m("def f (x: foobar) : i32 = match x case #foo _ -> 1").find("Unmatched cases") == 0);
  CHECK(m("def f (x: foobar) : i32 = match x case #foo _ -> 1 case #bar _ -> 2") == "<no error>");
  CHECK(m("def f (x: foobar) : i32 = match x case #foo 1 -> 1 case #bar _ -> 2").find("Unmatched cases") == 0);
  CHECK(m("def f (x: foobar) : i32 = match x case #foo 1 -> 1 case _ -> 2") == "<no error>");
  CHECK(error_message("def f (b: bool) (c: bool) : i32 = match (b, c) case (true, _) -> 1 case (false, true) -> 2")
            .find("Unmatched cases") == 0);
  CHECK(error_message("def f (b: bool) (c: bool) : i32 = match (b, c) case (true, _) -> 1 case (_, _) -> 2") ==
        "<no error>");
  CHECK(error_message("def f (x: i32) : i32 = match x case 1 -> 1 case 2 -> 2").find("Unmatched cases") == 0);
  CHECK(error_message("def f (r: {a: i32, b: bool}) : i32 = match r case {a = _, b = true} -> 1 case {a, b = false} -> a") ==
        "<no error>");
}

TEST_CASE("Futhark's argument wording and local record inference") {
  CHECK(error_message("def f 't (x: t) (y: t) = (x, y)\ndef g () = f 1 false")
            .find("Cannot apply \"f\" to \"false\" (argument 2)") == 0);
  CHECK(error_message("def f (x: i32) (y: i32) = let g v = v.0 in g (x, y)") == "<no error>");
  CHECK(error_message("module F (S: {val x : i32}) : {val y : i32} = {def z : i32 = 2}").find("\"y\"") !=
        std::string::npos);
}

TEST_CASE("the unmatched case is named") {
  CHECK(error_message("type some 't = #none | #some t\ntype foobar = #foo (some i32) | #bar\n"
                      "def f (x: foobar) : i32 = match x case #bar -> 0 case #foo (#some 5) -> 2") ==
        "Unmatched cases in match expression: #foo #none");
  CHECK(error_message("type some 't = #none | #some t\ntype foobar = #foo (some i32) | #bar\n"
                      "def f (x: foobar) : i32 = match x case #bar -> 0 case #foo #none -> 1 case #foo (#some 5) -> 2") ==
        "Unmatched cases in match expression: #foo (#some _)");
  CHECK(error_message("type some 't = #none | #some t\ntype foobar = #foo (some i32) | #bar\n"
                      "def f (x: foobar) : i32 = match x case #bar -> 0 case #foo (#some _) -> 2") ==
        "Unmatched cases in match expression: #foo #none");
}
