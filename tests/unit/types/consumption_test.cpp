// Uniqueness and consumption checking (interp/types/consumption.cpp), with
// Futhark's messages; and the zero-order restrictions (order_check.cpp).
#include <doctest/doctest.h>

#include "types_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

namespace {
bool rejects(std::string_view decls, std::string_view fragment) {
  std::string m = error_message(decls);
  if (m.find(fragment) == std::string::npos) {
    MESSAGE("got: " << m);
    return false;
  }
  return true;
}
bool accepts(std::string_view decls) {
  std::string m = error_message(decls);
  if (m != "<no error>") MESSAGE("got: " << m);
  return m == "<no error>";
}
}  // namespace

TEST_CASE("valid in-place updates and consumption are accepted") {
  CHECK(accepts("def f (a: *[]i32) (i: i64) (x: i32) : []i32 = let a[i] = x in a"));
  CHECK(accepts("def f (a: *[]i32) (i: i32) : *[]i32 = a with [i] = 1"));
  CHECK(accepts("def f (n: i64) = let a = iota n let a[0] = 2 in a"));
  CHECK(accepts("def f (xs: []i32) = let ys = copy xs let ys[0] = 1 in (xs, ys)"));
  CHECK(accepts("def f (xs: []i32) = loop ys = copy xs for i < 3 do ys with [i] = 0"));
  CHECK(accepts("def g (a: *[]i32) : *[]i32 = a\ndef f (n: i64) = let a = replicate n 0i32 in g a"));
  CHECK(accepts("def f (xs: []i32) = let ys = xs |> map (\\x -> x + 1) |> copy in ys with [0] = 1"));
  // Lambda parameters are not unique, so not consumable.
  CHECK(rejects("def f (xs: []i32) = copy xs |> \\ys -> ys with [0] = 1", "\"ys\", which is not consumable"));
  CHECK(accepts("def f (n: i64) = let a = iota n let b = if n > 2 then a else iota n in b[0]"));
  // The result of a function with a unique return type is fresh.
  CHECK(accepts("def f (xs: []i32) = let ys = map (+1) xs let ys[0] = 0 in ys"));
}

TEST_CASE("use after consumption") {
  CHECK(rejects("def f (n: i64) = let a = iota n let b = a let a[0] = 1 in b",
                "Using variable \"a\", but this was consumed at 1:43"));
  CHECK(rejects("def f (n: i64) = let a = iota n let c = if true then iota n else a let c[0] = 4 in a[0]",
                "consumed"));
  CHECK(rejects("def g (a: *[]i64) = a[0]\ndef f (n: i64) = let a = iota n let x = g a in a", "\"a\", but this was consumed"));
  CHECK(rejects("def f (QUUX: *[]i32) = let g (x: i32) = x + QUUX[0] let QUUX[1] = 2 in g 1", "QUUX"));
}

TEST_CASE("consuming what is not consumable") {
  CHECK(rejects("def f (a: []i32) = let a[0] = 1 in a", "Consuming \"a\", which is not consumable."));
  CHECK(rejects("def g (a: *[]i64) = a[0]\ndef f (a: *[]i64) = map (\\i -> g a) (iota 3)",
                "Consuming variable \"a\", which is not consumable."));
  CHECK(rejects("def f (h: i32 -> []i32) = let xs = h 1 let xs[0] = 2 in 2", "\"h\", which is not consumable"));
  CHECK(rejects("def g : []i32 = [1, 2]\ndef f (b: bool) = if b then g else []", "aliases the free variable \"g\""));
}

TEST_CASE("unique results") {
  CHECK(rejects("def f (x: (*[]i32, *[]i32)) : (*[]i32, *[]i32) = (x.0, x.0)", "aliased to some other component"));
  CHECK(rejects("def f (a: []i32) : *[]i32 = a", "Unique-typed return value is aliased to \"a\""));
  CHECK(rejects("def f (a: *[][2]i32) (i: i64) : [][2]i32 = a with [i] = a[0]", "in-place update"));
}

