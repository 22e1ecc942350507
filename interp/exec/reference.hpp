#pragma once
// The reference backend: every SOAC nested, sequential, element by element,
// applying function values through the evaluator. Deliberately simple: it is
// the oracle the other backends are compared against.
//
// Semantics pinned down here: reduce folds left to right from the neutral
// element; scan is inclusive; reduce_by_index and scatter visit the input
// in order and ignore out-of-bounds indices (so for scatter the last write
// of a duplicate wins, which Futhark leaves unspecified).
#include "interp/exec/dispatch.hpp"

namespace thorn::exec::reference {

Value run(SoacCall& call, eval::Evaluator& ev);

}  // namespace thorn::exec::reference
