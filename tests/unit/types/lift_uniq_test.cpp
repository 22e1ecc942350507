// Futhark's liftedness rules (type^ / type~, '^a / '~a) and the consumption
// rules for closures, partial applications and evaluation order.
#include <doctest/doctest.h>

#include "types_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

namespace {
bool has(const std::string& msg, const std::string& part) { return msg.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("arrays of lifted types are rejected") {
  CHECK(has(error_message("type^ arr = [2]i32\ntype bad = [3]arr"),
            "Cannot create array with elements of lifted type \"arr\""));
  CHECK(has(error_message("type~ arr = []i32\ntype~ bad = [3]arr"), "size-lifted type \"arr\""));
  CHECK(has(error_message("def f (arr: [](i32 -> i32)) = arr"), "elements of lifted type"));
  CHECK(has(error_message("module m = \\(p: {type^ a}) -> {def v : []p.a = []}"), "might contain function"));
  CHECK(error_message("type arr = [2]i32\ntype ok = [3]arr") == "<no error>");
  CHECK(error_message("def f '^a (x: a) : (a, i32) = (x, 1)") == "<no error>");
}

TEST_CASE("non-lifted abbreviations may not contain lifted types") {
  CHECK(has(error_message("type t '^a = a"), "Non-lifted type abbreviations may not contain functions."));
  CHECK(has(error_message("type t = i32 -> i32"), "Non-lifted type abbreviations may not contain functions."));
  CHECK(has(error_message("type~ s = []i32\ntype t = (s, i32)"), "Non-size-lifted type abbreviations"));
  CHECK(error_message("type^ t = i32 -> i32\ntype~ s = ?[n].[n]i32\ntype^ u '^a = a") == "<no error>");
}

TEST_CASE("a module's types are at most as lifted as its module type's") {
  CHECK(has(error_message("module type mt = {type~ vector}\nmodule m = {type^ vector = []i32}: mt"), "\"vector\""));
  CHECK(error_message("module type mt = {type^ t}\nmodule m = {type~ t = []i32}: mt") == "<no error>");
}

TEST_CASE("'^a values are functional in branches, '~a ones are not") {
  CHECK(has(error_message("def c '^a (b: bool) (x: a) (y: a) : a = if b then x else y"), "function type"));
  CHECK(error_message("def c '~a (b: bool) (x: a) (y: a) : a = if b then x else y") == "<no error>");
  CHECK(error_message("def c 'a (b: bool) (x: a) (y: a) : a = if b then x else y") == "<no error>");
}

TEST_CASE("consumption through partial application") {
  const char* upd = "def update (xs: *[]i32) (i: i64) (y: i32) = xs with [i] = y\n";
  auto m = [&](const std::string& body) { return error_message(std::string(upd) + body); };
  CHECK(has(m("def main (a: *[]i32) = let f = update a in (f 0 0, f 0 0)"), "contains consumption"));
  CHECK(has(m("def main (a: *[]i32) (is: []i64) = map (update a 0) [1, 2]"), "Argument of functional type"));
  CHECK(m("def main (a: *[]i32) = update a 0 1") == "<no error>");
  CHECK(m("def main (a: *[]i32) = let b = update a 0 1 in b") == "<no error>");
}

TEST_CASE("a consumed argument may not alias the applied closure") {
  CHECK(has(error_message("def main (x: *[]i32) : i32 =\n"
                          "  let f = \\(y: *[]i32) : i32 -> let y[0] = 10 in y[0] + x[0]\n"
                          "  in f x"),
            "aliases the function being applied"));
  CHECK(error_message("def main (x: *[]i32) (z: *[]i32) : i32 =\n"
                      "  let f = \\(y: *[]i32) : i32 -> let y[0] = 10 in y[0] + x[0]\n"
                      "  in f z") == "<no error>");
}

TEST_CASE("evaluation order: indices and loop initial values") {
  CHECK(has(error_message("def main (xs: *[]i32) = xs[let ys = xs with [0] = 5 in ys[1]]"),
            "Using variable \"xs\", but this was consumed"));
  CHECK(has(error_message("def main (ys: *[]i32) =\n"
                          "  loop acc = (let _ = ys with [0] = 1 in 0) for x in map (+ 1) ys do acc + x"),
            "Using variable \"ys\", but this was consumed"));
  CHECK(error_message("def main (xs: *[]i32) (i: i64) = xs[i]") == "<no error>");
}

TEST_CASE("unique constants and unique function results") {
  CHECK(has(error_message("def global : *[]i32 = [1, 2, 3]"), "A top-level constant cannot have a unique type."));
  CHECK(has(error_message("def cons (f: () -> *[2]i32) : *[2]i32 = f () with [0] = 1\n"
                          "def main (x: [2]i32) : *[2]i32 = let f () : []i32 = x in cons f"),
            "non-unique"));
  CHECK(error_message("def cons (f: () -> *[2]i32) : *[2]i32 = f () with [0] = 1\n"
                      "def main (x: [2]i32) : *[2]i32 = let f () = copy x in cons f") == "<no error>");
}

TEST_CASE("functor instances are not consumption-checked again") {
  CHECK(error_message("module type m = {type t val ne : t}\n"
                      "module mk (M: m) = { def f (n: i64) = map (\\_ -> M.ne) (iota n) }\n"
                      "module v = {type t = [3]i64 def ne : [3]i64 = [1, 2, 3]}\n"
                      "module s = mk v") == "<no error>");
}
