#pragma once
// The one error type of thorn. Every user-facing failure is an Error with a
// kind and (where there is one) a source location; render() formats it as
//
//   prog.fut:3:12: type error: expected i32, got f64
//      3 | def f (x: i32) = x + 1.0
//        |                      ^^^
//
// User errors never abort the process; the REPL catches Error and goes on.
#include <stdexcept>
#include <string>
#include <vector>

#include "interp/util/source.hpp"

namespace thorn {

enum class ErrorKind { Syntax, Type, Runtime, Input, Gpu, Internal, Usage };

const char* error_kind_name(ErrorKind kind);  // "syntax error", "type error", ...

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, Loc loc, std::string message, std::vector<std::string> notes = {});
  Error(ErrorKind kind, std::string message) : Error(kind, Loc{}, std::move(message)) {}

  ErrorKind kind;
  Loc loc;
  std::string message;
  std::vector<std::string> notes;  // extra lines printed after the caret
  // Run-time errors: the call sites the error passed through, innermost
  // first (the evaluator adds one per function application it leaves), and
  // how many more were dropped past kMaxBacktrace.
  std::vector<Loc> backtrace;
  size_t backtrace_dropped = 0;
  static constexpr size_t kMaxBacktrace = 32;
  void add_call_site(const Loc& call);

  // The full multi-line message: location, kind, message, source line, caret, notes.
  std::string render() const;
};

[[noreturn]] void throw_error(ErrorKind kind, Loc loc, std::string message);

}  // namespace thorn
