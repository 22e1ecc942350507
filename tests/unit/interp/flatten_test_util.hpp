#pragma once
// Helpers for the host executor's and flattener's unit tests: buffers from
// vectors, running a kir function on explicit lanes, building plan steps.
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/exec/host_executor.hpp"
#include "interp/exec/host_program.hpp"
#include "interp/flatten/kernel_ir_builder.hpp"
#include "interp/flatten/plan.hpp"

namespace thorn::testutil {

template <class T>
BufferPtr buffer(Prim p, const std::vector<T>& v) {
  auto b = std::make_shared<Buffer>(p, int64_t(v.size()));
  if (!v.empty()) std::memcpy(b->host_mut(), v.data(), v.size() * sizeof(T));
  return b;
}

inline BufferPtr bool_buffer(const std::vector<bool>& v) {
  auto b = std::make_shared<Buffer>(Prim::Bool, int64_t(v.size()));
  for (size_t i = 0; i < v.size(); ++i) b->data_mut<uint8_t>()[i] = v[i] ? 1 : 0;
  return b;
}

template <class T>
std::vector<T> contents(const BufferPtr& b) {
  std::vector<T> v(size_t(b->count()));
  if (!v.empty()) std::memcpy(v.data(), b->host(), v.size() * sizeof(T));
  return v;
}

// Runs f on each row of `args` (one row = one lane's parameters), all rows
// in one batch (rows.size() <= kLanes), returning each lane's results.
inline std::vector<std::vector<Scalar>> run_lanes(const kir::Function& f,
                                                  const std::vector<std::vector<Scalar>>& rows,
                                                  const std::vector<host::ArrayBinding>& arrays = {}) {
  auto prog = host::compile(f);
  host::Frame fr(prog);
  fr.arrays = arrays;
  int n = int(rows.size());
  for (size_t p = 0; p < prog->params().size(); ++p) {
    std::byte* lanes = fr.out<std::byte>(prog->params()[p]);
    for (int l = 0; l < n; ++l) host::write_lane(rows[size_t(l)][p], lanes, l);
  }
  host::run(fr, host::Lanes{nullptr, n});
  std::vector<std::vector<Scalar>> out(static_cast<size_t>(n));
  for (int l = 0; l < n; ++l)
    for (size_t r = 0; r < prog->results().size(); ++r)
      out[size_t(l)].push_back(host::read_lane(prog->result_type(r), fr.regs[size_t(prog->results()[r])], l));
  return out;
}

// A plan step over [segments][size] running `elem`, reading and writing the given buffers.
inline plan::Step step(plan::StepKind kind, int64_t segments, int64_t size, kir::Function elem,
                       std::vector<int> reads, std::vector<int> writes) {
  plan::Step s;
  s.kind = kind;
  s.segments = segments;
  s.segment_size = size;
  s.element = std::move(elem);
  s.reads = std::move(reads);
  s.writes = std::move(writes);
  return s;
}

// n integers uniform in [lo, hi], reproducibly from `seed`.
inline std::vector<int64_t> random_i64(size_t n, uint32_t seed, int64_t lo = -5, int64_t hi = 5) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<int64_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// A binary operator function (a, b) -> op(a, b) on type t.
inline kir::Function binop_fn(kir::BinOp op, Prim t) {
  kir::Function f;
  f.name = "op";
  kir::Builder b(f);
  kir::Reg x = b.param(t), y = b.param(t);
  b.ret({b.binary(op, x, y)});
  return f;
}

// Element function (s, j) -> arrays[a][s*size + j] for each array a.
inline kir::Function read_rows_fn(const std::vector<Prim>& elems, int64_t size) {
  kir::Function f;
  f.name = "elem";
  kir::Builder b(f);
  kir::Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
  kir::Reg idx = b.binary(kir::BinOp::Add, b.binary(kir::BinOp::Mul, s, b.i64(size)), j);
  std::vector<kir::Reg> res;
  for (size_t a = 0; a < elems.size(); ++a) res.push_back(b.read(b.free_array(elems[a], "in"), idx));
  b.ret(res);
  return f;
}

// More workers than this machine may have cores, so that the parallel paths
// split work into more than two parts (the pool reads THORN_THREADS once,
// when first used; an explicit setting wins).
[[maybe_unused]] inline const bool kManyThreads = [] { return setenv("THORN_THREADS", "5", 0) == 0; }();

// Execution on one thread, and split into parallel tasks even for small inputs.
inline host::ExecOptions serial_opts() {
  host::ExecOptions o;
  o.max_threads = 1;
  return o;
}
inline host::ExecOptions parallel_opts() {
  host::ExecOptions o;
  o.parallel_threshold = 1;
  return o;
}

}  // namespace thorn::testutil
