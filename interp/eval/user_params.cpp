#include "interp/eval/user_params.hpp"

#include <fstream>
#include <mutex>

#include <fmt/format.h>

#include "interp/util/error.hpp"

namespace thorn::eval {

namespace {
std::mutex g_mutex;
UserParams g_params;
}  // namespace

void set_user_params(UserParams params) {
  std::lock_guard<std::mutex> g(g_mutex);
  g_params = std::move(params);
}

const UserParams& user_params() { return g_params; }

std::optional<int64_t> user_param_value(const std::string& attr) {
  if (attr.size() < 8 || attr.compare(0, 6, "param(") != 0 || attr.back() != ')') return std::nullopt;
  std::string name = attr.substr(6, attr.size() - 7);
  std::lock_guard<std::mutex> g(g_mutex);
  auto it = g_params.find(name);
  if (it == g_params.end()) return std::nullopt;
  return it->second;
}

UserParams read_tuning_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorKind::Usage, fmt::format("cannot read the tuning file {}", path));
  UserParams out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    size_t eq = line.find('=');
    int64_t v = 0;
    bool ok = eq != std::string::npos && eq > 0 && eq + 1 < line.size();
    if (ok) {
      try {
        size_t used = 0;
        v = std::stoll(line.substr(eq + 1), &used);
        ok = used == line.size() - eq - 1;
      } catch (...) {
        ok = false;
      }
    }
    if (!ok) throw Error(ErrorKind::Usage, fmt::format("{}:{}: expected name=value, got \"{}\"", path, n, line));
    out[line.substr(0, eq)] = v;
  }
  return out;
}

}  // namespace thorn::eval
