#include "interp/exec/native/native_source.hpp"

#include <functional>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "gpu/codegen/constants.hpp"
#include "gpu/codegen/ctypes.hpp"
#include "gpu/codegen/kir_to_cuda.hpp"
#include "gpu/codegen/prelude.hpp"
#include "interp/exec/native/native_bounds.hpp"
#include "interp/exec/native/native_uniform.hpp"

namespace thorn::host::native {

namespace cg = gpu::cg;

namespace {

// Constants lifted out of the source (lifted_constant_bits): all of them but
// integer divisors (constants.hpp: a division by a constant compiles to a
// multiplication; shapes rarely change between calls of one kernel).
constexpr int kLiftAll = std::numeric_limits<int>::max();

// Private arrays live on the worker's stack (8 MiB for pool threads) up to
// this many bytes per element; larger ones (a row-wise map's intermediates,
// up to kir::kMaxSegMapPrivateBytes) in a per-thread heap block.
constexpr int64_t kMaxLocalBytes = 256 * 1024;

// Lanes of the block form. Measured on matmul 512^3 and k-means (bench/
// native): 8 lanes 200/135 ms, 16 lanes 173/210 ms (and 2 s compiling: the
// compiler unrolls everything), 32 lanes 130/150 ms. Wide blocks amortise a
// uniform load (matmul's column of b) over more elements; a block's
// registers still fit the L1 and L2 caches.
constexpr int kBlock = 32;

bool uses_f16(const kir::Function& f) {
  for (Prim p : f.reg_types)
    if (p == Prim::F16) return true;
  for (const kir::FreeArray& a : f.free_arrays)
    if (a.elem == Prim::F16) return true;
  for (const kir::LocalArray& l : f.locals)
    if (l.elem == Prim::F16) return true;
  return false;
}

// Whether the fold (Gen::fold) computes what the interpreter's lane
// accumulators do. An operator that is one binary operation per value on
// (acc, x) or (x, acc) is run by the host executor's typed loops as
// acc = acc OP x (recognise_fast_op, host_step.cpp); the fold runs the
// operator's code, the same bits for + and * with acc first (in the other
// order, two NaNs could give the other's payload). Any other operator is
// the interpreter's code on both sides.
bool fold_agrees(const kir::Function& op) {
  const size_t k = op.body.results.size();
  if (op.body.params.size() != 2 * k || k == 0) return false;
  auto def_of = [&](size_t r) -> const kir::Instr* {
    for (const kir::Instr& in : op.body.instrs)
      if (in.dst == op.body.results[r]) return &in;
    return nullptr;
  };
  auto typed = [&](size_t r) {
    const kir::Instr* d = def_of(r);
    const kir::Reg acc = op.body.params[r], x = op.body.params[k + r];
    return d && d->op == kir::Opcode::Binary && ((d->a == acc && d->b == x) || (d->a == x && d->b == acc));
  };
  bool all_typed = op.body.instrs.size() == k;
  for (size_t r = 0; r < k && all_typed; ++r) all_typed = typed(r);
  if (!all_typed) return true;  // the interpreter's code on both sides
  for (size_t r = 0; r < k; ++r) {
    const kir::Instr* d = def_of(r);
    if (d->a != op.body.params[r]) return false;
    if (d->binop() != kir::BinOp::Add && d->binop() != kir::BinOp::Mul) return false;
  }
  return true;
}

bool has_op(const plan::Step& s) {
  return s.kind == plan::StepKind::SegRed || s.kind == plan::StepKind::SegScan ||
         s.kind == plan::StepKind::SegHist;
}

// Lane arrays hold bools as one byte 0/1 (host_semantics.hpp: RegT<Bool>).
std::string lane_type(Prim p) { return p == Prim::Bool ? "u8" : std::string(cg::reg_type(p)); }

const char* kShims = R"CPP(// ---- thorn native prelude
// The CUDA intrinsics the kernel IR emitter (gpu/codegen/kir_to_cuda.cpp)
// writes, in terms of GCC/Clang built-ins. No system header but <math.h>:
// every millisecond of the compiler's start-up is latency of a new kernel.
#include <math.h>
#define THORN_DEV static inline __attribute__((always_inline))
#define THORN_NOINLINE static __attribute__((noinline))
#define THORN_ENTRY extern "C" __attribute__((visibility("default")))
static inline float __int_as_float(int i) { float f; __builtin_memcpy(&f, &i, 4); return f; }
static inline float __uint_as_float(unsigned u) { float f; __builtin_memcpy(&f, &u, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned u; __builtin_memcpy(&u, &f, 4); return u; }
static inline double __longlong_as_double(long long i) { double d; __builtin_memcpy(&d, &i, 8); return d; }
static inline long long __double_as_longlong(double d) { long long i; __builtin_memcpy(&i, &d, 8); return i; }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
)CPP";

// What the host dialect adds: the host executor's shifts and integer power
// (interp/exec/host_semantics.hpp, mirrored operation for operation), the
// clamped index, a plain (single-threaded per call) error flag, and the loop
// over a range of flat positions.
const char* kHostHelpers = R"CPP(// Private arrays too large for a worker's stack: one block per thread,
// grown as needed and reused by every call on the thread (an element's
// arrays are dead when it returns). Null when the memory cannot be had: the
// entry then hands its range back to the interpreter.
static inline u8* thorn_scratch(u64 bytes) {
  static thread_local u8* block = 0;
  static thread_local u64 capacity = 0;
  if (capacity < bytes) {
    __builtin_free(block);
    block = (u8*)__builtin_malloc(bytes);
    capacity = block ? bytes : 0;
  }
  return block;
}
template <class T> THORN_DEV bool thorn_unsigned() { return (T)-1 > (T)0; }
template <class T> THORN_DEV i64 thorn_amount(T b) {
  if (thorn_unsigned<T>()) return (i64)((u64)b > 64 ? 64 : (u64)b);
  return (i64)b;
}
template <class T> THORN_DEV u64 thorn_zext(T a) {
  return (u64)(i64)a & (sizeof(T) == 8 ? ~0ull : ((1ull << (8 * sizeof(T))) - 1ull));
}
template <class T> THORN_DEV T thorn_hshl(T a, T b) {
  const i64 amt = thorn_amount(b);
  if (amt >= 64) return (T)0;
  if (amt < 0) return (T)(-amt >= 64 ? ((i64)a < 0 ? -1 : 0) : ((i64)a >> -amt));
  return (T)((u64)(i64)a << amt);
}
template <class T> THORN_DEV T thorn_hashr(T a, T b) {
  const i64 amt = thorn_amount(b);
  if (amt < 0) return amt <= -64 ? (T)0 : (T)((u64)(i64)a << -amt);
  if (amt >= 64) return (T)((i64)a < 0 ? -1 : 0);
  return (T)((i64)a >> amt);
}
template <class T> THORN_DEV T thorn_hlshr(T a, T b) {
  const u64 x = thorn_zext(a);
  const i64 amt = thorn_amount(b);
  if (amt < 0) return amt <= -64 ? (T)0 : (T)(x << -amt);
  if (amt >= 64) return (T)0;
  return (T)(x >> amt);
}
// Wrapping power by squaring; a negative exponent is an error the IR checks
// first, and 0 here, as in the interpreter.
template <class T> THORN_DEV T thorn_hpow(T a, T b) {
  if (!thorn_unsigned<T>() && b < (T)0) return (T)0;
  u64 base = (u64)(i64)a, res = 1, e = thorn_zext(b);
  while (e) {
    if (e & 1) res *= base;
    base *= base;
    e >>= 1;
  }
  return (T)res;
}
THORN_DEV void thorn_fail(i32* err, i32 msg) { if (*err == 0) *err = msg + 1; }
THORN_DEV i64 thorn_clamp(i64 i, i64 n, u8& oob) {
  const bool bad = (u64)i >= (u64)n;
  oob |= (u8)bad;
  return bad ? 0 : i;
}
struct thorn_args {
  const void* const* arrays;
  const i64* counts;
  void* const* outs;
  const u64* consts;
  i64 segment_size;
  const u8* cancel;
};
// f(s, j, i) for the flat positions i in [begin, end) of a [*][n] space:
// runs within one segment are plain counted loops (vectorisable).
// Returns the OR of f's results (non-zero: a failure).
template <class F> THORN_DEV u8 thorn_for_range(i64 begin, i64 end, i64 n, F&& f) {
  u8 bad = 0;
  i64 s = 0, j = begin;
  if (begin >= n) s = begin / n, j = begin - s * n;  // a 64-bit division costs as much as a tile of work
  for (i64 i = begin; i < end;) {
    const i64 stop = end - i < n - j ? end : i + (n - j);
    const i64 off = j - i;
    for (i64 k = i; k < stop; ++k) bad |= f(s, k + off, k);
    i = stop;
    ++s;
    j = 0;
  }
  return bad;
}
// The block form's loop: f(S, J, i, count) for blocks of THORN_B lanes at
// flat positions i, i+1, ...; a last, partial block repeats its last
// element in the spare lanes (valid indices; their results are dropped).
template <class F> THORN_DEV void thorn_for_blocks(i64 begin, i64 end, i64 n, F&& f) {
  i64 s = 0, j = begin;
  if (begin >= n) s = begin / n, j = begin - s * n;  // a 64-bit division costs as much as a tile of work
  for (i64 i = begin; i < end; i += THORN_B) {
    const int count = end - i < THORN_B ? (int)(end - i) : THORN_B;
    i64 S[THORN_B], J[THORN_B];
    for (int l = 0; l < THORN_B; ++l) {
      S[l] = s;
      J[l] = j;
      if (l + 1 < count && ++j == n) j = 0, ++s;
    }
    f(S, J, i, count);
    if (++j == n) j = 0, ++s;
  }
}
// ---- end of prelude
)CPP";

struct Gen {
  const plan::Step& step;
  cg::LiftedConstants lc;
  std::string out;
  std::optional<std::vector<char>> varying;  // the block form's (native_uniform.hpp)
  LaneLoops lanes;                           // outside it (native_uniform.hpp)
  std::set<const kir::Instr*> unchecked = affine_reads(step.element);  // native_bounds.hpp

