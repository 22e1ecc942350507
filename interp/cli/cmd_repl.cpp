// thorn repl: argument handling; the session itself is in repl.cpp.
#include <iostream>

#include "interp/cli/commands.hpp"
#include "interp/cli/repl.hpp"
#include "interp/cli/session_setup.hpp"

namespace thorn::cli {

namespace {
constexpr const char* kHelp =
    "Usage: thorn repl [options...] [FILE]\n"
    "\n"
    "Start an interactive Futhark session, like `futhark repl`, with FILE loaded if\n"
    "given. Enter expressions to evaluate them and declarations to add them to the\n"
    "session; :help lists the commands. With standard input not a terminal, lines\n"
    "are read from it without prompts (echo '1+2' | thorn repl prints 3).\n"
    "\n";
}  // namespace

int cmd_repl(const Args& args_in) {
  ArgScanner args("repl", args_in);
  CommonOptions common;
  std::vector<std::string> files;
  while (args.next()) {
    if (args.is("-h", "--help")) {
      std::cout << kHelp << kCommonOptionsHelp;
      return 0;
    } else if (take_common_option(args, common)) {
    } else if (args.positional()) {
      files.push_back(args.arg());
    } else {
      args.unknown();
    }
  }
  if (files.size() > 1) args.fail("takes at most one program file");
#ifndef THORN_HAVE_SESSION
  return evaluator_missing("repl");
#else
  Repl repl(common);
  return repl.run(files.empty() ? std::nullopt : std::optional<std::string>(files[0]));
#endif
}

}  // namespace thorn::cli
