// Which small SOAC calls are still worth a plan (interp/exec/host_work.hpp):
// functions that loop, directly or through the named functions they call,
// or that are long; and that such a call over one element is planned.
#include <fmt/format.h>

#include "eval_test_util.hpp"
#include "interp/exec/host_backend.hpp"
#include "interp/exec/host_work.hpp"

using thorn::Session;
using thorn::Value;

namespace {
bool heavy(Session& s, const std::string& fn) {
  Session::Outcome o = s.eval_input(fn, "[host_work]");
  REQUIRE(o.is_expression);
  REQUIRE(o.value.kind == Value::Kind::Function);
  thorn::exec::SoacCall call;
  call.kind = thorn::exec::SoacKind::Map;
  call.args.push_back(o.value);
  return thorn::exec::heavy_elements(call);
}
}  // namespace

TEST_CASE("heavy element functions: loops, also through named functions, and long bodies") {
  Session s;
  std::string long_fn = "def long_fn (x: i64) : i64 =\n";
  for (int k = 0; k < 600; ++k) long_fn += fmt::format("  let y{} = x + {}\n", k, k);
  long_fn += "  in y599\n";
  thorn::test::load_program(s, R"(
def step (x: f64) : f64 = loop y = x for i < 100 do y * 0.5 + f64.i64 i
def calls_step (x: f64) : f64 = step x + 1
def plain (x: f64) : f64 = x * 2 + 1
)" + long_fn, "host_work");
  CHECK(heavy(s, "\\(x: f64) -> loop y = x for i < 3 do y + 1"));
  CHECK(heavy(s, "\\(x: f64) -> calls_step x"));
  CHECK(heavy(s, "calls_step"));
  CHECK(heavy(s, "\\(x: i64) -> long_fn x"));  // 600 lets: about 2400 nodes
  CHECK_FALSE(heavy(s, "\\(x: f64) -> plain x + 3"));
  CHECK_FALSE(heavy(s, "plain"));
  CHECK_FALSE(heavy(s, "(+ 1f64)"));
  // The answer is cached per function body: asking again gives the same.
  CHECK(heavy(s, "calls_step"));
  CHECK_FALSE(heavy(s, "plain"));
}

TEST_CASE("a one-element map over a heavy function is planned, a light one is not") {
  int plans = 0;
  thorn::SessionOptions o;
  o.backend = "host";
  // Every listing: a planned map may also be delayed until it is consumed
  // ("delayed map at ..."), which prints no "plan at" line.
  o.on_plan = [&](const std::string& listing) {
    if (listing.find("map") != std::string::npos) ++plans;
  };
  Session s(o);
  thorn::test::load_program(s, R"(
def step (x: f64) : f64 = loop y = x for i < 100 do y * 0.5 + f64.i64 i
)", "host_work_plan");
  Session::Outcome light = s.eval_input("map (\\x -> x * 2) [1f64]", "[1]");
  // (Other tests in this binary may have set THORN_HOST_MIN_WORK=0, which
  // plans everything.)
  if (thorn::exec::host_backend::min_work() > 1) CHECK(plans == 0);
  int before = plans;
  Session::Outcome heavy_call = s.eval_input("map step [1f64]", "[2]");
  CHECK(plans > before);
  // Planned or not, the values are the interpreter's. Steps over fewer
  // elements than a tile run in narrower frames (host_program.hpp: one lane
  // here, three below, with a private array).
  Session reference;
  thorn::test::load_program(reference, R"(
def step (x: f64) : f64 = loop y = x for i < 100 do y * 0.5 + f64.i64 i
def private (x: f64) : f64 =
  let a = replicate 8 x
  let a = loop a for i < 8 do a with [i] = a[(i + 3) % 8] * f64.i64 i + 1
  in f64.sum a
)", "host_work_ref");
  Session::Outcome expected = reference.eval_input("map step [1f64]", "[3]");
  CHECK(thorn::format_value(heavy_call.value, heavy_call.type) == thorn::format_value(expected.value, expected.type));
  CHECK(thorn::format_value(light.value, light.type) == "[2.0f64]");
  s.eval_input(R"(def private (x: f64) : f64 =
  let a = replicate 8 x
  let a = loop a for i < 8 do a with [i] = a[(i + 3) % 8] * f64.i64 i + 1
  in f64.sum a)", "[4]");
  before = plans;
  Session::Outcome narrow = s.eval_input("map private [1f64, 2f64, 3f64]", "[5]");
  CHECK(plans > before);
  Session::Outcome narrow_expected = reference.eval_input("map private [1f64, 2f64, 3f64]", "[6]");
  CHECK(thorn::format_value(narrow.value, narrow.type) == thorn::format_value(narrow_expected.value, narrow_expected.type));
}
