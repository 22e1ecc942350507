#pragma once
// Reading REPL input: GNU readline (editing, history in ~/.thorn_history)
// when stdin is a terminal and thorn was built with it; otherwise plain
// lines from stdin, without prompts, so `echo '1+2' | thorn repl` prints
// just the result.
#include <istream>
#include <optional>
#include <string>

namespace thorn::cli {

class LineReader {
 public:
  LineReader();
  // Plain lines from `input`, never interactive (for tests).
  explicit LineReader(std::istream& input);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  bool interactive() const { return interactive_; }

  // The next line without its newline; nullopt at end of input (Ctrl-D).
  std::optional<std::string> read(const std::string& prompt);

  // Remembers an entry (possibly several lines) in the history.
  void remember(const std::string& entry);

 private:
  std::istream* input_;
  bool interactive_ = false;
  bool use_readline_ = false;
  std::string history_file_;
};

}  // namespace thorn::cli
