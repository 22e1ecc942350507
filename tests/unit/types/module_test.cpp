// Modules: structures, qualified names, open, local, nested modules,
// imports, module types and ascription, parametric modules.
#include <doctest/doctest.h>

#include "types_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

TEST_CASE("structures and qualified names") {
  Session s;
  s.decls(R"(
module M = {
  type t = i64
  def x: t = 1
  def f (y: t) = y + x
  module N = { def z = 2.0f32 }
}
def use = M.f M.x
def nested = M.N.z
def typed (v: M.t) = v
module M2 = M
)");
  CHECK(s.value_type("M.x") == "i64");
  CHECK(s.value_type("M.f") == "i64 -> i64");
  CHECK(s.value_type("use") == "i64");
  CHECK(s.value_type("nested") == "f32");
  CHECK(s.value_type("typed") == "i64 -> i64");
  CHECK(s.type_of("M2.N.z") == "f32");
  CHECK(s.type_of("M.(f x)") == "i64");
  CHECK(error_message("module M = { def x = 1 }", "M.y") == "Unknown name \"M.y\"");
  // Nope is no module, so Nope.y is a projection of an unknown variable.
  CHECK(error_message("", "Nope.y") == "Unknown name \"Nope\"");
}

TEST_CASE("qualified names that are record projections") {
  Session s;
  s.decls("module M = { def r = {a = {b = 1u8}} }\ndef q = {c = true}");
  CHECK(s.type_of("M.r.a.b") == "u8");
  CHECK(s.type_of("q.c") == "bool");
  CHECK(s.type_of("let p = (1, {d = 2i16}) in p.1.d") == "i16");
}

TEST_CASE("open and local") {
  Session s;
  s.decls(R"(
module A = { def a = 1i8  local def hidden = 2  def b = hidden + 1 }
module B = { open A  def c = a }
open B
local def secret = 3
)");
  CHECK(s.value_type("B.a") == "i8");  // open re-exports
  CHECK(s.value_type("c") == "i8");
  CHECK(s.value_type("A.hidden") == "<none>");
  CHECK(s.value_type("A.b") == "i32");
  CHECK(s.type_of("secret") == "i32");  // local: visible in this file
}

TEST_CASE("operators defined in modules shadow the built-in ones") {
  Session s;
  s.decls(R"(
module V = {
  type v = (f32, f32)
  def (+) ((a, b): v) ((c, d): v): v = (a + c, b + d)
  def twice (x: v) = x + x
}
)");
  CHECK(s.value_type("V.twice") == "(f32, f32) -> (f32, f32)");
  CHECK(s.type_of("(1f32, 2f32) V.+ (3, 4)") == "(f32, f32)");
  CHECK(s.type_of("V.((1, 2) + (3, 4))") == "(f32, f32)");
  CHECK(s.type_of("1 + 2") == "i32");
}

TEST_CASE("imports") {
  Session s;
  auto lib = std::make_shared<Program>(parse_program(src("def helper (x: i32) = x * 2\nlocal def priv = 1", "lib.fut")));
  Program main = parse_program(src("import \"lib\"\ndef y = helper 3", "main.fut"));
  main.decls[0]->imported = lib;
  s.checker.check_decls(main.decls);
  CHECK(s.value_type("y") == "i32");
  CHECK(s.value_type("helper") == "i32 -> i32");
  CHECK(s.value_type("priv") == "<none>");
  CHECK(lib->decls[0]->type);
  // The same file imported again is not checked again.
  Program again = parse_program(src("import \"lib\"", "other.fut"));
  again.decls[0]->imported = lib;
  s.checker.check_decls(again.decls);
}

