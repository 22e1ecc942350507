#include "interp/syntax/ast.hpp"

#include <cctype>

namespace thorn {

bool is_symbolic(const std::string& name) {
  return !name.empty() && !std::isalpha(static_cast<unsigned char>(name[0])) && name[0] != '_';
}

std::string QualName::str() const {
  std::string out;
  for (const auto& q : qualifiers) out += q + ".";
  return out + name;
}

}  // namespace thorn
