// SegHist: the atomic update of one bin, chosen by the operator and its
// types (notes-hist.md §2, "Atomic primitive chosen by type and operator").
//
//  - Hardware: the operator is *separable*, every result r is acc_r ⊙_r x_r
//    with nothing else computed (no Check), and each ⊙_r on its type has a
//    CUDA atomic: integer add, min, max, and, or, xor on 32/64-bit values,
//    f32/f64 add. A tuple operator of such components (vectorised
//    `map2 (+)`, k-means) gets one atomic per component: concurrent updates
//    of one bin interleave per component, which is exact because each
//    component depends only on itself (the paper's §IV-D).
//  - Cas: one value of 32 or 64 bits: read the bin, apply the operator,
//    atomicCAS the new bit pattern, repeat until the bin was unchanged.
//    The loop compares bit patterns, so a NaN in the bin (never equal to
//    itself as a float) cannot make it spin forever.
//  - Lock: anything else (tuples, 8/16-bit values, bool, f16): a 32-bit
//    lock per bin in a separate array, taken with atomicExch inside the
//    branch that does the update (so a warp's lanes cannot deadlock on
//    each other under SIMT), values read and written volatile between
//    fences.
//
// The same code serves shared and global memory: it goes through generic
// pointers (a "view": one pointer per component, in memory types).
#include <fmt/format.h>

#include "gpu/codegen/common.hpp"
#include "gpu/codegen/ctypes.hpp"
#include "gpu/codegen/hist_support.hpp"
#include "gpu/codegen/kir_to_cuda.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::cg {

namespace {

// Per component: the operation when the operator is separable.
bool separable_ops(const plan::Step& step, std::vector<kir::BinOp>& ops) {
  const kir::Function& op = step.op;
  const size_t k = op.body.results.size();
  if (k == 0 || op.body.params.size() != 2 * k) return false;
  // Nothing but the k operations (no checks, no other values).
  if (op.body.instrs.size() != k) return false;
  ops.clear();
  for (size_t r = 0; r < k; ++r) {
    const kir::Reg res = op.body.results[r];
    const kir::Instr* def = nullptr;
    for (const kir::Instr& in : op.body.instrs)
      if (in.dst == res) def = &in;
    if (!def || def->op != kir::Opcode::Binary) return false;
    const kir::Reg acc = op.body.params[r], x = op.body.params[k + r];
    if (!((def->a == acc && def->b == x) || (def->a == x && def->b == acc))) return false;
    ops.push_back(def->binop());
  }
  return true;
}

bool wide_int(Prim t) {
  return t == Prim::I32 || t == Prim::U32 || t == Prim::I64 || t == Prim::U64;
}

bool hardware_op(kir::BinOp op, Prim t) {
  switch (op) {
    case kir::BinOp::Add: return wide_int(t) || t == Prim::F32 || t == Prim::F64;
    case kir::BinOp::Min:
    case kir::BinOp::Max:
    case kir::BinOp::And:
    case kir::BinOp::Or:
    case kir::BinOp::Xor: return wide_int(t);
    default: return false;
  }
}

// The CUDA atomic for `op` on type t at address `p` with value `v`.
std::string hardware_call(kir::BinOp op, Prim t, const std::string& p, const std::string& v) {
  const bool w64 = prim_bytes(t) == 8;
  const bool sgn = is_signed_int(t);
  switch (op) {
    case kir::BinOp::Add:
      if (t == Prim::F32) return fmt::format("atomicAdd((float*)({}), {})", p, v);
      if (t == Prim::F64) return fmt::format("atomicAdd((double*)({}), {})", p, v);
      if (w64) return fmt::format("atomicAdd((unsigned long long*)({}), (unsigned long long){})", p, v);
      return fmt::format("atomicAdd((unsigned*)({}), (unsigned){})", p, v);  // wraps like i32 addition
    case kir::BinOp::Min:
    case kir::BinOp::Max: {
      const char* f = op == kir::BinOp::Min ? "atomicMin" : "atomicMax";
      const char* ty = w64 ? (sgn ? "long long" : "unsigned long long") : (sgn ? "int" : "unsigned");
      return fmt::format("{}(({}*)({}), ({}){})", f, ty, p, ty, v);
    }
    case kir::BinOp::And:
    case kir::BinOp::Or:
    case kir::BinOp::Xor: {
      const char* f = op == kir::BinOp::And ? "atomicAnd" : op == kir::BinOp::Or ? "atomicOr" : "atomicXor";
      const char* ty = w64 ? "unsigned long long" : "unsigned";
      return fmt::format("{}(({}*)({}), ({}){})", f, ty, p, ty, v);
    }
    default: break;
  }
  throw Error(ErrorKind::Internal, "SegHist: no hardware atomic for this operator");
}

// Bits of a register value of type t (4 or 8 bytes) and back, for the CAS loop.
std::string to_bits(Prim t, const std::string& v) {
  if (t == Prim::F32) return fmt::format("__float_as_uint({})", v);
  if (t == Prim::F64) return fmt::format("(unsigned long long)__double_as_longlong({})", v);
  return fmt::format("({})({})", prim_bytes(t) == 8 ? "unsigned long long" : "unsigned", v);
}
std::string from_bits(Prim t, const std::string& b) {
  if (t == Prim::F32) return fmt::format("__uint_as_float({})", b);
  if (t == Prim::F64) return fmt::format("__longlong_as_double((long long)({}))", b);
  return fmt::format("({})({})", reg_type(t), b);
}

std::vector<Prim> value_types(const plan::Step& step) { return function_results(step.op); }

}  // namespace

