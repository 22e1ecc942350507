// The `:` commands of thorn repl.
#include "interp/cli/repl.hpp"

#ifdef THORN_HAVE_SESSION

#include <algorithm>
#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "gpu/executor.hpp"
#include "interp/cli/image.hpp"
#include "interp/cli/png_file.hpp"
#include "interp/core/value_io.hpp"
#include "interp/exec/host_backend.hpp"
#include "interp/types/type.hpp"
#include "interp/util/error.hpp"

namespace thorn::cli {

const std::vector<Repl::Command>& Repl::command_table() {
  static const std::vector<Command> table{
      {"load", "FILE", "load a program, replacing the session (no FILE: the last one)", &Repl::cmd_load},
      {"reload", "", "load the last program again, dropping entered definitions", &Repl::cmd_reload},
      {"type", "EXPR", "show the type of an expression", &Repl::cmd_type},
      {"time", "EXPR", "evaluate an expression and show how long it took", &Repl::cmd_time},
      {"backend", "NAME", "switch backend: reference, host or gpu (keeps definitions)", &Repl::cmd_backend},
      {"validate", "on|off", "check offloaded nests against the reference backend", &Repl::cmd_validate},
      {"plan", "EXPR", "show the flattened plan of an expression", &Repl::cmd_plan},
      {"kernels", "", "list the compiled GPU kernels", &Repl::cmd_kernels},
      {"img", "FILE EXPR", "write a 2D array as a PNG picture (as thorn literate's :img)", &Repl::cmd_img},
      {"help", "", "this list", &Repl::cmd_help},
      {"quit", "", "leave (so does Ctrl-D)", &Repl::cmd_quit},
  };
  return table;
}

void Repl::cmd_load(const std::string& arg) {
  std::optional<std::string> file = arg.empty() ? loaded_ : std::optional<std::string>(arg);
  if (!file) {
    std::cout << "No file given and none loaded before.\n";
    return;
  }
  std::cout << fmt::format("Loading {}\n", *file);
  rebuild(options_, file, false);
}

void Repl::cmd_reload(const std::string& arg) {
  if (!arg.empty()) {
    std::cout << ":reload takes no argument; use :load FILE.\n";
    return;
  }
  if (!loaded_) {
    std::cout << "No program loaded.\n";
    return;
  }
  cmd_load("");
}

void Repl::cmd_type(const std::string& arg) {
  if (arg.empty()) {
    std::cout << "Usage: :type EXPR\n";
    return;
  }
  TypePtr t = session_->type_of(arg);
  std::cout << fmt::format("{} : {}\n", arg, t ? to_string(t) : "?");
}

void Repl::cmd_time(const std::string& arg) {
  if (arg.empty()) {
    std::cout << "Usage: :time EXPR\n";
    return;
  }
  auto start = std::chrono::steady_clock::now();
  Session::Outcome outcome = session_->eval_input(arg, source_name());
  auto stop = std::chrono::steady_clock::now();
  if (outcome.is_expression) {
    std::cout << format_value(outcome.value, outcome.type, ValueStyle::Repl) << "\n";
  } else {
    remember_declaration(arg, outcome.defined);
  }
  double ms = std::chrono::duration<double, std::milli>(stop - start).count();
  std::cout << fmt::format("Time: {:.3f} ms ({} backend).\n", ms, options_.backend);
}

void Repl::cmd_backend(const std::string& arg) {
  if (arg.empty()) {
    std::cout << fmt::format("Backend: {} ({}).\n", options_.backend, backend_description(options_.backend));
    return;
  }
  const auto& names = backend_names();
  if (std::find(names.begin(), names.end(), arg) == names.end()) {
    std::cout << fmt::format("Unknown backend '{}'; choose reference, host or gpu.\n", arg);
    return;
  }
  CommonOptions wanted = options_;
  wanted.backend = arg;
  if (rebuild(wanted, loaded_, true)) {
    if (options_.backend != arg) return;  // open_session printed why it fell back
    std::cout << fmt::format("Backend: {} ({}).\n", options_.backend, backend_description(options_.backend));
  }
}

void Repl::cmd_validate(const std::string& arg) {
  if (arg != "on" && arg != "off") {
    std::cout << fmt::format("Validation is {}; use :validate on|off.\n", options_.validate ? "on" : "off");
    return;
  }
  CommonOptions wanted = options_;
  wanted.validate = arg == "on";
  if (rebuild(wanted, loaded_, true)) std::cout << fmt::format("Validation is {}.\n", arg);
}

// Evaluates EXPR with a plan listener installed and prints every segmented
// plan (or delayed producer, or why a nest stayed on the reference) the
// host/GPU backend made for it, then the value.
void Repl::cmd_plan(const std::string& arg) {
  if (arg.empty()) {
    std::cout << "Usage: :plan EXPR\n";
    return;
  }
  if (options_.backend == "reference") {
    std::cout << "The reference backend makes no plans; switch with :backend host (or gpu).\n";
    return;
  }
  std::vector<std::string> listings;
  session_->set_on_plan([&listings](const std::string& l) { listings.push_back(l); });
  struct Restore {
    Session& s;
    ~Restore() { s.set_on_plan(nullptr); }
  } restore{*session_};
  Session::Outcome outcome = session_->eval_input(arg, source_name());
  if (listings.empty())
    std::cout << fmt::format("No SOAC nest was flattened (calls over fewer than {} elements run on the reference "
                             "backend; THORN_HOST_MIN_WORK changes that).\n",
                             exec::host_backend::min_work());
  for (const std::string& l : listings) std::cout << l;
  if (outcome.is_expression) std::cout << format_value(outcome.value, outcome.type, ValueStyle::Repl) << "\n";
  else remember_declaration(arg, outcome.defined);
}

void Repl::cmd_kernels(const std::string&) {
  std::string why;
  gpu::GpuBackend* gpu = gpu::GpuBackend::get(&why);
  if (!gpu) {
    std::cout << fmt::format("no GPU: {}\n", why.empty() ? "no usable device" : why);
    return;
  }
  // The device, its memory pool, transfers and evictions, then each kernel.
  std::cout << gpu->report() << gpu::kernels_report();
}

// :img FILE EXPR: the picture of EXPR by :img's rules ([][]u32 ARGB,
// [][]f32/f64 grey, [][]u8, [][]bool), written with libpng.
void Repl::cmd_img(const std::string& arg) {
  size_t space = arg.find_first_of(" \t");
  size_t expr_start = space == std::string::npos ? space : arg.find_first_not_of(" \t", space);
  if (expr_start == std::string::npos) {
    std::cout << "Usage: :img FILE EXPR\n";
    return;
  }
  std::string file = arg.substr(0, space);
  Session::Outcome outcome = session_->eval_input(arg.substr(expr_start), source_name());
  if (!outcome.is_expression) {
    std::cout << ":img needs an expression.\n";
    return;
  }
  Image img = image_from_value(outcome.value);
  write_png(file, img);
  std::cout << fmt::format("Wrote {} ({}x{}).\n", file, img.width, img.height);
}

void Repl::cmd_help(const std::string&) {
  std::cout << "Enter an expression to evaluate it, or a declaration to add it to the session.\n"
               "An input whose brackets or expression are left open continues on the next line.\n"
               "Commands (any unambiguous prefix works, e.g. :t for :type):\n";
  for (const Command& c : command_table())
    std::cout << fmt::format("  :{:<16} {}\n", fmt::format("{} {}", c.name, c.args), c.help);
}

void Repl::cmd_quit(const std::string&) { quit_ = true; }

}  // namespace thorn::cli

#endif
