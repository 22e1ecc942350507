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

std::optional<int64_t> user_param_value(const std::string& attr) {
  if (attr.size() < 8 || attr.compare(0, 6, "param(") != 0 || attr.back() != ')') return std::nullopt;
  std::string name = attr.substr(6, attr.size() - 7);
  std::lock_guard<std::mutex> g(g_mutex);
  auto it = g_params.find(name);
  if (it == g_params.end()) return std::nullopt;
  return it->second;
}

std::optional<std::pair<std::string, int64_t>> parse_user_param(const std::string& setting) {
  size_t eq = setting.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == setting.size()) return std::nullopt;
  try {
    size_t used = 0;
    int64_t v = std::stoll(setting.substr(eq + 1), &used);
    if (used != setting.size() - eq - 1) return std::nullopt;
    return std::make_pair(setting.substr(0, eq), v);
  } catch (...) {
    return std::nullopt;
  }
}

UserParams read_tuning_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorKind::Usage, fmt::format("cannot read the tuning file {}", path));
  UserParams out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    auto p = parse_user_param(line);
    if (!p) throw Error(ErrorKind::Usage, fmt::format("{}:{}: expected name=value, got \"{}\"", path, n, line));
    out[p->first] = p->second;
  }
  return out;
}

}  // namespace thorn::eval
