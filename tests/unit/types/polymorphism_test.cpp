// Let-polymorphism, explicit type parameters, instantiations and the
// annotations the evaluator relies on.
#include <doctest/doctest.h>

#include "types_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

TEST_CASE("explicit type parameters") {
  Session s;
  Program& p = s.decls(R"(
def id 't (x: t): t = x
def pair = (id 1, id true)
)");
  CHECK(s.value_type("id") == "t -> t");
  CHECK(s.value_type("pair") == "(i32, bool)");
  CHECK(p.decls[0]->quantified.size() == 1);
  CHECK(p.decls[0]->type->kind == Type::Kind::Function);
  CHECK(p.decls[0]->type->param->kind == Type::Kind::Param);
  CHECK(p.decls[0]->type->param->var_id == p.decls[0]->quantified[0]);
  auto ids = uses_of(p, "id");
  REQUIRE(ids.size() == 2);
  CHECK(types_str(ids[0]->instantiation) == "i32");
  CHECK(types_str(ids[1]->instantiation) == "bool");
  CHECK(to_string(ids[0]->type) == "i32 -> i32");
  // Inside id, x has the rigid parameter type.
  CHECK(p.decls[0]->body->type->kind == Type::Kind::Param);
  CHECK(count_unannotated(p) == 0);
}

TEST_CASE("inferred polymorphism of top-level functions") {
  Session s;
  s.decls(R"(
def twice f x = f (f x)
def fst (a, _) = a
def apply_pair f (a, b) = (f a, f b)
def inc x = x + 1
def sq (x: f32) = x * x
)");
  CHECK(s.value_type("twice") == "(a -> a) -> a -> a");
  CHECK(s.value_type("fst") == "(a, b) -> a");
  CHECK(s.value_type("apply_pair") == "(a -> b) -> (a, a) -> (b, b)");
  CHECK(s.value_type("inc") == "i32 -> i32");  // overloaded: defaulted, not generalised
  CHECK(s.value_type("sq") == "f32 -> f32");
  CHECK(s.type_of("twice (\\x -> x * 2.0) 1.5") == "f64");
  CHECK(s.type_of("fst (1u8, true)") == "u8");
}

TEST_CASE("local let-polymorphism") {
  // Only a local function's declared type parameters are generalised (as
  // in Futhark's Unsized.hs, LetFun).
  Session s;
  Program& p = s.decls(R"(
def g = let f 'a (x: a) = x in (f 1, f true)
def h (y: i64) = let k 'a (x: a) (z: i64) = (x, y + z) in (k 1f32 2, k [1u8] 3)
)");
  CHECK(s.value_type("g") == "(i32, bool)");
  // The array part aliases no parameter, so (as in Futhark) it is inferred unique.
  CHECK(s.value_type("h") == "i64 -> ((f32, i64), (*[1]u8, i64))");
  auto fs = uses_of(p, "f");
  REQUIRE(fs.size() == 2);
  CHECK(types_str(fs[0]->instantiation) == "i32");
  CHECK(types_str(fs[1]->instantiation) == "bool");
  // The LetFun records its quantified variables.
  Expr& letfun = *p.decls[0]->body;
  REQUIRE(letfun.kind == Expr::Kind::LetFun);
  CHECK(letfun.quantified.size() == 1);
  CHECK(count_unannotated(p) == 0);
}

TEST_CASE("local functions are not generalised over their inferred types") {
  // Futhark's tests/types/inference5.fut.
  CHECK(error_message("", "let f x = x in (f 1, f true)").find("Cannot apply \"f\"") != std::string::npos);
  CHECK(type_of("let f x = x in (f 1, f 2)") == "(i32, i32)");
}

TEST_CASE("local functions with overloaded types are not generalised") {
  CHECK(type_of("let f x = x + 1 in f 2.5") == "f64");
  CHECK(error_message("", "let f x = x + 1 in (f 2.5, f 1u8)").find("Cannot apply \"f\" to \"1u8\" (argument 1): expected a floating-point type, got u8") != std::string::npos);
}

