#pragma once
// The interactive session of `thorn repl`, modelled on `futhark repl`:
// numbered prompts, expressions evaluated and printed (without type
// suffixes, as futhark repl prints them), declarations added to the
// session, `:` commands. No error ends the session; end of input does.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/cli/line_reader.hpp"
#include "interp/cli/session_setup.hpp"

#ifdef THORN_HAVE_SESSION

namespace thorn::cli {

class Repl {
 public:
  explicit Repl(CommonOptions options);
  // Reads its input from `input` instead of the terminal (for tests).
  Repl(CommonOptions options, std::istream& input);

  // Reads and evaluates until end of input or :quit; returns the exit
  // status. A program given on the command line is loaded first; if that
  // fails the error is printed and the session starts empty, as in futhark
  // repl.
  int run(const std::optional<std::string>& initial_file);

 private:
  struct Command {
    const char* name;
    const char* args;
    const char* help;
    void (Repl::*run)(const std::string& arg);
  };
  static const std::vector<Command>& command_table();

  void banner() const;
  void evaluate(std::string text);
  std::optional<std::string> read_continuation(std::string text);
  void command(const std::string& line);

  // Colon commands (repl_commands.cpp).
  void cmd_load(const std::string& arg);
  void cmd_reload(const std::string& arg);
  void cmd_type(const std::string& arg);
  void cmd_time(const std::string& arg);
  void cmd_backend(const std::string& arg);
  void cmd_validate(const std::string& arg);
  void cmd_plan(const std::string& arg);
  void cmd_kernels(const std::string& arg);
  void cmd_img(const std::string& arg);
  void cmd_help(const std::string& arg);
  void cmd_quit(const std::string& arg);

  // A fresh session with `options`, loading `file` and replaying the
  // declarations entered since; nothing changes if that fails.
  bool rebuild(const CommonOptions& options, const std::optional<std::string>& file, bool replay);

  // Candidates for the word being completed
  // (repl_completion.cpp): commands, file names, names in scope.
  // `before` is the line up to that word.
  Completion complete(const std::string& before, const std::string& word) const;

  std::string source_name() const;
  void report(const std::exception& e) const;

  CommonOptions options_;
  std::unique_ptr<Session> session_;
  std::optional<std::string> loaded_;       // the file of :load
  // Entered since the last load, for rebuilds (replayed in order); one that
  // a later declaration redefines, and that nothing after it mentions, is
  // dropped (remember_declaration), so rebinding names keeps this bounded.
  struct Declaration {
    std::string text;
    std::vector<std::string> defined;
  };
  std::vector<Declaration> declarations_;
  void remember_declaration(const std::string& text, std::vector<std::string> defined);
  std::unique_ptr<LineReader> reader_;
  std::optional<std::string> pending_;     // a line read ahead that starts the next input
  int counter_ = 0;
  bool quit_ = false;
};

}  // namespace thorn::cli

#endif
