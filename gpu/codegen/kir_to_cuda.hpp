#pragma once
// Kernel IR -> CUDA C: one kir::Function becomes one inlined device function
//
//   THORN_DEV bool NAME(const ENV& env, <params>, <result refs>)
//
// returning false when a Check failed (after recording the message in the
// error flag; the caller stops using the results). Free array k is read as
// `<free_array_prefix><k>[index]` (and a `written` one stored into the same
// way, by Write); private arrays are per-thread C arrays `l<k>[count]`
// declared at the top of the function; a failing Check records message
// `<msg_base> + aux`. Each subroutine the body calls (kir::Subroutine) is
// emitted before it as `NAME_s<k>` with the same environment (and `oob`),
// its parameters, and result references, failing as the function does;
// large ones are THORN_NOINLINE (out of line: the point of subroutines is a
// unit the compilers can digest), small ones THORN_DEV. Semantics follow Futhark (see gpu/codegen/prelude.cpp):
// wrap-around integer arithmetic, division rounding down, conversions as the
// host backends do them, f16 rounded after every operation.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gpu/codegen/constants.hpp"
#include "interp/flatten/kernel_ir.hpp"

namespace thorn::gpu::cg {

// Where the function runs. The host dialect (interp/exec/native) is C++ for
// the system compiler and must agree bit for bit with the host executor's
// interpreter (interp/exec/host_semantics.hpp), which differs from the CUDA
// kernels in a few places: `%` on floats is C's fmod, shifts by negative
// amounts shift the other way, integer `**` by a negative exponent is 0.
// Free-array and private-array indices are clamped into range there and the
// violation recorded in `oob` (a `u8&` parameter placed after `env`), so an
// index the planner got wrong cannot touch foreign memory, and the loop
// around the function stays free of branches the vectoriser cannot handle.
// Loops poll the Ctrl-C flag `env.cancel` and fail when it is set.
enum class Dialect { Cuda, Host };

struct FunctionEmitOptions {
  Dialect dialect = Dialect::Cuda;

  std::string name;                          // the C function name
  std::string env_type = "thorn_env";        // the environment struct (by const reference)
  std::string free_array_prefix = "env.fa";  // free array k: env.fa<k>
  std::string free_array_count_prefix = "env.cnt";  // Host dialect: its element count env.cnt<k>
  std::string err = "env.err";               // i32* error flag
  std::string msg_base = "0";                // added to Check message numbers
  bool read_only_cache = false;              // read free arrays with __ldg (no aliasing writes)
  const LiftedConstants* lifted = nullptr;   // constants read from env.kc (constants.hpp)
  // Host dialect, block form (interp/exec/native/native_uniform.hpp): the
  // function runs THORN_B elements at once. Registers marked here (indexed by
  // register) are arrays of THORN_B lanes, the others, and all control flow,
  // are shared by the lanes; the caller guarantees that conditions and loop
  // counts are uniform. Varying parameters and every result are then passed
  // as pointers to THORN_B lanes; private arrays are laid out [count][lane].
  const std::vector<char>* varying = nullptr;
  // Host dialect, lane loops (native_uniform.hpp), outside the block form:
  // For loops whose iterations run THORN_B at a time as lanes, with the
  // registers that vary across them (the block form within the loop: an
  // array of lanes each, the private arrays shared). A While whose
  // condition varies, here or in the block form, runs masked.
  const std::map<const kir::Instr*, std::vector<char>>* lane_loops = nullptr;
  // Host dialect: reads whose bounds the caller checks itself (interp/exec/
  // native/native_bounds.hpp); their index is used as is, not clamped.
  const std::set<const kir::Instr*>* unchecked_reads = nullptr;
  // Host dialect: the private arrays come from the calling thread's heap
  // scratch (thorn_scratch in the native prelude) instead of the stack,
  // for elements whose arrays would not fit a worker's stack. The function
  // fails (hands its range back) if that memory cannot be had.
  bool heap_locals = false;
};

std::string emit_function(const kir::Function& f, const FunctionEmitOptions& opts);

// The parameter and result types of `f` (from its body), without relying on
// anything but the registers' types.
std::vector<Prim> function_params(const kir::Function& f);
std::vector<Prim> function_results(const kir::Function& f);

}  // namespace thorn::gpu::cg
