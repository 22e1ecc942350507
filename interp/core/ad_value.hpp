#pragma once
// A scalar that carries a derivative, for automatic differentiation on the
// reference path (interp/eval/ad.hpp does the arithmetic).
//
// Every jvp/vjp call opens a new *level* (a number that only grows, so two
// calls never share one). Inside it, the floats of its argument are AD values
// of that level. An operation on AD values computes its result on the
// primals and records how the result depends on its operands: forward mode
// (jvp) carries a tangent along, reverse mode (vjp) appends a node to the
// level's tape. A primal may itself be an AD value of an outer level, which is
// how nested differentiation (jvp of vjp, ...) works without confusing the
// levels' perturbations.
#include <cstdint>
#include <memory>

#include "interp/core/value.hpp"

namespace thorn {

struct ADTape;  // reverse mode's record of operations (interp/eval/ad.cpp)

struct ADValue {
  uint64_t level = 0;
  Prim prim = Prim::F64;  // the type of the scalar underneath
  Value primal;           // a Scalar, or an AD value of an outer level
  // Forward mode: the tangent (a Scalar or an outer-level AD value).
  Value tangent;
  // Reverse mode: the tape and this value's node on it.
  std::shared_ptr<ADTape> tape;
  int64_t node = -1;
};

// The plain scalar underneath any number of levels.
inline Scalar ad_scalar(const Value& v) {
  const Value* x = &v;
  while (x->kind == Value::Kind::AD) x = &x->ad->primal;
  return x->scalar;
}

}  // namespace thorn
