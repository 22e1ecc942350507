// libFuzzer target for the lexer and parser: any input must either parse or
// raise a located syntax error. Any other exception, a crash, a hang or a
// sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "interp/syntax/parser.hpp"
#include "interp/syntax/print.hpp"
#include "interp/util/error.hpp"

namespace {

// A syntax error must carry a location inside the input, and rendering it
// (which reads the source line) must work.
void check_error(const thorn::Error& e) {
  if (e.kind != thorn::ErrorKind::Syntax || !e.loc.known() || e.loc.col == 0) __builtin_trap();
  (void)e.render();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Not registered: the registry keeps every file until exit, and the fuzzer
  // runs millions of inputs.
  thorn::SourceFile file{"fuzz.fut", std::string(reinterpret_cast<const char*>(data), size)};
  try {
    thorn::Program program = thorn::parse_program(&file);
    for (const auto& d : program.decls) (void)thorn::to_string(*d);
  } catch (const thorn::Error& e) {
    check_error(e);
  }
  try {
    thorn::ReplInput input = thorn::parse_repl_input(&file);
    if (input.expr) (void)thorn::to_string(*input.expr);
    bool has_expr = input.expr != nullptr, has_decls = !input.decls.empty();
    if (has_expr == has_decls) __builtin_trap();  // exactly one of them is set
  } catch (const thorn::Error& e) {
    check_error(e);
  }
  try {
    (void)thorn::to_string(*thorn::parse_type(&file));
  } catch (const thorn::Error& e) {
    check_error(e);
  }
  return 0;
}