  void env_struct() {
    size_t nc = lc.values.size();
    out += fmt::format("struct thorn_consts {{ u64 v[{}]; }};\n", nc ? nc : 1);
    out += "struct thorn_env {\n  i32* err;\n  i32 msg_elem, msg_op;\n  thorn_consts kc;\n  const u8* cancel;\n";
    const auto& fas = step.element.free_arrays;
    for (size_t k = 0; k < fas.size(); ++k)
      out += fmt::format("  {}{}* fa{};\n  i64 cnt{};\n", fas[k].written ? "" : "const ", cg::mem_type(fas[k].elem), k, k);
    out += "};\n";
    // Constants are copied into the environment (a local of each entry), so
    // the compiler keeps them in registers instead of reloading them past
    // every store that might alias the caller's array.
    out += "THORN_DEV void thorn_bind(thorn_env& env, const thorn_args* a, i32* err) {\n"
           "  env.err = err;\n  env.msg_elem = 0;\n  env.msg_op = 0;\n  env.cancel = a->cancel;\n";
    for (size_t k = 0; k < nc; ++k) out += fmt::format("  env.kc.v[{0}] = a->consts[{0}];\n", k);
    for (size_t k = 0; k < fas.size(); ++k)
      out += fmt::format("  env.fa{0} = ({1}{2}*)a->arrays[{0}];\n  env.cnt{0} = a->counts[{0}];\n", k,
                         fas[k].written ? "" : "const ", cg::mem_type(fas[k].elem));
    out += "}\n";
  }