TEST_CASE("loops") {
  CHECK(rejects("def f () = let a = copy (iota 3) let b = copy (iota 3) let a = loop a for i < 3 do "
                "let a[i] = 0 in b in b[0]",
                "Return value for consuming loop parameter \"a\" aliases \"b\""));
  CHECK(rejects("def f (n: i64) = loop {xs = xs: *[]i32, ys = ys: *[]i32} = {xs = replicate n 0, ys = replicate n 0} "
                "for i < 3 do {xs = xs, ys = xs}",
                "aliases other consumed loop parameter"));
}

TEST_CASE("functions where Futhark forbids them") {
  CHECK(rejects("def f (x: i32) = x\ndef g (b: bool) (n: i32) = (if b then f else f) n", "if-results may not be of function type"));
  CHECK(rejects("def f (x: i32) = x\ndef g (b: bool) (n: i32) = (match b case _ -> f) n", "match-results may not be of function type"));
  CHECK(rejects("def f (x: i32) = x\ndef arr = [f, f]", "functional"));
  CHECK(rejects("def main (f: i32 -> i32) = f 1", "Entry point functions may not be higher-order"));
  CHECK(rejects("entry e 't (x: t) = x", "Entry point functions may not be polymorphic"));
  CHECK(accepts("def main [n] (xs: [n]i32) = xs"));
  CHECK(accepts("def apply 't (f: t -> t) (x: t) = f x"));  // not an entry point
}

TEST_CASE("consuming functions passed where consumption is not allowed") {
  CHECK(rejects("def f (a: *[][]f64) = map (\\(r: *[]f64) : *[]f64 -> r) a", "does not allow consumption"));
  CHECK(accepts("def f (a: [][]f64) = map (\\(r: []f64) -> r[0]) a"));
}

TEST_CASE("duplicate definitions and ambiguous sum types") {
  CHECK(rejects("def bar () : i32 = 1\ndef bar () : i32 = 2", "Duplicate definition of value \"bar\""));
  CHECK(rejects("type t = i32\ntype t = f32", "Duplicate definition of type \"t\""));
  CHECK(rejects("module M = { def x = 1 def x = 2 }", "Duplicate definition of value \"x\""));
  CHECK(accepts("def x = 1\nmodule M = { def x = 2 }\ntype x = i32"));
  CHECK(rejects("def f : i32 = match (#bar 12) case (#foo _) -> 1 case (#bar _) -> 2", "Type is ambiguous"));
  CHECK(accepts("type t = #foo i32 | #bar i32\ndef f : i32 = match (#bar 12 : t) case (#foo _) -> 1 case (#bar _) -> 2"));
}

TEST_CASE("unique results of unannotated functions are inferred") {
  CHECK(accepts("def f (x: []i32) = map (+1) x\ndef g (xs: []i32) = let ys = f xs let ys[0] = 1 in ys"));
  CHECK(accepts("def pair (n: i64) = (iota n, iota n)\ndef use (n: i64) = let (a, b) = pair n let a[0] = 1 in (a, b)"));
  CHECK(accepts("def g (xs: []i32) = let inc (v: []i32) = map (+1) v let ys = inc xs let ys[0] = 0 in ys"));
  // Aliasing the parameter: not unique, so the caller may not consume it.
  CHECK(rejects("def f (x: []i32) = x\ndef g (xs: []i32) = let ys = f xs let ys[0] = 1 in ys",
                "Consuming \"xs\", which is not consumable."));
  CHECK(rejects("def dup x = (x, x)\ndef main (xs: []i32) : (*[]i32, *[]i32) = dup (copy xs)",
                "aliased to some other component"));
}

TEST_CASE("expressions (REPL inputs) are checked too") {
  CHECK(error_message("", "let a = iota 3 let b = a let a[0] = 1 in b").find("but this was consumed") !=
        std::string::npos);
  CHECK(error_message("", "let a = iota 3 let a[0] = 1 in a") == "<no error>");
  CHECK(error_message("", "match 1i32 case 1 -> 2").find("Unmatched cases") == 0);
}

TEST_CASE("let-bound lambdas have inferred unique results") {
  CHECK(accepts("def g (xs: []i32) = let f = \\(x: []i32) -> map (+1) x let ys = f xs let ys[0] = 1 in ys"));
  CHECK(rejects("def g (xs: []i32) = let f = \\(x: []i32) -> x let ys = f xs let ys[0] = 1 in ys",
                "Consuming \"xs\""));
}

