#include "interp/cli/external_program.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "interp/util/error.hpp"

namespace thorn::cli {

namespace fs = std::filesystem;

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate.string();
  }
  return "";
}

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "thorn-literate-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw Error(ErrorKind::Input, "cannot create a temporary directory");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

void run_program(const std::string& name, const std::vector<std::string>& args, const std::string& input,
                 const std::string& needed_by) {
  std::string program = find_program(name);
  if (program.empty())
    throw Error(ErrorKind::Input, fmt::format("{} is not installed (needed by {}); install it and run again",
                                              name, needed_by));
  // Standard input and error go through files: no pipes to keep from filling up.
  TempDir dir;
  std::string in_path = dir.path() + "/stdin", err_path = dir.path() + "/stderr";
  std::ofstream(in_path, std::ios::binary) << input;
  pid_t pid = ::fork();
  if (pid < 0) throw Error(ErrorKind::Input, fmt::format("cannot start {}", name));
  if (pid == 0) {
    int in = ::open(in_path.c_str(), O_RDONLY);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int out = ::open("/dev/null", O_WRONLY);
    if (in < 0 || err < 0 || out < 0) ::_exit(127);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> argv{const_cast<char*>(program.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::ifstream err_file(err_path);
  std::string err{std::istreambuf_iterator<char>(err_file), std::istreambuf_iterator<char>()};
  while (!err.empty() && err.back() == '\n') err.pop_back();
  throw Error(ErrorKind::Input,
              fmt::format("{} failed ({}){}{}", name,
                          WIFEXITED(status) ? fmt::format("exit status {}", WEXITSTATUS(status)) : "killed by a signal",
                          err.empty() ? "" : ":\n", err));
}

}  // namespace thorn::cli
