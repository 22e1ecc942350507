// TAB completion in thorn repl: what the word before the cursor may become.
// The line reader (readline) asks; this decides from the line so far.
#include "interp/cli/repl.hpp"

#ifdef THORN_HAVE_SESSION

#include <string_view>

namespace thorn::cli {

namespace {

// "f32.sq" -> {"f32"}, "sq"; "M.N.f" -> {"M", "N"}, "f".
std::vector<std::string> module_path_of(const std::string& word) {
  std::vector<std::string> path;
  size_t start = 0;
  for (size_t dot; (dot = word.find('.', start)) != std::string::npos; start = dot + 1)
    path.push_back(word.substr(start, dot - start));
  return path;
}

}  // namespace

Completion Repl::complete(const std::string& before, const std::string& word) const {
  Completion out;
  size_t first = before.find_first_not_of(" \t");
  std::string_view line = first == std::string::npos ? std::string_view() : std::string_view(before).substr(first);

  // The command itself: ":lo" -> ":load".
  if (line.empty() && !word.empty() && word[0] == ':') {
    for (const Command& c : command_table()) out.candidates.push_back(std::string(":") + c.name);
    return out;
  }

  if (!line.empty() && line[0] == ':') {
    std::string_view typed = line.substr(1, line.find_first_of(" \t") - 1);
    const Command* command = nullptr;
    for (const Command& c : command_table())
      if (std::string_view(c.name).substr(0, typed.size()) == typed) {
        command = &c;
        if (typed == c.name) break;
      }
    std::string name = command ? command->name : "";
    bool first_argument = line.find_first_not_of(" \t", typed.size() + 1) == std::string_view::npos;
    // :load FILE and :img FILE EXPR take a file name first.
    if ((name == "load" || name == "img") && first_argument) {
      out.file_names = true;
      return out;
    }
    if (name == "backend") {
      out.candidates = backend_names();
      return out;
    }
    if (name == "validate") {
      out.candidates = {"on", "off"};
      return out;
    }
    if (name == "reload" || name == "kernels" || name == "help" || name == "quit") return out;
  }

  // A name in scope, or a member of a module: "f32.sq" -> "f32.sqrt".
  std::vector<std::string> path = module_path_of(word);
  std::string prefix = word.substr(0, word.rfind('.') + 1);  // "" without a dot
  for (const std::string& n : session_->names_in_scope(path)) out.candidates.push_back(prefix + n);
  return out;
}

}  // namespace thorn::cli

#endif
