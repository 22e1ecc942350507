#include "interp/cli/line_reader.hpp"

#include "interp/eval/evaluator.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#ifdef THORN_HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#endif

namespace thorn::cli {

#ifdef THORN_HAVE_READLINE
namespace {

// Ctrl-C at the prompt abandons the line being typed instead of ending the
// session (readline calls check_interrupt between keystrokes, where using
// it is safe). During an evaluation it asks the evaluator to stop at its
// next call or loop iteration (eval::request_interrupt), which returns to
// the prompt; a second Ctrl-C before it got there ends thorn as usual.
volatile std::sig_atomic_t interrupted = 0;
volatile std::sig_atomic_t at_prompt = 0;

void on_sigint(int) {
  if (!at_prompt) {
    if (eval::interrupt_requested()) {
      signal(SIGINT, SIG_DFL);
      raise(SIGINT);
      return;
    }
    eval::request_interrupt();
    return;
  }
  interrupted = 1;
}

// readline's completion hooks are plain C functions; they reach the
// REPL's completer through this pointer (one LineReader reads at a time).
const Completer* active_completer = nullptr;
std::vector<std::string> matches;  // of the completion in progress

char* next_match(const char*, int state) {
  static size_t index = 0;
  if (state == 0) index = 0;
  if (index >= matches.size()) return nullptr;
  return strdup(matches[index++].c_str());  // readline frees it
}

char** attempt_completion(const char* text, int start, int) {
  rl_attempted_completion_over = 1;  // where we offer nothing, offer nothing (not file names)
  if (!active_completer) return nullptr;
  std::string word(text);
  Completion c = (*active_completer)(std::string(rl_line_buffer, size_t(start)), word);
  if (c.file_names) return rl_completion_matches(text, rl_filename_completion_function);
  matches.clear();
  for (auto& m : c.candidates)
    if (m.compare(0, word.size(), word) == 0) matches.push_back(std::move(m));
  return rl_completion_matches(text, next_match);
}

int check_interrupt() {
  if (interrupted) {
    interrupted = 0;
    rl_replace_line("", 0);
    rl_crlf();
    rl_on_new_line();
    rl_redisplay();
  }
  return 0;
}

}  // namespace
#endif

LineReader::LineReader(std::istream& input) : input_(&input) {}

LineReader::LineReader() : input_(&std::cin) {
  interactive_ = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
#ifdef THORN_HAVE_READLINE
  use_readline_ = interactive_;
  if (use_readline_) {
    rl_readline_name = "thorn";
    rl_catch_signals = 0;
    rl_signal_event_hook = check_interrupt;
    rl_attempted_completion_function = attempt_completion;
    // Words end at spaces, brackets and operators, but not at '.' (f32.sqrt,
    // M.f), ':' (:load), '/' or '-' (file names).
    rl_completer_word_break_characters = const_cast<char*>(" \t\n\"'`@$><=;|&{}(),[]+*%^!~");
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    using_history();
    stifle_history(1000);  // a long session's history stays bounded in memory too
    if (const char* home = std::getenv("HOME")) {
      history_file_ = std::string(home) + "/.thorn_history";
      if (read_history(history_file_.c_str()) != 0) write_history(history_file_.c_str());  // create it
    }
  }
#endif
}

void LineReader::set_completer(Completer completer) {
  completer_ = std::move(completer);
#ifdef THORN_HAVE_READLINE
  if (use_readline_) active_completer = &completer_;
#endif
}

LineReader::~LineReader() {
#ifdef THORN_HAVE_READLINE
  if (active_completer == &completer_) active_completer = nullptr;
  if (use_readline_) {
    if (!history_file_.empty()) history_truncate_file(history_file_.c_str(), 1000);
    signal(SIGINT, SIG_DFL);
  }
#endif
}

std::optional<std::string> LineReader::read(const std::string& prompt) {
#ifdef THORN_HAVE_READLINE
  if (use_readline_) {
    at_prompt = 1;
    eval::clear_interrupt();  // a Ctrl-C that came after the evaluation ended
    char* line = readline(prompt.c_str());
    at_prompt = 0;
    if (!line) return std::nullopt;
    std::string s(line);
    std::free(line);
    return s;
  }
#endif
  if (interactive_) {
    std::cout << prompt << std::flush;
  }
  std::string s;
  if (!std::getline(*input_, s)) return std::nullopt;
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}

void LineReader::remember(const std::string& entry) {
#ifdef THORN_HAVE_READLINE
  if (use_readline_ && !entry.empty()) {
    add_history(entry.c_str());
    if (!history_file_.empty()) append_history(1, history_file_.c_str());  // survives a Ctrl-C exit
  }
#else
  (void)entry;
#endif
}

}  // namespace thorn::cli
