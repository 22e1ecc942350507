#include "interp/cli/entry_points.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "interp/util/error.hpp"

namespace thorn::cli {

bool has_value_format(const Value& v) {
  return v.kind == Value::Kind::Scalar ||
         (v.kind == Value::Kind::Array && v.arr().elem.kind == ElemShape::Kind::Prim);
}

std::vector<std::string> declared_entry_points(const std::string& source_text) {
  static const std::regex entry_decl(R"((?:^|\n)[ \t]*entry[ \t]+([A-Za-z_][A-Za-z0-9_']*))");
  static const std::regex main_decl(R"((?:^|\n)[ \t]*(?:def|let)[ \t]+main\b)");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(source_text.begin(), source_text.end(), entry_decl); it != std::sregex_iterator();
       ++it)
    names.push_back((*it)[1]);
  if (std::regex_search(source_text, main_decl) &&
      std::find(names.begin(), names.end(), "main") == names.end())
    names.insert(names.begin(), "main");
  return names;
}

#ifdef THORN_HAVE_SESSION
std::vector<Value> read_arguments(std::string_view input, const std::string& source_name,
                                  const Session::Entry& entry, uint32_t first_line) {
  ValueReader reader(input, source_name, first_line);
  std::vector<Value> values;
  size_t n = entry.params.size();
  for (size_t k = 0; k < n; ++k) {
    if (reader.at_end())
      throw Error(ErrorKind::Input, reader.position(),
                  fmt::format("entry point {} takes {} argument{}, but the input has {}", entry.name, n,
                              n == 1 ? "" : "s", k == 0 ? "none" : fmt::format("only {}", k)));
    values.push_back(reader.read(*entry.params[k], fmt::format("argument {}", k + 1)));
  }
  if (!reader.at_end())
    throw Error(ErrorKind::Input, reader.position(),
                fmt::format("entry point {} takes {} argument{}, but the input has more values", entry.name, n,
                            n == 1 ? "" : "s"));
  return values;
}

namespace {
// Sessions that can list their entry points say so; otherwise the source
// is scanned for `entry` declarations.
template <class S>
std::vector<std::string> entry_names_of(const S& session, const std::string& path) {
  if constexpr (requires { session.entry_names(); }) {
    return session.entry_names();
  } else {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return declared_entry_points(text.str());
  }
}
}  // namespace

std::string unknown_entry_message(const Session& session, const std::string& path, const std::string& name) {
  std::vector<std::string> names = entry_names_of(session, path);
  std::string listed;
  for (const auto& n : names) listed += (listed.empty() ? "" : ", ") + n;
  if (listed.empty()) return fmt::format("{} has no entry point named '{}' (and no other entry points)", path, name);
  return fmt::format("{} has no entry point named '{}'; its entry points are: {}", path, name, listed);
}
#endif

}  // namespace thorn::cli
