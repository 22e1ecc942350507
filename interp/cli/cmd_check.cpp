// thorn check: parse and type-check programs (like `futhark check`).
#include <iostream>

#include "interp/cli/commands.hpp"
#include "interp/cli/session_setup.hpp"
#include "interp/util/error.hpp"

namespace thorn::cli {

namespace {
constexpr const char* kHelp =
    "Usage: thorn check FILE...\n"
    "\n"
    "Parse and type-check each FILE (and what it imports). Prints the errors and\n"
    "exits with status 1 if any file has one; prints nothing otherwise.\n";
}  // namespace

int cmd_check(const Args& args_in) {
  ArgScanner args("check", args_in);
  CommonOptions common;
  std::vector<std::string> files;
  while (args.next()) {
    if (args.is("-h", "--help")) {
      std::cout << kHelp;
      return 0;
    } else if (take_common_option(args, common)) {
      // Accepted everywhere for uniformity; checking runs no SOACs.
    } else if (args.positional()) {
      files.push_back(args.arg());
    } else {
      args.unknown();
    }
  }
  if (files.empty()) args.fail("expects at least one program file");
#ifndef THORN_HAVE_SESSION
  return evaluator_missing("check");
#else
  int status = 0;
  CommonOptions reference;  // checking never needs another backend
  reference.backend = "reference";
  for (const auto& file : files) {
    try {
      auto session = open_session(reference);
      session->load_file(file);
    } catch (const Error& e) {
      std::cerr << e.render() << "\n";
      status = 1;
    }
  }
  return status;
#endif
}

}  // namespace thorn::cli