  std::string function(const kir::Function& f, const std::string& name, const std::string& msg_base) {
    cg::FunctionEmitOptions o;
    o.dialect = cg::Dialect::Host;
    o.name = name;
    o.msg_base = msg_base;
    o.lifted = &lc;
    if (&f == &step.element) {
      if (varying) o.varying = &*varying;
      else if (!lanes.empty()) o.lane_loops = &lanes;
      o.unchecked_reads = &unchecked;
    }
    o.heap_locals = f.local_bytes() > kMaxLocalBytes;
    return cg::emit_function(f, o);
  }

  // Declarations of the element's result variables and the call's arguments.
  void element_call(std::string& body, std::string& args) {
    auto res = cg::function_results(step.element);
    for (size_t r = 0; r < res.size(); ++r) {
      body += fmt::format("    {0} v{1} = {0}();\n", cg::reg_type(res[r]), r);
      args += fmt::format(", v{}", r);
    }
  }

  // The block form's entry body: elements in blocks of THORN_B lanes;
  // `store(r, lane, pos)` writes lane `lane` of result r for flat position pos.
  std::string block_loop(const std::string& begin, const std::string& end, const std::string& decl,
                         const std::function<std::string(size_t)>& store) {
    auto res = cg::function_results(step.element);
    std::string body, args, stores;
    for (size_t r = 0; r < res.size(); ++r) {
      body += fmt::format("    {} v{}[THORN_B];\n", cg::reg_type(res[r]), r);
      args += fmt::format(", v{}", r);
      stores += "      " + store(r) + "\n";
    }
    return fmt::format(R"CPP(  thorn_env env0;
  i32 err = 0;
  thorn_bind(env0, a, &err);
  u8 oob = 0;
  bool ok = true;
{0}  thorn_for_blocks({1}, {2}, a->segment_size, [&](const i64* S, const i64* J, i64 i, int count) {{
    // Copies the compiler can keep in registers: nothing the body stores
    // through a pointer can alias them (a u8 behind a reference can alias
    // anything, and would force reloads of every pointer after each read).
    const thorn_env env = env0;
    u8 o = 0;
{3}    ok &= thorn_elem(env, o, S, J{4});
    oob |= o;
    for (int l = 0; l < count; ++l) {{
{5}    }}
  }});
  return ok && !oob ? 0 : 1;
)CPP",
                       decl, begin, end, body, args, stores);
  }

