// What function values expose to consumers that analyse them (the
// flattener): closures with their AST, operators, partial applications,
// sections, and the intrinsic a prelude function forwards to.
#include "eval_test_util.hpp"

#include "interp/eval/callable.hpp"
#include "interp/eval/env.hpp"

using thorn::Callable;
using thorn::Session;
using thorn::Value;

namespace {
Value value_of(Session& s, const std::string& expr) {
  Session::Outcome o = s.eval_input(expr, "[callable]");
  REQUIRE(o.is_expression);
  REQUIRE(o.value.kind == Value::Kind::Function);
  return o.value;
}
}  // namespace

TEST_CASE("prelude functions name the intrinsic they forward to") {
  Session& s = thorn::test::shared_session();
  Value map = value_of(s, "map (+ 1i32)");
  REQUIRE(map.fn->kind == Callable::Kind::Partial);
  const Callable& target = *map.fn->fn;
  CHECK(target.kind == Callable::Kind::Closure);
  CHECK(target.name == "map");
  CHECK(target.intrinsic_alias() == std::optional<std::string>("map"));
  REQUIRE(map.fn->args.size() == 1);
  const Callable& section = *map.fn->args[0].fn;
  CHECK(section.kind == Callable::Kind::RightSection);
  CHECK(section.fn->kind == Callable::Kind::Operator);
  CHECK(section.fn->name == "+");
  CHECK(section.args[0].scalar.i == 1);

  CHECK(value_of(s, "f32.sqrt").fn->intrinsic_alias() == std::optional<std::string>("sqrt"));
  CHECK(value_of(s, "i64.f32").fn->intrinsic_alias() == std::optional<std::string>("to_i64"));
  // A prelude function built from others is an ordinary closure.
  CHECK_FALSE(value_of(s, "tabulate 3").fn->fn->intrinsic_alias());
  // Module operators are the built-in operators themselves.
  Value plus = value_of(s, "(i32.+)");
  CHECK(plus.fn->kind == Callable::Kind::Operator);
  CHECK(plus.fn->name == "+");
}

TEST_CASE("closures expose parameters, body and captured environment") {
  Session s;
  s.eval_input("def k = 10i32", "[1]");
  Value f = value_of(s, "\\(x: i32) -> x + k");
  const Callable& c = *f.fn;
  REQUIRE(c.kind == Callable::Kind::Closure);
  REQUIRE(c.params);
  CHECK(c.params->size() == 1);
  REQUIRE(c.body);
  CHECK(c.body->kind == thorn::Expr::Kind::BinOp);
  const thorn::eval::Binding* k = thorn::eval::lookup_value(c.env, std::string_view("k"));
  REQUIRE(k);
  CHECK(k->value.scalar.i == 10);
  CHECK(c.param_count() == 1);
  CHECK(c.describe() == "lambda");
}

TEST_CASE("partial applications keep the original function and all arguments") {
  Session& s = thorn::test::shared_session();
  Value r = value_of(s, "reduce (+) 0i32");
  REQUIRE(r.fn->kind == Callable::Kind::Partial);
  CHECK(r.fn->fn->name == "reduce");
  CHECK(r.fn->args.size() == 2);
  CHECK(r.fn->param_count() == 1);
  Value p = value_of(s, "(.a.b)");
  CHECK(p.fn->kind == Callable::Kind::Projection);
  CHECK(p.fn->path == std::vector<std::string>{"a", "b"});
  Value ix = value_of(s, "(.[1:, 2])");
  CHECK(ix.fn->kind == Callable::Kind::IndexSection);
  REQUIRE(ix.fn->index_args.size() == 2);
  CHECK(ix.fn->index_args[0].is_slice);
  CHECK(ix.fn->index_args[1].index == 2);
}