TEST_CASE("evaluation order: held values may not be consumed later") {
  // A tuple's earlier components, an application's later arguments and the
  // function itself are held while the rest is evaluated.
  CHECK(rejects("def f (xs: *[]i32) = (xs, let _ = xs with [0] = 5 in 0i32)", "Using variable \"xs\", but this was consumed"));
  CHECK(rejects("def g (a: []i32) (b: []i32) = map2 (+) a b\ndef f (xs: *[]i32) = g (xs with [0] = 5) xs",
                "Using variable \"xs\", but this was consumed"));
  CHECK(rejects("def f (ys: *[]i32) = let g = \\(i: i32) -> ys[i] in g (let _ = ys with [0] = 1 in 0)",
                "Using variable \"ys\", but this was consumed"));
  CHECK(accepts("def f (xs: *[]i32) = (copy xs, let _ = xs with [0] = 5 in 0i32)"));
  CHECK(accepts("def f (xs: *[]i32) = (xs[0], xs with [0] = 5)"));
}

TEST_CASE("consumption wording and newer alias rules") {
  // A free variable of a lambda is "Consuming variable"; anything else is not.
  CHECK(rejects("def c (a: *[]i32) : []i32 = a\ndef f (a: *[]i32) = map (\\i -> c a) (iota 10)",
                "Consuming variable \"a\""));
  CHECK(rejects("def f (xs: *[]i32) = loop i = 0 while (let _ = xs with [0] = i in i < 3) do i + 1",
                "Consuming \"xs\", which is not consumable."));
  CHECK(rejects("def f (xss: [][3]i32) = loop acc = replicate 3 0 for xs in xss do let acc[0] = 42 in xs",
                "Return value for consuming loop parameter \"acc\" aliases \"xss\""));
  CHECK(rejects("def f (c: bool) (u: *[]i32) (a: *[]i32) (b: *[]i32) =\n"
                "  let (r0, r1) = if c then (u, u) else (let _ = u with [0] = 5 in (a, b))\n  let r0[0] = 1 in r1",
                "Using result of if-expression"));
  CHECK(rejects("def f (x: *[]i32) : i32 = let g = \\(_: i32) : *[]i32 -> x let r = g 0 let r[0] = 1 in x[0]",
                "Unique-typed return value is aliased to \"x\", which is not consumable."));
  CHECK(rejects("type~ t = #foo ([]i32) ([]i32) | #bar\ndef f (xs: *[]i32) : *t = #foo xs xs",
                "aliased to some other component"));
  CHECK(rejects("def upd (xs: *[]i32) (i: i32) : *[]i32 = xs with [0] = i\ndef h : i32 -> *[]i32 = upd (copy [1, 2, 3])",
                "Top-level constant of higher-order type"));
  CHECK(accepts("def upd (xs: *[]i32) (i: i32) : *[]i32 = xs with [0] = i\n"
                "def f (x: i32) = let g = upd (replicate 3 x) in g 0"));
  CHECK(accepts("type~ pair = ([]i32, []i32)\ndef f (n: i64) : *pair = (replicate n 0, replicate n 1)"));
  CHECK(rejects("type~ pair = ([]i32, []i32)\ndef f (n: i64) : *pair = let xs = replicate n 0 in (xs, xs)",
                "internal aliases"));
}

TEST_CASE("a unique record result makes every component unique") {
  // *{...}: the caller's result aliases neither argument (here a global,
  // whose aliasing would otherwise be returned from `main`).
  CHECK(error_message(R"(
module type S = { type t  val z: t }
module H (R: S) = {
  def ls [n] (vars: [n]R.t) : *{parameters: [n]R.t, err: R.t} = {parameters = map (\_ -> R.z) vars, err = R.z}
  def dv : [2]R.t = [R.z, R.z]
  def main (x: i32) = let r = ls dv in (r.err, x)
}
)") == "<no error>");
  // And the definition must then not return an alias of its parameter.
  CHECK(rejects("def f (xs: []i32) : *{a: []i32, b: i32} = {a = xs, b = 0}", "not consumable"));
}
