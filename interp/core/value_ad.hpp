#pragma once
// Arrays whose scalars carry derivatives (ElemShape::ad), as the value
// builders in value.cpp need them: inside jvp/vjp a float array is boxed
// (one Value per element) as soon as one of its elements is an AD value.
#include <vector>

#include "interp/core/value.hpp"

namespace thorn {

// Rows that are scalars, at least one of them an AD value.
bool scalar_rows_carry_ad(const std::vector<Value>& rows);
// Array rows of which some are primitive and some boxed AD scalars (at any
// depth of tuple components).
bool rows_mix_ad_scalars(const std::vector<Value>& rows);
// The rows with every primitive leaf array boxed.
std::vector<Value> box_rows(const std::vector<Value>& rows);

}  // namespace thorn