TEST_CASE("module types and ascription") {
  Session s;
  s.decls(R"(
module type NUM = {
  type t
  val zero: t
  val add: t -> t -> t
}
module I: NUM = {
  type t = i32
  def zero: t = 0
  def add (x: t) (y: t) = x + y
  def extra = 5
}
)");
  // Abstract types are opaque after ascription (the AST still sees i32).
  CHECK(s.type_of("I.add I.zero I.zero") == "i32");
  CHECK_THROWS(s.type_of("I.add I.zero 1"));
  CHECK(s.value_type("I.extra") == "<none>");     // but ascription hides names
  CHECK(error_message("module type S = { val f: i32 -> i32 }\nmodule M: S = { def f (x: bool) = x }") ==
        "Module type specifies\n  val f : i32 -> i32\nbut module provides\n  val f : bool -> bool");
  CHECK(error_message("module type S = { val g: i32 }\nmodule M: S = { def f = 1 }") ==
        "module does not define value \"g\" required by its module type");
}

TEST_CASE("parametric modules") {
  Session s;
  Program& p = s.decls(R"(
module type NUM = { type t  val zero: t  val add: t -> t -> t }
module Sum (N: NUM) = {
  def sum (xs: []N.t): N.t = reduce N.add N.zero xs
}
module I = { type t = i32  def zero: t = 0  def add (x: i32) (y: i32) = x + y }
module F = { type t = f64  def zero: t = 0  def add (x: f64) (y: f64) = x + y }
module SI = Sum I
module SF = Sum(F)
)");
  CHECK(s.value_type("SI.sum") == "[]i32 -> i32");
  CHECK(s.value_type("SF.sum") == "[]f64 -> f64");
  // Each application checked its own copy of the body.
  REQUIRE(p.decls[4]->module->kind == ModExpr::Kind::Apply);
  REQUIRE(p.decls[4]->module->instance);
  REQUIRE(p.decls[5]->module->instance);
  auto& si = p.decls[4]->module->instance->decls.at(0);
  auto& sf = p.decls[5]->module->instance->decls.at(0);
  CHECK(to_string(si->type) == "[]i32 -> i32");
  CHECK(to_string(sf->type) == "[]f64 -> f64");
  CHECK(error_message("module type S = { val x: i32 }\nmodule F (P: S) = { def y = P.x + true }").find(
            "in right operand of \"+\"") == 0);
  CHECK(error_message("module type S = { val x: i32 }\nmodule F (P: S) = { def y = P.x }\nmodule G = F { def z = 1 }") ==
        "module does not define value \"x\" required by its module type");
}

TEST_CASE("a Futhark-style numeric prelude module") {
  Session s;
  s.decls(R"(
module type from_prim = {
  type t
  val i32: i32 -> t
  val f64: f64 -> t
}
module type numeric = {
  include from_prim
  val +: t -> t -> t
  val ==: t -> t -> bool
  val neg: t -> t
  val highest: t
  val lowest: t
  val sum [n]: [n]t -> t
  val mad: (a: t) -> (b: t) -> (c: t) -> t
}
module i8: (numeric with t = i8) = {
  type t = i8
  def (x: i8) + (y: i8): i8 = __intrinsic "add8" x y
  def (x: i8) == (y: i8): bool = __intrinsic "eq_i8" x y
  def i32 (x: i32): i8 = __intrinsic "sext_i32_i8" x
  def f64 (x: f64): i8 = __intrinsic "fptosi_f64_i8" x
  def neg (x: t) = -x
  def highest = 127i8
  def lowest = highest + 1i8
  def sum = reduce (+) (i32 0)
  def mad a b c = a + b + c
}
)");
  CHECK(s.value_type("i8.lowest") == "i8");
  CHECK(s.value_type("i8.sum") == "[]i8 -> i8");
  CHECK(s.value_type("i8.mad") == "i8 -> i8 -> i8 -> i8");
  CHECK(s.type_of("i8.i32 3 i8.+ 4") == "i8");
  CHECK(s.type_of("1 + 2") == "i32");  // the module's + does not leak
  CHECK(error_message("module type S = { type t  val f: t -> t }\nmodule M: (S with t = i32) = { type t = i32 }") ==
        "module does not define value \"f\" required by its module type");
}

