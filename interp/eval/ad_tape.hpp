#pragma once
// Reverse mode's tape (see ad.hpp): one node per operation on the floats of
// one vjp call, in evaluation order, so a backward sweep over the nodes in
// reverse visits every result before its operands.
#include <cstdint>
#include <functional>
#include <optional>
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
    // A custom derivative (with_vjp): run when the backward sweep reaches
    // this node, whether or not it has an adjoint itself. `adjoint(k)` reads
    // node k's adjoint (zero-less: nullopt when none), `add(k, v)` adds to
    // it. The node is created before the outputs it reads, so they are
    // complete by then.
    std::function<void(const std::function<std::optional<Value>(int64_t)>& adjoint,
                       const std::function<void(int64_t, const Value&)>& add)>
        custom;
  };
  uint64_t level = 0;
  std::vector<Node> nodes;
  // Something was recorded whose reverse rule is not the transpose of its
  // forward one (iota's length, a bit cast: Futhark's rules differ between
  // the modes), so the partials are no linearisation for forward mode
  // (jmp2 then runs jvp2 per seed).
  bool reverse_only = false;

  int64_t add(Prim prim, std::vector<std::pair<int64_t, Value>> edges) {
    nodes.push_back(Node{prim, std::move(edges)});
    return int64_t(nodes.size()) - 1;
  }
};

}  // namespace thorn
