#include "interp/cli/line_reader.hpp"

#include "interp/eval/evaluator.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
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

LineReader::~LineReader() {
#ifdef THORN_HAVE_READLINE
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
