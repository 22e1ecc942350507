#include "interp/cli/repl.hpp"

#ifdef THORN_HAVE_SESSION

#include <algorithm>
#include <cctype>
#include <iostream>

#include <fmt/format.h>

#include "interp/cli/commands.hpp"
#include "interp/core/value_io.hpp"
#include "interp/util/cancel.hpp"
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

namespace {
// Whether `name` occurs in `text` as a whole identifier (an
// over-approximation of a use: comments and strings count too).
bool mentions(const std::string& text, const std::string& name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '\''; };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    bool before = at == 0 || !ident(text[at - 1]);
    bool after = at + name.size() >= text.size() || !ident(text[at + name.size()]);
    if (before && after) return true;
  }
  return false;
}
}  // namespace

void Repl::remember_declaration(const std::string& text, std::vector<std::string> defined) {
  // An earlier declaration is redundant for a replay when this one defines
  // all its names again and no declaration from it on (this one included)
  // mentions them: nothing replayed can see its bindings.
  for (size_t i = 0; i < declarations_.size();) {
    const Declaration& d = declarations_[i];
    bool covered = !d.defined.empty() && !defined.empty();
    for (const std::string& n : d.defined)
      covered = covered && std::find(defined.begin(), defined.end(), n) != defined.end();
    bool used = false;
    for (size_t j = i + 1; covered && !used && j < declarations_.size(); ++j)
      for (const std::string& n : d.defined) used = used || mentions(declarations_[j].text, n);
    // This declaration's own body: what follows its first `=` (its head
    // names what it defines, which is no use of the earlier binding).
    size_t eq = text.find('=');
    std::string body = eq == std::string::npos ? text : text.substr(eq + 1);
    for (const std::string& n : d.defined) used = used || (covered && mentions(body, n));
    if (covered && !used) {
      declarations_.erase(declarations_.begin() + std::ptrdiff_t(i));
    } else {
      ++i;
    }
  }
  declarations_.push_back(Declaration{text, std::move(defined)});
}

void Repl::evaluate(std::string text) {
  clear_cancel();  // a Ctrl-C that came while no evaluation ran
  for (;;) {
    try {
      Session::Outcome outcome = session_->eval_input(text, source_name());
      reader_->remember(text);
      if (outcome.is_expression) {
        std::cout << format_value(outcome.value, outcome.type, ValueStyle::Repl) << "\n";
      } else {
        remember_declaration(text, outcome.defined);
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
  clear_cancel();  // a Ctrl-C that came while no evaluation ran
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
      for (const auto& d : declarations_) fresh->eval_input(d.text, "[repl]:replay");
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
