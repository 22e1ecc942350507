// thorn check: parse and type-check programs (like `futhark check`).
#include <iostream>

#include "interp/cli/commands.hpp"
#include "interp/cli/session_setup.hpp"
#include "interp/util/error.hpp"
#ifdef THORN_HAVE_SESSION
#include "interp/types/type.hpp"
#endif

namespace thorn::cli {

namespace {
#ifdef THORN_HAVE_SESSION
void print_entry_types(const Session& session) {
  for (const std::string& name : session.entry_names()) {
    auto entry = session.entry(name);
    if (!entry) continue;
    std::cout << name << ":";
    for (const auto& t : entry->params) std::cout << " " << to_string(t);
    std::cout << " ->";
    for (const auto& t : entry->results) std::cout << " " << to_string(t);
    std::cout << "\n";
  }
}
#endif

constexpr const char* kHelp =
    "Usage: thorn check FILE...\n"
    "\n"
    "Parse and type-check each FILE (and what it imports). Prints the errors and\n"
    "exits with status 1 if any file has one; prints nothing otherwise.\n"
    "\n"
    "  --entry-types   print each entry point's parameter and result types, one\n"
    "                  line per entry: `name: [n][m]f32 i64 -> [n]f32` (what\n"
    "                  `thorn dataset -g` needs to make inputs for it)\n";
}  // namespace

int cmd_check(const Args& args_in) {
  ArgScanner args("check", args_in);
  CommonOptions common;
  std::vector<std::string> files;
  bool entry_types = false;
  while (args.next()) {
    if (args.is("-h", "--help")) {
      std::cout << kHelp;
      return 0;
    } else if (args.is("", "--entry-types")) {
      entry_types = true;
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
      if (entry_types) print_entry_types(*session);
    } catch (const Error& e) {
      std::cerr << e.render() << "\n";
      status = 1;
    }
  }
  return status;
#endif
}

}  // namespace thorn::cli
