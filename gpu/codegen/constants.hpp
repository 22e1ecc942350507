#pragma once
// Constant lifting: the flattener bakes run-time values into the kernel IR
// as constants (segment sizes, row strides, captured scalars such as the `a`
// of `map (\x -> a*x) xs`). Left in the CUDA text, every new size or value
// would be a new kernel and a new NVRTC compilation (~100 ms). So numeric
// constants other than 0, 1 and -1 (kept: they steer code generation, and
// are rarely run-time values) become slots of a kernel parameter
//   struct thorn_consts { u64 v[N]; }   (bit patterns)
// and the kernel text depends only on the code's structure. The executor
// passes the values (constant_bits) at launch; both sides walk the IR in the
// same order (element, then operator; instructions depth-first in order).
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "interp/flatten/plan.hpp"

namespace thorn::gpu::cg {

constexpr int kMaxLiftedConstants = 128;  // 1 KiB of kernel parameters

struct LiftedConstants {
  std::map<const kir::Instr*, int> slot;  // Const instruction -> slot
  std::vector<Scalar> values;             // by slot
};

bool worth_lifting(const Scalar& s);
// At most `max_slots` (the GPU: kMaxLiftedConstants, its kernel parameters
// being limited; native host code passes them through memory and lifts all).
// With keep_divisors, integer constants that some integer division or
// remainder divides by stay in the text (native host code: the C++
// compiler turns a division by a constant into a multiplication, where a
// lifted one is a hardware division of tens of cycles, and such constants
// are array shapes, which rarely change between calls of one kernel).
LiftedConstants lift_constants(const plan::Step& step, int max_slots = kMaxLiftedConstants,
                               bool keep_divisors = false);
// Registers some integer division or remainder of f divides by (the
// constants keep_divisors keeps).
std::set<kir::Reg> divisor_registers(const kir::Function& f);
// The slots' bit patterns as the kernel reads them (f16: its float's bits).
std::vector<uint64_t> constant_bits(const LiftedConstants& lc);
// The register-typed expression reading slot `slot` (inside a device function with `env`).
std::string lifted_expr(Prim t, int slot);

}  // namespace thorn::gpu::cg