  void segmap_block() {
    auto res = cg::function_results(step.element);
    std::string decl;
    for (size_t r = 0; r < res.size(); ++r)
      decl += fmt::format("  {0}* const o{1} = ({0}*)a->outs[{1}];\n", cg::mem_type(res[r]), r);
    out += "THORN_ENTRY int thorn_segmap(const thorn_args* a, i64 begin, i64 end) {\n";
    out += block_loop("begin", "end", decl, [&](size_t r) {
      return fmt::format("o{}[i + l] = {};", r, cg::store_expr(res[r], fmt::format("v{}[l]", r)));
    });
    out += "}\n";
  }

  void tile_block() {
    auto res = cg::function_results(step.element);
    std::string decl;
    for (size_t r = 0; r < res.size(); ++r)
      decl += fmt::format("  {0}* const o{1} = ({0}*)lanes[{1}];\n", lane_type(res[r]), r);
    out += "THORN_ENTRY int thorn_tile(const thorn_args* a, i64 flat0, i32 n, void* const* lanes) {\n";
    out += block_loop("flat0", "flat0 + n", decl, [&](size_t r) {
      return fmt::format("o{}[i - flat0 + l] = ({})v{}[l];", r, lane_type(res[r]), r);
    });
    out += "}\n";
  }

  // The scalar form's entry: one element per iteration of a counted loop.
  // Failures come back as the lambda's value, OR-ed into a local: a flag
  // stored through a reference (a u8 may alias anything) would keep the
  // compiler from vectorising the loop. Results go to local arrays first,
  // a piece of 256 elements at a time, and are then copied out: a store
  // through an output pointer might alias an input, so the compiler could
  // neither hoist a read at an index that is the same for every element
  // (n-body's body i) out of the loop nor vectorise it, and the element
  // loop stayed scalar. `types[r]` is the output's element type,
  // `value(r)` the value stored, `base` the output's flat position 0.
  void scalar_entry(const std::string& signature, const std::string& begin, const std::string& end,
                    const std::string& decl, const std::vector<std::string>& types,
                    const std::function<std::string(size_t)>& value, const std::string& base) {
    auto res = cg::function_results(step.element);
    std::string body, args, temps, stores, copies;
    element_call(body, args);
    for (size_t r = 0; r < res.size(); ++r) {
      temps += fmt::format("    {} t{}[256];\n", types[r], r);
      stores += fmt::format("      t{}[i - c0] = {};\n", r, value(r));
      // A whole piece's copy has a constant size, so it is inlined (a call
      // to memcpy per piece and result cost a sixth of n-body's time).
      copies += fmt::format(
          "    if (c1 - c0 == 256) __builtin_memcpy(o{0} + (c0 - {1}), t{0}, sizeof(t{0}));\n"
          "    else __builtin_memcpy(o{0} + (c0 - {1}), t{0}, (unsigned long)(c1 - c0) * sizeof(t{0}[0]));\n",
          r, base);
    }
    out += fmt::format(R"CPP(THORN_ENTRY int {0} {{
  thorn_env env;
  i32 err = 0;
  thorn_bind(env, a, &err);
{1}  u8 bad = 0;
  for (i64 c0 = {2}; c0 < {3}; c0 += 256) {{
    const i64 c1 = {3} - c0 < 256 ? {3} : c0 + 256;
{7}    bad |= thorn_for_range(c0, c1, a->segment_size, [&](i64 s, i64 j, i64 i) -> u8 {{
      u8 o = 0;
{4}      const bool good = thorn_elem(env, o, s, j{5});
{6}      return (u8)(o | !good);
    }});
{8}  }}
  return bad ? 1 : 0;
}}
)CPP",
                       signature, decl, begin, end, body, args, stores, temps, copies);
  }

  void segmap() {
    auto res = cg::function_results(step.element);
    std::string decl;
    std::vector<std::string> types;
    for (size_t r = 0; r < res.size(); ++r) {
      decl += fmt::format("  {0}* const o{1} = ({0}*)a->outs[{1}];\n", cg::mem_type(res[r]), r);
      types.emplace_back(cg::mem_type(res[r]));
    }
    scalar_entry("thorn_segmap(const thorn_args* a, i64 begin, i64 end)", "begin", "end", decl, types,
                 [&](size_t r) { return cg::store_expr(res[r], fmt::format("v{}", r)); }, "0");
  }

  void tile() {
    auto res = cg::function_results(step.element);
    std::string decl;
    std::vector<std::string> types;
    for (size_t r = 0; r < res.size(); ++r) {
      decl += fmt::format("  {0}* const o{1} = ({0}*)lanes[{1}];\n", lane_type(res[r]), r);
      types.push_back(lane_type(res[r]));
    }
    scalar_entry("thorn_tile(const thorn_args* a, i64 flat0, i32 n, void* const* lanes)", "flat0", "flat0 + n", decl,
                 types, [&](size_t r) { return fmt::format("({})v{}", lane_type(res[r]), r); }, "flat0");
  }

  // SegRed's fold (native_abi.hpp FoldFn): the element and the operator
  // per lane in one loop, tile after tile of a segment's range, so the
  // element's results never go through the interpreter's lane arrays. The
  // accumulators live in local arrays for the call (copied in, and back
  // only on success, so that a failure leaves them as they were; stores
  // through the caller's pointers could alias the inputs, see
  // scalar_entry), which a call per tile paid as much as the tile's work.
  void fold() {
    auto ops = cg::function_results(step.op);
    std::string decl, temps, copy_in, copy_out, body, args, op_args, op_outs, stores;
    element_call(body, args);
    for (size_t r = 0; r < ops.size(); ++r) {
      std::string L = lane_type(ops[r]);
      decl += fmt::format("  {0}* const p{1} = ({0}*)acc[{1}];\n", L, r);
      temps += fmt::format("  {} t{}[256];\n", L, r);
      copy_in += fmt::format("  __builtin_memcpy(t{0}, p{0}, (unsigned long)w * sizeof(t{0}[0]));\n", r);
      copy_out += fmt::format("  __builtin_memcpy(p{0}, t{0}, (unsigned long)w * sizeof(t{0}[0]));\n", r);
      op_args += fmt::format(", t{}[i - c0]", r);
      body += fmt::format("      {0} w{1} = {0}();\n", cg::reg_type(ops[r]), r);
      op_outs += fmt::format(", w{}", r);
      stores += fmt::format("      t{}[i - c0] = ({})w{};\n", r, L, r);
    }
    for (size_t r = 0; r < ops.size(); ++r) op_args += fmt::format(", v{}", r);  // no map outputs: results m.. are 0..
    out += fmt::format(R"CPP(THORN_ENTRY int thorn_fold(const thorn_args* a, i64 begin, i64 end, void* const* acc) {{
  thorn_env env;
  i32 err = 0;
  thorn_bind(env, a, &err);
  const i64 w = end - begin < 256 ? end - begin : 256;
{0}{1}{2}  for (i64 c0 = begin; c0 < end; c0 += 256) {{
    if (__atomic_load_n(env.cancel, __ATOMIC_RELAXED)) return 1;
    const i64 c1 = end - c0 < 256 ? end : c0 + 256;
    const u8 bad = thorn_for_range(c0, c1, a->segment_size, [&](i64 s, i64 j, i64 i) -> u8 {{
      u8 o = 0;
{3}      bool good = thorn_elem(env, o, s, j{4});
      good &= thorn_op(env, o{5}{6});
{7}      return (u8)(o | !good);
    }});
    if (bad) return 1;
  }}
{8}  return 0;
}}
)CPP",
                       decl, temps, copy_in, body, args, op_args, op_outs, stores, copy_out);
  }

  void apply() {
    auto res = cg::function_results(step.op);
    std::string decl, body, args_acc, args_x, outs, stores;
    for (size_t r = 0; r < res.size(); ++r) {
      std::string L = lane_type(res[r]);
      decl += fmt::format("  const {0}* const a{1} = (const {0}*)acc[{1}];\n", L, r);
      decl += fmt::format("  const {0}* const x{1} = (const {0}*)x[{1}];\n", L, r);
      decl += fmt::format("  {0}* const o{1} = ({0}*)out[{1}];\n", L, r);
      body += fmt::format("    {0} v{1} = {0}();\n", cg::reg_type(res[r]), r);
      args_acc += fmt::format(", a{}[l]", r);
      args_x += fmt::format(", x{}[l]", r);
      outs += fmt::format(", v{}", r);
      stores += fmt::format("    o{}[l] = ({})v{};\n", r, L, r);
    }
    out += fmt::format(R"CPP(THORN_ENTRY int thorn_apply(const thorn_args* a, const void* const* acc, const void* const* x, void* const* out, i32 n) {{
  thorn_env env;
  i32 err = 0;
  thorn_bind(env, a, &err);
  u8 oob = 0;
  bool ok = true;
{0}  for (i32 l = 0; l < n; ++l) {{
{1}    ok &= thorn_op(env, oob{2}{3}{4});
{5}  }}
  return ok && !oob ? 0 : 1;
}}
)CPP",
                       decl, body, args_acc, args_x, outs, stores);
  }
};

}  // namespace