TEST_CASE("prelude-style intrinsic declarations") {
  Session s;
  CHECK(s.value_type("map") == "(a -> x) -> [n]a -> *[n]x");
  CHECK(s.value_type("replicate") == "(n: i64) -> t -> *[n]t");
  CHECK(s.type_of("map (+1) [1,2,3]") == "[3]i32");
  CHECK(s.type_of("map (\\x -> x > 1) (iota 5)") == "[5]bool");
  CHECK(s.type_of("replicate 3 1.0f32") == "[3]f32");
  CHECK(s.type_of("reduce (+) 0 (map f64.i32 [1, 2])") == "f64");
  CHECK(s.type_of("zip [1,2] [true,false]") == "[2](i32, bool)");
  CHECK(s.type_of("unzip (zip [1,2] [true,false])") == "([2]i32, [2]bool)");
  CHECK(s.type_of("length [1,2,3]") == "i64");
  CHECK(s.type_of("[1,2] ++ [3]") == "[]i32");
  CHECK(s.type_of("filter (>0) [1,-2]") == "[]i32");
  CHECK(s.type_of("i32.sum") == "[]i32 -> i32");
  CHECK(s.type_of("i32.max 1 2") == "i32");
}

TEST_CASE("instantiations of prelude functions") {
  Session s;
  Program& p = s.decls(R"(
def f (xs: []f32) = map (\x -> (x, 1i64)) xs
def e = replicate 0 (replicate 3 0u16)
)");
  auto maps = uses_of(p, "map");
  REQUIRE(maps.size() == 1);
  CHECK(types_str(maps[0]->instantiation) == "f32, (f32, i64)");
  auto reps = uses_of(p, "replicate");
  REQUIRE(reps.size() == 2);
  CHECK(types_str(reps[0]->instantiation) == "[3]u16");
  CHECK(types_str(reps[1]->instantiation) == "u16");
  CHECK(s.value_type("e") == "[0][3]u16");
  CHECK(count_unannotated(p) == 0);
}

TEST_CASE("literal annotations") {
  Session s;
  Program& p = s.decls("def x: i64 = 1 + 2\ndef y = 1.5 * 2f32\ndef z = 7");
  CHECK(p.decls[0]->body->a->prim == Prim::I64);
  CHECK(p.decls[0]->body->b->prim == Prim::I64);
  CHECK(p.decls[1]->body->a->prim == Prim::F32);
  CHECK(p.decls[2]->body->prim == Prim::I32);
}

TEST_CASE("size parameters") {
  Session s;
  Program& p = s.decls(R"(
def len [n] 't (xs: [n]t): i64 = n
def dup [n] (xs: [n]i32): [n](i32, i32) = map (\x -> (x, x)) xs
def mk (n: i64): [n]i32 = replicate n 0
)");
  CHECK(s.value_type("len") == "[n]t -> i64");
  CHECK(s.value_type("dup") == "[n]i32 -> [n](i32, i32)");
  CHECK(s.value_type("mk") == "(n: i64) -> [n]i32");
  CHECK(s.type_of("dup [1,2,3]") == "[3](i32, i32)");
  CHECK(s.type_of("mk 4") == "[4]i32");
  CHECK(s.type_of("let k = 5 in mk k") == "[k]i32");
  CHECK(p.decls[0]->quantified.size() == 1);
}

TEST_CASE("point-free top-level definitions") {
  Session s;
  Program& p = s.decls(R"(
def ident = \x -> x
def total = reduce (+) 0
def empty = []
)");
  CHECK(s.value_type("ident") == "a -> a");
  CHECK(s.value_type("total") == "[]i32 -> i32");
  CHECK(s.value_type("empty") == "[0]a");
  CHECK(p.decls[2]->quantified.size() == 1);
  CHECK(s.type_of("(ident 1u8, ident true)") == "(u8, bool)");
  // The ascription's `[]` is inferred (Futhark's checkAscript).
  CHECK(s.type_of("empty : []f32") == "[0]f32");
}

TEST_CASE(":type of polymorphic expressions") {
  Session s;
  CHECK(s.type_of("map", true) == "(a -> b) -> []a -> *[]b");
  CHECK(s.type_of("\\x -> x", true) == "a -> a");
  CHECK(s.type_of("\\x -> x + 1", true) == "i32 -> i32");
  CHECK(s.type_of("map", false) == "(() -> ()) -> []() -> *[]()");
}
