#pragma once
// Running the helper programs of `thorn literate` (gnuplot, ffmpeg). They
// are optional: a directive that needs one that is missing fails with a
// message saying which program to install.
#include <string>
#include <vector>

namespace thorn::cli {

// The program's path on PATH, or "" when it is not there.
std::string find_program(const std::string& name);

// Runs `name args...` with `input` on its standard input. Throws
// Error(Input) when the program is missing ("gnuplot is not installed
// (needed by :plot2d)") or fails (its exit status and standard error).
void run_program(const std::string& name, const std::vector<std::string>& args, const std::string& input,
                 const std::string& needed_by);

// A fresh directory under the system's temporary directory, removed when
// this goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace thorn::cli
