#include <doctest/doctest.h>

#include <string>

#include "syntax_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

namespace {
// "line:col: message" of the syntax error that `text` raises.
std::string err(std::string_view text, bool as_expr = false) {
  auto e = syntax_error(text, as_expr);
  if (!e) return "no error";
  if (e->kind != ErrorKind::Syntax) return "not a syntax error";
  return std::to_string(e->loc.line) + ":" + std::to_string(e->loc.col) + ": " + e->message;
}
}  // namespace

TEST_CASE("parser errors: expected X, got Y, with positions") {
  CHECK(err("def f = )") == "1:9: unexpected \")\"; expected an expression");
  CHECK(err("def f = 1 +") == "1:12: unexpected end of input; expected an expression");
  CHECK(err("def f = (1, 2") == "1:14: unexpected end of input; expected \")\" to close the tuple");
  CHECK(err("def f = [1, 2") == "1:14: unexpected end of input; expected \"]\" to close the array literal");
  CHECK(err("def f x =\n  let y = 1\n  then") == "3:3: unexpected \"then\"; expected \"in\" or another \"let\"");
  CHECK(err("def f = let x = 1\ndef g = 2") == "2:1: unexpected \"def\"; expected \"in\" (missing \"in\"?)");
  CHECK(err("def f = if x then y") == "1:20: unexpected end of input; expected \"else\" after the \"then\" branch");
  CHECK(err("def f = loop x = 0 do x") == "1:20: unexpected \"do\"; expected \"for\" or \"while\"");
  CHECK(err("def f = match x") == "1:16: unexpected end of input; expected \"case\"");
  CHECK(err("def f = match x case 1 => 2") == "1:24: unexpected \"=>\"; expected \"->\" after the pattern of \"case\"");
  CHECK(err("def f = \\ -> 1") == "1:11: unexpected \"->\"; expected a lambda parameter");
  CHECK(err("def = 1") == "1:5: unexpected \"=\"; expected a name, \"(\" or a parameter");
  CHECK(err("def f x") == "1:8: unexpected end of input; expected \"=\" before the body of \"f\"");
  CHECK(err("x = 1") == "1:1: unexpected \"x\"; expected a declaration");
  CHECK(err("def f = 1 2 3\n)") == "2:1: unexpected \")\"; expected a declaration");
  CHECK(err("def f (x: ) = x") == "1:11: unexpected \")\"; expected a type");
  CHECK(err("def f (x: [n+]i32) = x") == "1:14: unexpected \"]\"; expected an expression");
  CHECK(err("def f (x: [n i32) = x") == "1:17: unexpected \")\"; expected \"]\" to close the size");
  CHECK(err("type t = ") == "1:9: unexpected end of input; expected a type");
  CHECK(err("module M = ") == "1:11: unexpected end of input; expected a module expression");
  CHECK(err("module type S = { def x = 1 }") ==
        "1:19: unexpected \"def\"; expected \"val\", \"type\", \"module\", \"include\" or \"}\"");
  CHECK(err("def f = x.") == "1:11: unexpected end of input; expected a field name");
  CHECK(err("def f = 1..2") == "1:13: unexpected end of input; expected \"...\", \"..<\" or \"..>\" after the second element of a range");
  CHECK(err("def f = x with = 1") == "1:16: unexpected \"=\"; expected a field name");
  CHECK(err("def (!) x = x") == "1:6: \"!\" is a prefix operator and cannot be defined as an infix operator");
  CHECK(err("def f = __intrinsic x") == "1:9: \"__intrinsic\" must be followed by a string literal naming the intrinsic");
  CHECK(err("def f = #[attr x") == "1:16: unexpected \"x\"; expected \"]\" to close the attribute");
  CHECK(err("def f = 1 `g 2") == "1:14: unexpected \"2\"; expected \"`\" to close the infix function name");
  CHECK(err("def f = 1 ` 2") == "1:13: unexpected \"2\"; expected a function name between backticks");
  CHECK(err("(", true) == "1:2: unexpected end of input; expected an expression");
  CHECK(err("", true) == "1:1: unexpected end of input; expected an expression");
  CHECK(err("1 2 )", true) == "1:5: unexpected \")\"; expected end of input after the expression");
}

TEST_CASE("parser errors: the caret spans the offending token") {
  auto e = syntax_error("def f = let x = 1 module", false);
  REQUIRE(e);
  CHECK(e->loc.col == 19);
  CHECK(e->loc.end_col == 24);
  std::string rendered = e->render();
  CHECK(rendered.find("^^^^^^") != std::string::npos);
  CHECK(rendered.find("test.fut:1:19: syntax error:") == 0);
}

TEST_CASE("parser errors: deep nesting is an error, not a crash") {
  std::string deep(5000, '(');
  auto e = syntax_error(deep, true);
  REQUIRE(e);
  CHECK(e->message == "expression nested too deeply");
  std::string negs;
  for (int i = 0; i < 5000; ++i) negs += "- ";
  CHECK(syntax_error(negs + "x", true)->message == "expression nested too deeply");
  std::string types = "def f (x: ";
  for (int i = 0; i < 5000; ++i) types += "[]";
  types += "i32) = x";
  CHECK(syntax_error(types)->message == "expression nested too deeply");
  std::string arrays = "def f = " + std::string(5000, '[');
  CHECK(syntax_error(arrays)->message == "expression nested too deeply");
  // Long operator chains build deep trees too (later passes walk them
  // recursively), so they are bounded the same way.
  auto repeat = [](std::string_view s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
  };
  for (std::string_view chain : {"x + ", "x |> ", "f <| ", "1...", "let x = 1 ", "x with [0] = ", "x : t :> "})
    CHECK(syntax_error("def f = " + repeat(chain, 5000) + "x")->message == "expression nested too deeply");
  CHECK(syntax_error("def f = x" + repeat(".a", 5000))->message == "expression nested too deeply");
  CHECK(syntax_error("def f = x" + repeat("[0]", 5000))->message == "expression nested too deeply");
  CHECK(syntax_error("module M = F" + repeat(" A", 5000))->message == "expression nested too deeply");
  CHECK(syntax_error("type t = " + repeat("i32 -> ", 5000) + "i32")->message == "expression nested too deeply");
  CHECK(syntax_error("def f = " + repeat("{ a = ", 5000))->message == "expression nested too deeply");
  // Moderately deep nesting and long chains are fine.
  CHECK(pe(repeat("x + ", 150) + "x").size() > 0);
  std::string ok = std::string(60, '(') + "1" + std::string(60, ')');
  CHECK(pe(ok) == "1");
}
