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

TEST_CASE("non-lifted type parameters cannot be functions") {
  CHECK(error_message("def cond 'a (b: bool) (x: a) (y: a) : a = if b then x else y\n"
                      "def g (b: bool) : i32 = let f = cond b (\\(x: i32) -> x + x) (\\(x: i32) -> x) in f 42")
            .find("Cannot instantiate the non-lifted type parameter 'a of \"cond\"") == 0);
  CHECK(error_message("def cond '^a (b: bool) (x: a) (y: a) : a = x\n"
                      "def g (b: bool) : i32 = let f = cond b (\\(x: i32) -> x + x) (\\(x: i32) -> x) in f 42") ==
        "<no error>");
}

TEST_CASE("module lambdas: later parameter types refer to earlier parameters") {
  const char* ops = "module type operation = {type a type b val f : a -> b}\n"
                    "module i2f : operation with a = i32 with b = f64 = { type a = i32 type b = f64 def f (x: a) = f64.i32 x }\n"
                    "module sq : operation with a = f64 with b = f64 = { type a = f64 type b = f64 def f (x: a) = f64.sqrt x }\n";
  CHECK(error_message(std::string(ops) +
                      "module compose = \\(F: operation) -> \\(G: operation with a = F.b) -> "
                      "{ type a = F.a type b = G.b def f (x: a) = G.f (F.f x) }\n"
                      "module c = compose i2f sq\ndef r = c.f 9") == "<no error>");
  CHECK(error_message(std::string(ops) +
                      "module compose = \\(P: {module F: operation module G: operation with a = F.b}) -> "
                      "{ type a = P.F.a def f (x: a) = P.G.f (P.F.f x) }\n"
                      "module c = compose { module F = i2f module G = sq }\ndef r = c.f 9") == "<no error>");
}

TEST_CASE("an index of unknown type is decided by its other uses") {
  CHECK(error_message("def f (xs: []i32) (n: i32) = map (\\i -> xs[i]) (0..<n)") == "<no error>");
  CHECK(error_message("def f (xs: []i32) (n: i64) = map (\\i -> xs[i]) (iota n)") == "<no error>");
  Session s;
  s.decls("def f (xs: []i32) i = xs[i]");
  CHECK(s.value_type("f") == "[]i32 -> i32 -> i32");  // Futhark defaults it to i32
}

TEST_CASE("module lambdas are checked where written; lifted abstract types") {
  CHECK(error_message("module m = \\(p: {type^ a}) -> ({type^ t = p.a}: {type t})").find("non-lifted") !=
        std::string::npos);
  CHECK(error_message("module m = \\(p: {type a}) -> ({type t = p.a}: {type t})") == "<no error>");
  CHECK(error_message("module m = \\(p: {val x: i32}) -> {def y = p.x + true}") != "<no error>");
}
