#include "interp/cli/repl.hpp"

#ifdef THORN_HAVE_SESSION

#include <iostream>

#include <fmt/format.h>

#include "interp/cli/commands.hpp"
#include "interp/core/value_io.hpp"
#include "interp/util/error.hpp"

namespace thorn::cli {

Repl::Repl(CommonOptions options) : options_(std::move(options)), reader_(std::make_unique<LineReader>()) {
  session_ = open_session(options_);
  reader_->set_completer([this](const std::string& before, const std::string& word) { return complete(before, word); });
}

Repl::Repl(CommonOptions options, std::istream& input)
    : options_(std::move(options)), reader_(std::make_unique<LineReader>(input)) {
  session_ = open_session(options_);
}


void Repl::banner() const {
  std::cout << fmt::format("{}: an interpreter for Futhark.\n", version_line());
  std::cout << fmt::format("Backend: {} ({}).\n", options_.backend, backend_description(options_.backend));
  std::cout << "Run :help for a list of commands.\n\n";
}

// Inputs are named like their prompt, so errors read "[3]:1:5: ...".
std::string Repl::source_name() const { return fmt::format("[{}]", counter_); }

void Repl::report(const std::exception& e) const {
  std::cout.flush();
  if (auto* err = dynamic_cast<const Error*>(&e)) {
    std::cerr << err->render() << "\n";
  } else {
    std::cerr << "internal error: " << e.what() << "\n";
  }
}

int Repl::run(const std::optional<std::string>& initial_file) {
  if (reader_->interactive()) banner();
  if (initial_file) {
    loaded_ = initial_file;
    try {
      session_->load_file(*initial_file);
    } catch (const std::exception& e) {
      report(e);
    }
  }
  while (!quit_) {
    std::optional<std::string> line;
    if (pending_) {
      line = std::move(pending_);
      pending_.reset();
    } else {
      line = reader_->read(fmt::format("[{}]> ", counter_));
    }
    if (!line) break;
    std::string text = *line;
    size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) {
      ++counter_;
      continue;
    }
    if (text[first] == ':') {
      reader_->remember(text);
      command(text.substr(first));
    } else {
      evaluate(std::move(text));
    }
    ++counter_;
  }
  if (reader_->interactive()) std::cout << (quit_ ? "" : "\n") << "Leaving thorn repl.\n";
  return 0;
}

// An input is continued on the next line when parsing it stopped at the end
// of the input ("unexpected end of input"): an open bracket, a trailing
// operator, a `let` without its `in` body, and so on.
static bool ended_early(const Error& e) {
  return e.kind == ErrorKind::Syntax && e.message.rfind("unexpected end of input", 0) == 0;
}

// A blank line gives up on the input (and reports why it is incomplete); a
// command line does too, and then runs as the next input.
std::optional<std::string> Repl::read_continuation(std::string text) {
  auto more = reader_->read("..> ");
  if (!more) return std::nullopt;
  size_t first = more->find_first_not_of(" \t");
  if (first == std::string::npos) return std::nullopt;
  if ((*more)[first] == ':') {
    pending_ = std::move(more);
    return std::nullopt;
  }
  return text + "\n" + *more;
}

void Repl::evaluate(std::string text) {
  for (;;) {
    try {
      Session::Outcome outcome = session_->eval_input(text, source_name());
      reader_->remember(text);
      if (outcome.is_expression) {
        std::cout << format_value(outcome.value, outcome.type, ValueStyle::Repl) << "\n";
      } else {
        declarations_.push_back(text);
      }
      std::cout.flush();
      return;
    } catch (const Error& e) {
      if (ended_early(e)) {
        if (auto longer = read_continuation(text)) {
          text = std::move(*longer);
          continue;
        }
      }
      reader_->remember(text);
      report(e);
      return;
    } catch (const std::exception& e) {
      reader_->remember(text);
      report(e);
      return;
    }
  }
}

void Repl::command(const std::string& line) {
  size_t space = line.find_first_of(" \t");
  std::string name = line.substr(1, space == std::string::npos ? std::string::npos : space - 1);
  std::string arg;
  if (space != std::string::npos) {
    size_t a = line.find_first_not_of(" \t", space);
    size_t b = line.find_last_not_of(" \t\r");
    if (a != std::string::npos) arg = line.substr(a, b - a + 1);
  }
  // As in futhark repl, any unambiguous prefix names a command; a single
  // letter names the first command in :help's order (:t is :type).
  std::vector<const Command*> matches;
  for (const Command& c : command_table()) {
    if (name == c.name) {
      matches = {&c};
      break;
    }
    if (!name.empty() && std::string_view(c.name).substr(0, name.size()) == name) matches.push_back(&c);
  }
  if (name.size() == 1 && matches.size() > 1) matches.resize(1);
  if (matches.empty()) {
    std::cout << fmt::format("Unknown command ':{}'; :help lists the commands.\n", name);
    return;
  }
  if (matches.size() > 1) {
    std::string names;
    for (auto* c : matches) names += fmt::format("{}:{}", names.empty() ? "" : ", ", c->name);
    std::cout << fmt::format("Ambiguous command ':{}'; it could be {}.\n", name, names);
    return;
  }
  try {
    (this->*(matches[0]->run))(arg);
  } catch (const std::exception& e) {
    report(e);
  }
  std::cout.flush();
}

bool Repl::rebuild(const CommonOptions& options, const std::optional<std::string>& file, bool replay) {
  CommonOptions chosen = options;
  std::unique_ptr<Session> fresh;
  try {
    fresh = open_session(chosen);
    if (file) fresh->load_file(*file);
    if (replay)
      for (const auto& d : declarations_) fresh->eval_input(d, "[repl]:replay");
  } catch (const std::exception& e) {
    report(e);
    return false;
  }
  session_ = std::move(fresh);
  options_ = chosen;
  loaded_ = file;
  if (!replay) declarations_.clear();
  return true;
}

}  // namespace thorn::cli

#endif
