#pragma once
// Reading REPL input: GNU readline (editing, history in ~/.thorn_history)
// when stdin is a terminal and thorn was built with it; otherwise plain
// lines from stdin, without prompts, so `echo '1+2' | thorn repl` prints
// just the result.
#include <functional>
#include <istream>
#include <vector>
#include <optional>
#include <string>

namespace thorn::cli {

// What TAB offers for the word before the cursor: the candidates, or
// readline's own file-name completion (directories, quoting) when
// `file_names` is set.
struct Completion {
  std::vector<std::string> candidates;
  bool file_names = false;
};
// Called with the line up to the word being completed, and that word.
using Completer = std::function<Completion(const std::string& before, const std::string& word)>;

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

  // TAB completion through readline (nothing without it).
  void set_completer(Completer completer);

  // Remembers an entry (possibly several lines) in the history.
  void remember(const std::string& entry);

 private:
  std::istream* input_;
  bool interactive_ = false;
  bool use_readline_ = false;
  std::string history_file_;
  Completer completer_;
};

}  // namespace thorn::cli
