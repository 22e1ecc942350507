#include "interp/syntax/ast.hpp"

namespace thorn {

std::string QualName::str() const {
  std::string out;
  for (const auto& q : qualifiers) out += q + ".";
  return out + name;
}

}  // namespace thorn
