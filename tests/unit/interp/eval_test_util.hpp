#pragma once
// Helpers for the evaluator's unit tests: one shared Session with the
// prelude (loading it is the slow part), and shorthands to evaluate an
// expression or a program and look at the result as text.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "interp/core/value_io.hpp"
#include "interp/eval/session.hpp"

namespace thorn::test {

// A fresh session per call would reload the prelude; most tests only add
// expressions, so they share one.
inline Session& shared_session() {
  static Session s;
  return s;
}

// A printed value on one line: Futhark's layout breaks nested arrays and
// tuples over several lines, which the tests do not care about.
inline std::string one_line(const std::string& text) {
  std::string out;
  for (size_t k = 0; k < text.size(); ++k) {
    if (text[k] != '\n') {
      out += text[k];
      continue;
    }
    while (k + 1 < text.size() && text[k + 1] == ' ') ++k;
    out += ' ';
  }
  return out;
}

// Evaluates an expression and prints its value as `futhark run` would.
inline std::string eval_text(const std::string& expr) {
  Session::Outcome o = shared_session().eval_input(expr, "[test]");
  REQUIRE(o.is_expression);
  return one_line(format_value(o.value, o.type));
}

// The message of the error an input raises ("" when none).
inline std::string eval_error(Session& s, const std::string& input) {
  try {
    s.eval_input(input, "[test]");
  } catch (const Error& e) {
    return e.message;
  }
  return "";
}
inline std::string eval_error(const std::string& input) { return eval_error(shared_session(), input); }

// Writes a program to a temporary file and loads it into a new session.
inline void load_program(Session& s, const std::string& text, const std::string& name = "prog") {
  std::string path = "/tmp/thorn_eval_test_" + name + ".fut";
  std::ofstream(path) << text;
  s.load_file(path);
}

}  // namespace thorn::test
