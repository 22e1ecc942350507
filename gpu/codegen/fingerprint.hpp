#pragma once
// A step's structural key: everything its generated kernel text depends on
// (step kind, the element and operator IR, types, neutral elements, the
// constants left in the text) and nothing it does not (sizes, lifted
// constants' values, names, messages, locations). The executor maps keys to
// loaded modules, so a warm launch skips code generation (~30-120 µs) and
// hashing the text.
#include <string>

#include "interp/flatten/plan.hpp"

namespace thorn::gpu::cg {

// keep_divisors: as lift_constants(..., keep_divisors), the constants it
// keeps in the text are part of the key (the native tier).
std::string structural_key(const plan::Step& step, bool keep_divisors = false);

}  // namespace thorn::gpu::cg