bool hist_atomic_allowed(const plan::Step& step, launch::HistAtomic a) {
  std::vector<Prim> types = value_types(step);
  switch (a) {
    case launch::HistAtomic::Lock: return !types.empty();
    case launch::HistAtomic::Cas:
      return types.size() == 1 && types[0] != Prim::F16 && prim_bytes(types[0]) >= 4;
    case launch::HistAtomic::Hardware: {
      std::vector<kir::BinOp> ops;
      if (!separable_ops(step, ops) || ops.size() != types.size()) return false;
      for (size_t r = 0; r < ops.size(); ++r)
        if (!hardware_op(ops[r], types[r])) return false;
      return true;
    }
  }
  return false;
}

launch::HistAtomic hist_best_atomic(const plan::Step& step) {
  for (launch::HistAtomic a : {launch::HistAtomic::Hardware, launch::HistAtomic::Cas})
    if (hist_atomic_allowed(step, a)) return a;
  return launch::HistAtomic::Lock;
}

int hist_value_bytes(const plan::Step& step) {
  int b = 0;
  for (Prim p : value_types(step)) b += prim_bytes(p);
  return b;
}

namespace detail {

std::string hist_view_fns(const std::vector<Prim>& types) {
  std::string s = "// A histogram (or a chunk of one): one pointer per component, in memory types.\nstruct thorn_hview {";
  for (size_t c = 0; c < types.size(); ++c) s += fmt::format(" {}* c{};", mem_type(types[c]), c);
  s += " };\n";
  s += "THORN_DEV thorn_hview thorn_hview_at(const thorn_hview& h, i64 off) {\n  thorn_hview r;\n";
  for (size_t c = 0; c < types.size(); ++c) s += fmt::format("  r.c{0} = h.c{0} + off;\n", c);
  s += "  return r;\n}\n";
  s += "THORN_DEV thorn_acc thorn_hload(const thorn_hview& h, i64 i) {\n  thorn_acc a;\n";
  for (size_t c = 0; c < types.size(); ++c)
    s += fmt::format("  a.c{} = {};\n", c, load_expr(types[c], fmt::format("h.c{}[i]", c)));
  s += "  return a;\n}\n";
  s += "THORN_DEV void thorn_hstore(const thorn_hview& h, i64 i, const thorn_acc& a) {\n";
  for (size_t c = 0; c < types.size(); ++c)
    s += fmt::format("  h.c{0}[i] = {1};\n", c, store_expr(types[c], fmt::format("a.c{}", c)));
  s += "}\n";
  return s;
}

std::string hist_update_fn(const plan::Step& step, launch::HistAtomic atomic) {
  if (!hist_atomic_allowed(step, atomic))
    throw Error(ErrorKind::Internal,
                fmt::format("SegHist: the operator does not allow {} updates", launch::hist_atomic_name(atomic)));
  std::vector<Prim> types = value_types(step);
  const size_t k = types.size();
  std::string s =
      "// Bin i of h ⊕= x, atomically; `locks` (Lock only) has one word per bin of h.\n"
      "// False when the operator's Check failed (the error flag is set).\n"
      "THORN_DEV bool thorn_hupdate(const thorn_env& env, const thorn_hview& h, u32* locks, i64 i, const thorn_acc& x) {\n";
  switch (atomic) {
    case launch::HistAtomic::Hardware: {
      std::vector<kir::BinOp> ops;
      separable_ops(step, ops);
      for (size_t c = 0; c < k; ++c)
        s += "  " + hardware_call(ops[c], types[c], fmt::format("h.c{} + i", c), fmt::format("x.c{}", c)) + ";\n";
      s += "  return true;\n";
      break;
    }
    case launch::HistAtomic::Cas: {
      const Prim t = types[0];
      const char* U = prim_bytes(t) == 8 ? "unsigned long long" : "unsigned";
      s += fmt::format(
          "  {0}* p = ({0}*)(h.c0 + i);\n"
          "  {0} old = *(volatile {0}*)p, assumed;\n"
          "  do {{\n"
          "    assumed = old;\n"
          "    {1} r;\n"
          "    if (!thorn_op(env, {2}, x.c0, r)) return false;\n"
          "    const {0} next = {3};\n"
          "    if (next == assumed) break;  // nothing changes (x is neutral here): no write\n"
          "    old = atomicCAS(p, assumed, next);\n"
          "  }} while (old != assumed);  // bit patterns: a NaN in the bin compares equal to itself\n"
          "  return true;\n",
          U, reg_type(t), from_bits(t, "assumed"), to_bits(t, "r"));
      break;
    }
    case launch::HistAtomic::Lock: {
      std::string load, store, args;
      for (size_t c = 0; c < k; ++c) {
        load += fmt::format("      a.c{0} = {1};\n", c,
                            load_expr(types[c], fmt::format("((volatile {}*)h.c{})[i]", mem_type(types[c]), c)));
        store += fmt::format("        ((volatile {0}*)h.c{1})[i] = {2};\n", mem_type(types[c]), c,
                             store_expr(types[c], fmt::format("r.c{}", c)));
      }
      for (size_t c = 0; c < k; ++c) args += fmt::format(", a.c{}", c);
      for (size_t c = 0; c < k; ++c) args += fmt::format(", x.c{}", c);
      for (size_t c = 0; c < k; ++c) args += fmt::format(", r.c{}", c);
      s += fmt::format(
          "  bool done = false, ok = true;\n"
          "  while (!done) {{\n"
          "    // Acquire and release in one branch: a lane that fails retries\n"
          "    // while its neighbours that succeeded finish (independent thread\n"
          "    // scheduling, sm_70 and later).\n"
          "    if (atomicExch(locks + i, 1u) == 0u) {{\n"
          "      __threadfence();  // see the previous holder's writes\n"
          "      thorn_acc a, r;\n"
          "{0}"
          "      ok = thorn_op(env{1});\n"
          "      if (ok) {{\n"
          "{2}"
          "      }}\n"
          "      __threadfence();  // the values before the lock\n"
          "      atomicExch(locks + i, 0u);\n"
          "      done = true;\n"
          "    }}\n"
          "  }}\n"
          "  return ok;\n",
          load, args, store);
      break;
    }
  }
  return s + "}\n";
}

}  // namespace detail

}  // namespace thorn::gpu::cg
