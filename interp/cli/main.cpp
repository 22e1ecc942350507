// The `thorn` executable: dispatches to the commands of interp/cli.
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "interp/cli/commands.hpp"
#include "interp/cli/session_setup.hpp"
#include "interp/util/cancel.hpp"
#include "interp/util/error.hpp"

namespace {

void usage(std::ostream& out) {
  out << "Usage: thorn COMMAND [options...]\n\n"
         "An interpreter for the Futhark language, with sequential, multicore and GPU backends.\n\n"
         "Commands:\n";
  for (const auto& c : thorn::cli::commands()) out << fmt::format("  {:<9} {}\n", c.name, c.summary);
  out << "\nRun 'thorn COMMAND --help' for a command's options; 'thorn --version' shows the backends.\n";
}

void version() {
  using namespace thorn::cli;
  std::cout << version_line() << "\n";
  std::cout << "Backends (--backend):\n";
  std::string def = default_backend();
  for (const auto& b : backend_names()) {
    std::string why = backend_unavailable_reason(b);
    std::cout << fmt::format("  {:<10} {}{}\n", b, backend_description(b), b == def ? " (default)" : "");
    if (!why.empty()) std::cout << fmt::format("  {:<10} not available here: {}\n", "", why);
  }
  std::cout << fmt::format("Code runs on: {} ({}).\n", def, backend_description(def));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(std::cerr);
    return 2;
  }
  std::string command = argv[1];
  if (command == "-h" || command == "--help" || command == "help") {
    usage(std::cout);
    return 0;
  }
  if (command == "-V" || command == "--version" || command == "version") {
    version();
    return 0;
  }
  thorn::cli::Args args(argv + 2, argv + argc);
  try {
    for (const auto& c : thorn::cli::commands())
      if (command == c.name) return c.run(args);
    std::cerr << fmt::format("thorn: unknown command '{}'\n\n", command);
    usage(std::cerr);
    return 2;
  } catch (const thorn::Interrupted&) {
    // SIGINT during `thorn run` (interp/util/cancel.hpp): the work stopped at
    // its next safe point; 130 is the shell's status for a SIGINT death.
    std::cout.flush();
    std::cerr << "thorn: interrupted (SIGINT); the computation was stopped\n";
    return 130;
  } catch (const thorn::Error& e) {
    std::cout.flush();
    if (e.kind == thorn::ErrorKind::Usage) {
      std::cerr << e.message << "\n";
      return 2;
    }
    std::cerr << e.render() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "thorn: internal error: " << e.what() << "\n";
    return 1;
  }
}
