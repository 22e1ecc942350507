#pragma once
// Whether a SOAC call's functions do work per element that its element
// count does not show, so that a call over few elements is still worth a
// plan (host_backend.cpp's THORN_HOST_MIN_WORK threshold).
//
// Why: the threshold counts elements only, so rodinia/myocyte's
// `#[sequential_inner] tabulate workload (\i -> solver ...)` with
// workload = 1 went to the reference backend, and the whole ODE solver (a
// loop of 300 steps x 13 stages over functions of hundreds of `let`s) ran
// in the tree-walking evaluator: 3.5 s. Planned, the solver is one SegMap
// element in kernel IR, which the host executor runs in about a third of
// that (docs/performance.md). A function is heavy when its body, or the
// body of a named function it refers to (followed through the closures'
// environments), holds a `loop`, or when together they exceed
// kHeavyNodes syntax nodes; and a map is, when its function holds an inner
// SOAC (also in a function it calls): the flattener distributes it
// (exec/map_distribute.hpp).
#include "interp/exec/dispatch.hpp"

namespace thorn::exec {

constexpr int kHeavyNodes = 2000;

bool heavy_elements(const SoacCall& call);

}  // namespace thorn::exec
