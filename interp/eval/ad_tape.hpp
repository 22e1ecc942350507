#pragma once
// Reverse mode's tape (see ad.hpp): one node per operation on the floats of
// one vjp call, in evaluation order, so a backward sweep over the nodes in
// reverse visits every result before its operands.
#include <cstdint>
#include <utility>
#include <vector>

#include "interp/core/ad_value.hpp"

namespace thorn {

struct ADTape {
  struct Node {
    Prim prim = Prim::F64;
    // The operands' nodes and the partial derivative of this node's value
    // with respect to each (a Value of this node's type; it may carry an
    // outer level's derivative).
    std::vector<std::pair<int64_t, Value>> edges;
  };
  uint64_t level = 0;
  std::vector<Node> nodes;

  int64_t add(Prim prim, std::vector<std::pair<int64_t, Value>> edges) {
    nodes.push_back(Node{prim, std::move(edges)});
    return int64_t(nodes.size()) - 1;
  }
};

}  // namespace thorn
