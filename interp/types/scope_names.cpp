#include "interp/types/scope_names.hpp"

#include <algorithm>
#include <cctype>

#include "interp/types/checker_impl.hpp"

namespace thorn::types {

namespace {

// Operators (`+`, `|>`) and the checker's internal names are not what a
// user completes a word into.
bool is_identifier(const std::string& name) {
  return !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
}

}  // namespace

std::vector<std::string> names_in_scope(const Checker::State& state, const std::vector<std::string>& module_path) {
  const Env* env = &state->top.visible;
  for (const std::string& part : module_path) {
    auto it = env->mods.find(part);
    if (it == env->mods.end() || !it->second || !it->second->env) return {};
    env = it->second->env.get();
  }
  std::vector<std::string> names;
  for (const auto& [name, _] : env->values)
    if (is_identifier(name)) names.push_back(name);
  for (const auto& [name, _] : env->mods)
    if (is_identifier(name)) names.push_back(name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace thorn::types