TEST_CASE("type refinements in module types") {
  CHECK(error_message("module type S = { type t }\nmodule M: S with t = i32 = { type t = f32 }") ==
        "Module defines\n  type t = f32\nbut module type requires\n  type t = i32");
  CHECK(error_message("module M: { type t = i32 } = { type t = bool }") ==
        "Module defines\n  type t = bool\nbut module type requires\n  type t = i32");
  // In a functor body, a refined parameter type is known.
  Session s;
  s.decls(R"(
module type S = { type t  val one: t }
module F (P: S with t = f32) = { def two: P.t = P.one + 1.0 }
module G = F { type t = f32  def one: f32 = 1 }
)");
  CHECK(s.value_type("G.two") == "f32");
  CHECK(error_message("module type S = { type t  val one: t }\nmodule F (P: S) = { def two = P.one + 1 }")
            .find("in left operand of \"+\": expected a numeric type, got t") == 0);
}

TEST_CASE("a functor parameter's module type may name an earlier parameter") {
  Session s;
  s.decls(R"(
module type rules = { type cell  val value: cell -> i32 }
module type visuals = { type cell  val init: bool -> cell }
module gen (R: rules) (V: visuals with cell = R.cell) = { def f (b: bool): i32 = R.value (V.init b) }
module X = gen { type cell = bool  def value (b: bool): i32 = if b then 1 else 0 } { type cell = bool  def init (b: bool) = b }
)");
  CHECK(s.value_type("X.f") == "bool -> i32");
  CHECK(error_message(R"(
module type rules = { type cell  val value: cell -> i32 }
module type visuals = { type cell  val init: bool -> cell }
module gen (R: rules) (V: visuals with cell = R.cell) = { def f (b: bool): i32 = R.value (V.init b) }
module X = gen { type cell = bool  def value (b: bool): i32 = if b then 1 else 0 } { type cell = i32  def init (b: bool) = 1i32 }
)") == "Module defines\n  type cell = i32\nbut module type requires\n  type cell = bool");
}

TEST_CASE("with-refinements inside specifications see the earlier specifications") {
  Session s;
  s.decls(R"(
module type vspace = { type real  type vector  val dot: vector -> vector -> real }
module type vspace_2d = {
  type real
  include vspace with real = real with vector = {x: real, y: real}
}
module type scalar = { type t  val +: t -> t -> t  val *: t -> t -> t }
module mk (T: scalar): vspace_2d with real = T.t = {
  type real = T.t
  type vector = {x: real, y: real}
  def dot (a: vector) (b: vector) = (a.x T.* b.x) T.+ (a.y T.* b.y)
}
module V = mk { type t = f64  def (a: f64) + (b: f64) = a + b  def (a: f64) * (b: f64) = a * b }
)");
  CHECK(s.type_of("V.dot {x = 1, y = 2} {x = 3, y = 4}") == "f64");
  // The refinement names the earlier `type real`: the module's vector must
  // be a record of it.
  CHECK(error_message(R"(
module type vspace = { type real  type vector }
module type vspace_2d = { type real  include vspace with real = real with vector = {x: real, y: real} }
module M: vspace_2d = { type real = f32  type vector = {x: f64, y: f64} }
)").find("Module defines\n  type vector = {x: f64, y: f64}\nbut module type requires\n  type vector = {x: f32, y: f32}") == 0);
  // Specifications written at the use site are read there, even after an
  // include of a declared module type.
  Session u;
  u.decls(R"(
module type S = { type real  val zero: real }
module type P = { type t  val z: t }
module F (R: P): { include S with real = R.t  val one: R.t } = { type real = R.t  def zero = R.z  def one = R.z }
module G = F { type t = i32  def z = 0i32 }
)");
  CHECK(u.value_type("G.one") == "i32");
}
