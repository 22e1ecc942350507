#pragma once
// The flattener's end-to-end unit tests: one reference session and one host
// session with --validate (every flattened nest also checked against the
// reference backend, and its plan listing collected), shared by the test
// files, and an evaluation on both that checks they agree.
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "interp/eval/session.hpp"
#include "interp/eval/value_ops.hpp"
#include "interp/exec/host_backend.hpp"

namespace thorn::testutil {

struct BackendPair {
  std::string log;  // the host session's plan listings since the last eval_both
  std::unique_ptr<Session> ref, host;
  BackendPair() {
    setenv("THORN_HOST_MIN_WORK", "0", 1);  // flatten even one-element calls
    ref = std::make_unique<Session>();
    SessionOptions o;
    o.backend = "host";
    o.validate = true;
    o.on_plan = [this](const std::string& s) { log += s; };
    host = std::make_unique<Session>(o);
  }
};

inline BackendPair& backend_pair() {
  static BackendPair b;
  return b;
}

// Evaluates `expr` on both backends and checks that they agree, and, when
// `expected` is given, the host value's plain text. Returns the host value;
// the plans it made are in backend_pair().log.
inline Value eval_both(const std::string& expr, const std::string* expected = nullptr) {
  BackendPair& b = backend_pair();
  b.log.clear();
  Value r = b.ref->eval_input(expr).value;
  Value h = b.host->eval_input(expr).value;
  std::string d = exec::host_backend::first_difference(h, r);
  INFO("expression: " << expr << "\nplans:\n" << b.log);
  CHECK_MESSAGE(d.empty(), d);
  if (expected) CHECK(eval::format_value_plain(h) == *expected);
  return h;
}

// Evaluates `expr` on both backends (they must agree); returns the host
// backend's plan log, for tests that check which plans were made.
inline std::string same(const std::string& expr) {
  eval_both(expr);
  return backend_pair().log;
}

// THORN_DISTRIBUTE for one test, unset when it ends (also when it fails):
// the automatic choice depends on this machine's thread count, and the
// rules should be tested on any machine.
struct ForceDistribute {
  explicit ForceDistribute(const char* mode) { setenv("THORN_DISTRIBUTE", mode, 1); }
  ~ForceDistribute() { unsetenv("THORN_DISTRIBUTE"); }
};

// Any other environment variable for one test, unset when it ends.
struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const char* value) : name(n) { setenv(n, value, 1); }
  ~ScopedEnv() { unsetenv(name); }
};

inline bool has(const std::string& log, const std::string& what) { return log.find(what) != std::string::npos; }

}  // namespace thorn::testutil
