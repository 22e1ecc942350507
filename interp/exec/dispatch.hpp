#pragma once
// The dispatcher: the one door every SOAC and array primitive goes through
// (DESIGN.md, "Dispatch"). The evaluator builds a SoacCall from the
// prelude's `__intrinsic` call and hands it to dispatch(), which picks a
// backend: the host backend (host_backend.hpp: the planner's plans on the
// host executor, or on the GPU under --backend gpu) takes the calls it can
// flatten, the reference backend (reference.hpp) the rest, and `validate`
// runs the reference beside the host backend and compares.
//
// Argument conventions (args, in this order; functions are Function values,
// callable through Evaluator::apply):
//   Map            f, xs_1, ..., xs_k          k >= 1 arrays of one outer size   -> [n]b
//   Reduce         op, ne, xs                                                   -> a
//   ReduceComm     op, ne, xs                  (op also commutative)            -> a
//   Scan           op, ne, xs                  inclusive                        -> [n]a
//   ReduceByIndex  dest, op, ne, is, vs        is: [n]i64 (dims 1), [n](i64,i64) (2),
//                                              [n](i64,i64,i64) (3); out-of-bounds ignored -> dest'
//   Scatter        dest, is, vs                same index forms; out-of-bounds ignored -> dest'
//   Filter         p, xs                                                        -> []a
//   Partition      p, xs                                                        -> ([]a, []a)
//   Partition2     p1, p2, xs                                                   -> ([]a, []a, []a)
//   Iota           n (i64)                                                      -> [n]i64
//   Replicate      n (i64), x                                                   -> [n]a
//   Transpose      xs: [n][m]a                                                  -> [m][n]a
//   Concat         xs, ys                                                       -> [n+m]a
//   Flatten        xs: [n][m]a                                                  -> [n*m]a
//   Unflatten      n, m, xs: [n*m]a                                             -> [n][m]a
//   Rotate         r (i64), xs                 result[i] = xs[(i + r) mod n]    -> [n]a
//   Zip            xs_1, ..., xs_k             k >= 2, one outer size           -> [n](a_1, ..., a_k)
//   Unzip          xs: [n](a_1, ..., a_k)                                       -> ([n]a_1, ..., [n]a_k)
// `dest` arguments are consumed: updated in place when nothing else refers
// to them.
#include <functional>
#include <string_view>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/types/type.hpp"
#include "interp/util/source.hpp"

namespace thorn::eval {
class Evaluator;
}

namespace thorn::exec {

enum class SoacKind {
  Map, Reduce, ReduceComm, Scan, ReduceByIndex, Scatter, Filter, Partition, Partition2,
  Iota, Replicate, Transpose, Concat, Flatten, Unflatten, Rotate, Zip, Unzip,
};

std::string_view soac_name(SoacKind k);  // as the prelude calls it: "map", "reduce_by_index", ...

struct SoacCall {
  SoacKind kind = SoacKind::Map;
  int index_dims = 1;  // ReduceByIndex / Scatter: dimensionality of the indices
  Loc loc;             // the SOAC's call site in user code (Evaluator::user_call_loc), else the prelude's
  std::vector<Value> args;
  // The result's type, resolved lazily; may return null when unknown. The
  // reference backend needs it only for `map` over an empty array.
  std::function<TypePtr()> result_type;
};

// Whether a backend of this name can run in this build ("reference" always).
bool backend_available(std::string_view name);

// Runs the call on the selected backend. Errors are thrown as
// Error(ErrorKind::Runtime) with the call's location.
Value dispatch(SoacCall& call, eval::Evaluator& ev);

}  // namespace thorn::exec
