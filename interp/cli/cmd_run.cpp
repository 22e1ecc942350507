// thorn run: like `futhark run`. Loads a program, reads the entry point's
// arguments from stdin (text and binary values, freely mixed), and prints
// each result on its own line (a tuple result gives one line per component).
#include <csignal>
#include <iostream>
#include <iterator>

#include <fmt/format.h>

#include "interp/cli/commands.hpp"
#include "interp/cli/entry_points.hpp"
#include "interp/cli/session_setup.hpp"
#include "interp/core/value_io.hpp"
#include "interp/eval/user_params.hpp"
#include "interp/exec/host_backend.hpp"
#include "interp/util/cancel.hpp"
#include "interp/util/error.hpp"
#include "interp/util/resources.hpp"

namespace thorn::cli {

namespace {

constexpr const char* kHelp =
    "Usage: thorn run [options...] FILE\n"
    "\n"
    "Run an entry point of FILE (default: main) with arguments read from standard\n"
    "input as Futhark values (text or binary), and print its results, one per line,\n"
    "as `futhark run` does.\n"
    "\n"
    "  -e, --entry-point NAME  the entry point to run (default: main)\n"
    "  -b, --binary-output     write the results in Futhark's binary format\n"
    "  -w, --no-warnings       accepted for compatibility (thorn prints none)\n"
    "  --log plan              print each segmented plan to stderr as it is made\n"
    "                          (like THORN_LOG_PLAN=1)\n"
    "  --tuning FILE           user parameters (`#[param(name)] e`) from FILE, lines\n"
    "                          name=value, as a compiled Futhark program reads them\n"
    "  -p, --param NAME=VALUE  set one user parameter (after --tuning's)\n";

// SIGINT: the first one asks the computation to stop at its next safe
// point (Interrupted, exit status 130, see main.cpp); a second one, before
// it got there, ends the process at once as usual.
void on_sigint(int) {
  if (cancel_requested()) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
    return;
  }
  request_cancel();
}

}  // namespace

int cmd_run(const Args& args_in) {
  {
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
  }
  ArgScanner args("run", args_in);
  CommonOptions common;
  std::string entry_name = "main";
  bool binary = false;
  std::vector<std::string> files;
  std::string tuning_file;
  std::vector<std::string> param_settings;
  while (args.next()) {
    if (args.is("-h", "--help")) {
      std::cout << kHelp << kCommonOptionsHelp;
      return 0;
    } else if (args.is("-e", "--entry-point") || args.is("", "--entry")) {
      entry_name = args.value();
    } else if (args.is("-b", "--binary-output")) {
      args.no_value();
      binary = true;
    } else if (args.is("-w", "--no-warnings")) {
      args.no_value();
    } else if (args.is("", "--log")) {
      std::string what = args.value();
      if (what != "plan") args.fail(fmt::format("unknown --log topic '{}' (known: plan)", what));
      exec::host_backend::set_log_plans(true);
    } else if (args.is("", "--tuning")) {
      tuning_file = args.value();
    } else if (args.is("-p", "--param")) {
      param_settings.push_back(args.value());
    } else if (take_common_option(args, common)) {
    } else if (args.positional()) {
      files.push_back(args.arg());
    } else {
      args.unknown();
    }
  }
  if (files.size() != 1) args.fail("expects exactly one program file");

#ifndef THORN_HAVE_SESSION
  (void)binary;
  return evaluator_missing("run");
#else
  try {
    eval::UserParams params;
    if (!tuning_file.empty()) params = eval::read_tuning_file(tuning_file);
    for (const std::string& setting : param_settings) {
      auto p = eval::parse_user_param(setting);
      if (!p) throw Error(ErrorKind::Usage, fmt::format("--param expects NAME=INTEGER, got '{}'", setting));
      params[p->first] = p->second;
    }
    eval::set_user_params(std::move(params));
    auto session = open_session(common);
    session->load_file(files[0]);
    auto entry = session->entry(entry_name);
    if (!entry) {
      std::cerr << "thorn: " << unknown_entry_message(*session, files[0], entry_name) << "\n";
      return 1;
    }
    std::string input{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    std::vector<Value> arguments = read_arguments(input, "<stdin>", *entry);
    std::vector<Value> results = session->call(entry_name, std::move(arguments));

    std::string out;
    for (size_t k = 0; k < results.size(); ++k) {
      if (binary) {
        if (!has_value_format(results[k]))
          throw Error(ErrorKind::Input, fmt::format("result {} cannot be written in the binary format", k + 1));
        write_binary_value(out, results[k]);
      } else {
        TypePtr type = k < entry->results.size() ? entry->results[k] : TypePtr();
        out += format_value(results[k], type, ValueStyle::Data);
        out += '\n';
      }
    }
    std::cout.write(out.data(), std::streamsize(out.size()));
    std::cout.flush();
    return 0;
  } catch (const Interrupted&) {
    throw;  // main.cpp: a message and status 130
  } catch (const Error& e) {
    if (cancel_requested()) throw Interrupted(e.loc);  // whatever the error became on its way out
    std::cout.flush();
    std::cerr << e.render() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cout.flush();
    std::cerr << out_of_memory_error(Loc{}).render() << "\n";
    return 1;
  }
#endif
}

}  // namespace thorn::cli