std::string prelude() {
  std::string s = kShims;
  s += fmt::format("#define THORN_B {}\n", kBlock);
  s += cg::scalar_types();
  s += cg::scalar_helpers();
  s += kHostHelpers;
  return s;
}

std::string unsupported(const plan::Step& step) {
  if (uses_f16(step.element) || (has_op(step) && uses_f16(step.op))) return "uses f16";
  if (step.element.local_bytes() > kir::kMaxSegMapPrivateBytes)
    return fmt::format("private arrays of {} bytes per element", step.element.local_bytes());
  return {};
}

std::vector<uint64_t> lifted_constant_bits(const plan::Step& step) {
  return cg::constant_bits(cg::lift_constants(step, kLiftAll, true));
}

Source generate(const plan::Step& step) {
  Gen g{step, cg::lift_constants(step, kLiftAll, true), {}, std::nullopt, {}};
  // Loops with uniform control flow: the block form (native_uniform.hpp),
  // unless the lanes' private arrays would not fit the stack.
  if (has_loop(step.element) && step.element.local_bytes() * kBlock <= kMaxLocalBytes)
    g.varying = varying_registers(step.element);
  if (!g.varying) g.lanes = lane_loops(step.element);
  Source src;
  // Only what shapes the code goes in the text (no names, sizes or
  // locations), so that the same nest elsewhere hits the caches.
  g.out = fmt::format("// thorn native kernel for {}\n", plan::step_kind_name(step.kind));
  g.out += prelude();
  g.env_struct();
  g.out += g.function(step.element, "thorn_elem", "env.msg_elem");
  src.tile = true;
  src.segmap = step.kind == plan::StepKind::SegMap;
  if (g.varying) {
    g.tile_block();
    if (src.segmap) g.segmap_block();
  } else {
    g.tile();
    if (src.segmap) g.segmap();
  }
  if (has_op(step) && step.op.free_arrays.empty() && step.op.local_bytes() <= kMaxLocalBytes) {
    g.out += g.function(step.op, "thorn_op", "env.msg_op");
    src.apply = true;
    g.apply();
    if (step.kind == plan::StepKind::SegRed && step.num_map_outputs == 0 && !g.varying &&
        cg::function_results(step.element).size() == cg::function_results(step.op).size() && fold_agrees(step.op)) {
      src.fold = true;
      g.fold();
    }
  }
  src.text = std::move(g.out);
  return src;
}

}  // namespace thorn::host::native
