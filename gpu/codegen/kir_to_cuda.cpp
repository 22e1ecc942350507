#include "gpu/codegen/kir_to_cuda.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpu/codegen/ctypes.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::cg {

using kir::BinOp;
using kir::Block;
using kir::CmpOp;
using kir::Instr;
using kir::Opcode;
using kir::Reg;
using kir::UnOp;

std::vector<Prim> function_params(const kir::Function& f) {
  std::vector<Prim> out;
  for (Reg r : f.body.params) out.push_back(f.reg_types.at(size_t(r)));
  return out;
}

std::vector<Prim> function_results(const kir::Function& f) {
  std::vector<Prim> out;
  for (Reg r : f.body.results) out.push_back(f.reg_types.at(size_t(r)));
  return out;
}

namespace {

std::string reg_name(Reg r) { return fmt::format("r{}", r); }

// The unsigned type integer arithmetic wraps in: C promotes narrower types to
// int, where overflow would be undefined, so compute in u32 or u64.
std::string_view wide(Prim t) { return bit_width(t) <= 32 ? "u32" : "u64"; }

// Float functions: f32 name, f64 name.
struct FloatFn {
  const char* f32;
  const char* f64;
};

const FloatFn* float_fn(UnOp op) {
  static const std::map<UnOp, FloatFn> fns = {
      {UnOp::Sqrt, {"sqrtf", "sqrt"}},     {UnOp::Cbrt, {"cbrtf", "cbrt"}},
      {UnOp::Exp, {"expf", "exp"}},        {UnOp::Log, {"logf", "log"}},
      {UnOp::Log2, {"log2f", "log2"}},     {UnOp::Log10, {"log10f", "log10"}},
      {UnOp::Log1p, {"log1pf", "log1p"}},  {UnOp::Sin, {"sinf", "sin"}},
      {UnOp::Cos, {"cosf", "cos"}},        {UnOp::Tan, {"tanf", "tan"}},
      {UnOp::Asin, {"asinf", "asin"}},     {UnOp::Acos, {"acosf", "acos"}},
      {UnOp::Atan, {"atanf", "atan"}},     {UnOp::Sinh, {"sinhf", "sinh"}},
      {UnOp::Cosh, {"coshf", "cosh"}},     {UnOp::Tanh, {"tanhf", "tanh"}},
      {UnOp::Asinh, {"asinhf", "asinh"}},  {UnOp::Acosh, {"acoshf", "acosh"}},
      {UnOp::Atanh, {"atanhf", "atanh"}},  {UnOp::Floor, {"floorf", "floor"}},
      {UnOp::Ceil, {"ceilf", "ceil"}},     {UnOp::Round, {"rintf", "rint"}},
      {UnOp::Trunc, {"truncf", "trunc"}},  {UnOp::Erf, {"erff", "erf"}},
      {UnOp::Erfc, {"erfcf", "erfc"}},     {UnOp::Gamma, {"tgammaf", "tgamma"}},
      {UnOp::Lgamma, {"lgammaf", "lgamma"}},
  };
  auto it = fns.find(op);
  return it == fns.end() ? nullptr : &it->second;
}

// Subroutines of at least this many instructions are emitted noinline.
constexpr int64_t kNoInlineInstructions = 200;

// Rounds a float expression to the register type (f16 needs it).
std::string round_to(Prim t, const std::string& e) {
  return t == Prim::F16 ? fmt::format("thorn_rh({})", e) : e;
}

class Emitter {
 public:
  Emitter(const kir::Function& f, const FunctionEmitOptions& o) : f_(f), o_(o) {}

  std::string run() {
    // Subroutines the body reaches, in index order: callees come first
    // (kernel_ir.hpp), so every function is defined before its callers.
    std::vector<char> reached(f_.subs.size(), 0);
    reach(f_.body, reached);
    sub_locals_.assign(f_.subs.size(), {});
    for (size_t k = 0; k < f_.subs.size(); ++k) {
      sub_locals_[k].assign(f_.locals.size(), 0);
      used_locals(f_.subs[k].body, sub_locals_[k], true);
    }
    for (size_t k = 0; k < f_.subs.size(); ++k)
      if (reached[k]) subroutine(int(k));
    varying_ = o_.varying;
    laned_locals_ = o_.varying != nullptr;

    std::vector<std::string> params{fmt::format("const {}& env", o_.env_type)};
    if (host()) params.push_back("u8& oob");
    // Block form: varying parameters and all results are arrays of THORN_B lanes.
    for (Reg r : f_.body.params) {
      params.push_back(varying(r) ? fmt::format("const {}* {}", reg_type(type(r)), reg_name(r))
                                  : fmt::format("{} {}", reg_type(type(r)), reg_name(r)));
      is_param_[r] = true;
    }
    for (size_t i = 0; i < f_.body.results.size(); ++i)
      params.push_back(fmt::format("{}{} out{}", reg_type(type(f_.body.results[i])), block() ? "*" : "&", i));

    std::string sig;
    for (size_t i = 0; i < params.size(); ++i) sig += (i ? ", " : "") + params[i];
    // The IR function's name stays out of the text: it may carry a source
    // location, and identical code should hash identically.
    out_ += fmt::format("THORN_DEV bool {}({}) {{\n", o_.name, sig);
    declare_registers(f_.body);
    declare_locals();
    indent_ = 1;
    block_body(f_.body);
    for (size_t i = 0; i < f_.body.results.size(); ++i)
      lanes_line(block(), fmt::format("out{}{} = {};", i, block() ? "[l]" : "", reg(f_.body.results[i])));
    line("return true;");
    out_ += "}\n";
    return out_;
  }

 private:
  // ---- subroutines (kir::Subroutine): each a function of its own,
  //   THORN_DEV|THORN_NOINLINE bool NAME_sK(env, [oob,] params..., result refs...)
  // failing as the element does; a Call passes its failure on. Never in the
  // block form (native_uniform.cpp keeps functions with calls out of it),
  // but a subroutine may hold a lane loop (a row of Mandelbrot's pixels).
  std::string sub_name(int k) const { return fmt::format("{}_s{}", o_.name, k); }

  void reach(const Block& b, std::vector<char>& reached) const {
    for (const Instr& in : b.instrs) {
      if (in.op == Opcode::Call) {
        if (in.aux < 0 || size_t(in.aux) >= f_.subs.size())
          throw Error(ErrorKind::Internal, fmt::format("kernel codegen: subroutine {} missing in {}", in.aux, f_.name));
        if (!reached[size_t(in.aux)]) {
          reached[size_t(in.aux)] = 1;
          reach(f_.subs[size_t(in.aux)].body, reached);
        }
      }
      for (const Block& nb : in.blocks) reach(nb, reached);
    }
  }

  void subroutine(int k) {
    const Block& body = f_.subs[size_t(k)].body;
    std::vector<std::string> params{fmt::format("const {}& env", o_.env_type)};
    if (host()) params.push_back("u8& oob");
    for (size_t l = 0; l < f_.locals.size(); ++l)
      if (sub_locals_[size_t(k)][l]) params.push_back(fmt::format("{}* l{}", reg_type(f_.locals[l].elem), l));
    is_param_.clear();
    for (Reg r : body.params) {
      params.push_back(fmt::format("{} {}", reg_type(type(r)), reg_name(r)));
      is_param_[r] = true;
    }
    for (size_t i = 0; i < body.results.size(); ++i)
      params.push_back(fmt::format("{}& out{}", reg_type(type(body.results[i])), i));
    std::string sig;
    for (size_t i = 0; i < params.size(); ++i) sig += (i ? ", " : "") + params[i];
    // Large bodies stay out of line: that is what keeps the unit small
    // enough to compile; small ones the compiler may as well inline.
    const char* kind = kir::instruction_count(body) >= kNoInlineInstructions ? "THORN_NOINLINE" : "THORN_DEV";
    out_ += fmt::format("{} bool {}({}) {{\n", kind, sub_name(k), sig);
    declare_registers(body);
    indent_ = 1;
    loop_depth_ = 0;
    block_body(body);
    for (size_t i = 0; i < body.results.size(); ++i) line(fmt::format("out{} = {};", i, reg(body.results[i])));
    line("return true;");
    out_ += "}\n";
    is_param_.clear();
  }

  void call(const Instr& in) {
    std::string args = host() ? "env, oob" : "env";
    for (size_t l = 0; l < f_.locals.size(); ++l)
      if (sub_locals_[size_t(in.aux)][l]) args += fmt::format(", l{}", l);
    for (Reg r : in.args) args += ", " + reg(r);
    for (Reg r : in.dsts) args += ", " + reg(r);
    line(fmt::format("if (!{}({})) return false;", sub_name(in.aux), args));
  }

  Prim type(Reg r) const {
    if (r < 0 || size_t(r) >= f_.reg_types.size())
      throw Error(ErrorKind::Internal, fmt::format("kernel codegen: register r{} out of range in {}", r, f_.name));
    return f_.reg_types[size_t(r)];
  }

  void line(const std::string& s) {
    // Native sources are compiled, not read: one space per level (myocyte's
    // solver spends a fifth of its bytes on indentation otherwise).
    out_.append(size_t(indent_) * (host() ? 1 : 2), ' ');
    out_ += s;
    out_ += '\n';
  }

  // ---- the block form (FunctionEmitOptions::varying): a varying register
  // is an array of THORN_B lanes, read as rN[l] inside a loop over the lanes
  // that each statement writing it is wrapped in; uniform registers and all
  // control flow stay scalar.
  // Within a lane loop (FunctionEmitOptions::lane_loops) the same, with the
  // loop's own varying registers, the private arrays shared by the lanes.
  bool block() const { return varying_ != nullptr; }
  bool varying(Reg r) const { return block() && r >= 0 && (*varying_)[size_t(r)]; }
  std::string reg(Reg r) const {
    return varying(r) && !lane_scalar_.count(r) ? reg_name(r) + "[l]" : reg_name(r);
  }
  void lanes_line(bool over_lanes, const std::string& s) {
    line(over_lanes ? "for (int l = 0; l < THORN_B; ++l) " + s : s);
  }
  void assign(Reg dst, const std::string& expr) { lanes_line(varying(dst), fmt::format("{} = {};", reg(dst), expr)); }
  // Host dialect outside the block form: an instruction's destination is
  // declared where it is defined (`f32 r7 = ...;`), not in the list at the
  // top, which keeps large native units small. Valid C++ because a
  // register is only used in the block defining it and blocks nested there
  // (kir::verify's scoping), which the emitted braces follow.
  bool compact() const { return host() && !block(); }
  void define(Reg dst, const std::string& expr) {
    if (compact() || lane_scalar_.count(dst)) line(fmt::format("{} {} = {};", reg_type(type(dst)), reg_name(dst), expr));
    else assign(dst, expr);
  }

  // Every register defined in the body (instruction results and nested block
  // parameters) is a local declared up front: SSA form makes each assigned
  // once per evaluation, and structured blocks then need no scoping care.
  void collect(const Block& b, bool is_function_body, std::map<Prim, std::vector<Reg>>& by_type) {
    if (!is_function_body)
      for (Reg r : b.params) by_type[type(r)].push_back(r);
    for (const Instr& in : b.instrs) {
      if (in.dst != kir::kNoReg && !compact()) by_type[type(in.dst)].push_back(in.dst);
      for (Reg d : in.dsts) by_type[type(d)].push_back(d);
      for (const Block& nb : in.blocks) collect(nb, false, by_type);
    }
  }

  void declare_registers(const Block& body, bool is_function_body = true) {
    std::map<Prim, std::vector<Reg>> by_type;
    collect(body, is_function_body, by_type);
    for (auto& [t, regs] : by_type) {
      std::string names;
      for (size_t i = 0; i < regs.size(); ++i) {
        if (is_param_.count(regs[i])) continue;
        names += (names.empty() ? "" : ", ") + reg_name(regs[i]) + (varying(regs[i]) ? "[THORN_B]" : "");
      }
      if (names.empty()) continue;
      if (is_function_body) out_ += fmt::format("  {} {};\n", reg_type(t), names);
      else line(fmt::format("{} {};", reg_type(t), names));
    }
  }

  // Private arrays (kir::LocalArray) are per-thread C arrays: their sizes
  // are part of the code (the structural key includes them), and the
  // compiler keeps small ones in registers and the rest in local memory.
  // All are declared in the function; a subroutine gets a pointer to each
  // one it or its callees use (a caller fills an array argument's storage,
  // kernel_ir.hpp).
  void declare_locals() {
    if (o_.heap_locals && host() && !laned_locals_ && !f_.locals.empty()) {
      // One block, each array at a 64-byte aligned offset.
      std::vector<int64_t> offsets;
      int64_t total = 0;
      for (const kir::LocalArray& l : f_.locals) {
        offsets.push_back(total);
        total += (std::max<int64_t>(l.count, 1) * prim_bytes(l.elem) + 63) / 64 * 64;
      }
      out_ += fmt::format("  u8* thorn_heap = thorn_scratch({});\n  if (!thorn_heap) return false;\n", total);
      for (size_t k = 0; k < f_.locals.size(); ++k)
        out_ += fmt::format("  {0}* l{1} = ({0}*)(thorn_heap + {2});\n", reg_type(f_.locals[k].elem), k, offsets[k]);
      return;
    }
    for (size_t k = 0; k < f_.locals.size(); ++k)
      out_ += fmt::format("  {} l{}[{}]{};\n", reg_type(f_.locals[k].elem), k, std::max<int64_t>(f_.locals[k].count, 1),
                          laned_locals_ ? "[THORN_B]" : "");
  }
  // The private arrays a block uses, with those of the subroutines it calls
  // (computed in index order: callees first).
  void used_locals(const Block& b, std::vector<char>& used, bool through_calls) const {
    for (const Instr& in : b.instrs) {
      if ((in.op == Opcode::LocalRead || in.op == Opcode::LocalWrite) && in.aux >= 0 && size_t(in.aux) < used.size())
        used[size_t(in.aux)] = 1;
      if (in.op == Opcode::Call && through_calls && in.aux >= 0 && size_t(in.aux) < sub_locals_.size())
        for (size_t l = 0; l < used.size(); ++l) used[l] |= sub_locals_[size_t(in.aux)][l];
      for (const Block& nb : in.blocks) used_locals(nb, used, through_calls);
    }
  }

  const kir::FreeArray& free_array(const Instr& in) const {
    if (in.aux < 0 || size_t(in.aux) >= f_.free_arrays.size())
      throw Error(ErrorKind::Internal, fmt::format("kernel codegen: free array {} missing in {}", in.aux, f_.name));
    return f_.free_arrays[size_t(in.aux)];
  }

  void check_local(const Instr& in) const {
    if (in.aux < 0 || size_t(in.aux) >= f_.locals.size())
      throw Error(ErrorKind::Internal, fmt::format("kernel codegen: private array {} missing in {}", in.aux, f_.name));
  }

  bool host() const { return o_.dialect == Dialect::Host; }

  // Host dialect: a loop stops at Ctrl-C (the flag in env.cancel) and the
  // function fails, so that the interpreter reruns the range and stops
  // with Interrupted where it checks the flag itself.
  void poll_cancel() {
    if (host()) line("if (__atomic_load_n(env.cancel, __ATOMIC_RELAXED)) return false;");
  }

  // Host dialect: indices clamped into range, a violation noted in `oob`
  // (see Dialect); the CUDA kernels trust the lowering's Checks.
  std::string free_index(const Instr& in) const {
    if (!host() || (o_.unchecked_reads && o_.unchecked_reads->count(&in))) return reg(in.a);
    return fmt::format("thorn_clamp({}, {}{}, oob)", reg(in.a), o_.free_array_count_prefix, in.aux);
  }
  std::string local_index(const Instr& in) const {
    if (!host()) return reg(in.a);
    return fmt::format("thorn_clamp({}, {}, oob)", reg(in.a), std::max<int64_t>(f_.locals[size_t(in.aux)].count, 1));
  }

  void block_body(const Block& b) {
    for (const Instr& in : b.instrs) instr(in);
  }

  // Assigns `values` to `targets` as one parallel assignment (a loop's next
  // carried values may be a permutation of its current ones).
  void parallel_assign(const std::vector<Reg>& targets, const std::vector<Reg>& values) {
    if (targets.size() != values.size())
      throw Error(ErrorKind::Internal, fmt::format("kernel codegen: {} values for {} targets in {}",
                                                   values.size(), targets.size(), f_.name));
    std::vector<std::string> tmps;
    for (size_t i = 0; i < values.size(); ++i) {
      if (targets[i] == values[i]) {
        tmps.emplace_back();
        continue;
      }
      std::string t = fmt::format("t{}", tmp_++);
      if (varying(targets[i])) {  // a lane array (the value may be uniform: broadcast)
        line(fmt::format("{} {}[THORN_B];", reg_type(type(values[i])), t));
        lanes_line(true, fmt::format("{}[l] = {};", t, reg(values[i])));
        tmps.push_back(t + "[l]");
      } else {
        line(fmt::format("const {} {} = {};", reg_type(type(values[i])), t, reg(values[i])));
        tmps.push_back(t);
      }
    }
    for (size_t i = 0; i < targets.size(); ++i)
      if (!tmps[i].empty()) assign(targets[i], tmps[i]);
  }

  void instr(const Instr& in) {
    switch (in.op) {
      case Opcode::Const: {
        if (o_.lifted) {
          auto it = o_.lifted->slot.find(&in);
          if (it != o_.lifted->slot.end()) {
            define(in.dst, lifted_expr(in.type, it->second));
            return;
          }
        }
        define(in.dst, literal(in.imm.type == in.type ? in.imm : in.imm.convert_to(in.type)));
        return;
      }
      case Opcode::Unary: define(in.dst, unary(in)); return;
      case Opcode::Binary: define(in.dst, binary(in)); return;
      case Opcode::Compare: define(in.dst, compare(in)); return;
      case Opcode::Convert: define(in.dst, convert(in.src_type, in.type, reg(in.a))); return;
      case Opcode::Select:
        // Across lanes, a choice between bools (`&&` lowered) is bitwise:
        // GCC's vectoriser takes a bool `?:` for control flow.
        if (block() && type(in.dst) == Prim::Bool)
          define(in.dst, fmt::format("(bool)(((u8){0} & (u8){1}) | ((u8)!{0} & (u8){2}))", reg(in.a), reg(in.b), reg(in.c)));
        else
          define(in.dst, fmt::format("{} ? {} : {}", reg(in.a), reg(in.b), reg(in.c)));
        return;
      case Opcode::Read: {
        const kir::FreeArray& fa = free_array(in);
        std::string mem = fmt::format("{}{}[{}]", o_.free_array_prefix, in.aux, free_index(in));
        // The read-only cache is for arrays no thread writes during the kernel.
        if (o_.read_only_cache && !fa.written) mem = fmt::format("__ldg(&{})", mem);
        define(in.dst, load_expr(fa.elem, mem));
        return;
      }
      case Opcode::Write: {
        const kir::FreeArray& fa = free_array(in);
        if (!fa.written)
          throw Error(ErrorKind::Internal, fmt::format("kernel codegen: write to read-only free array {} in {}", in.aux, f_.name));
        lanes_line(varying(in.a) || varying(in.b), fmt::format("{}{}[{}] = {};", o_.free_array_prefix, in.aux,
                                                               free_index(in), store_expr(fa.elem, reg(in.b))));
        return;
      }
      // Indices were checked by the lowering's own Check instructions, as on
      // the host (whose extra bounds test only guards against planner bugs).
      case Opcode::LocalRead:
        check_local(in);
        define(in.dst, fmt::format("l{}[{}]{}", in.aux, local_index(in), laned_locals_ ? "[l]" : ""));
        return;
      case Opcode::LocalWrite:
        check_local(in);
        lanes_line(laned_locals_ || varying(in.a) || varying(in.b),
                   fmt::format("l{}[{}]{} = {};", in.aux, local_index(in), laned_locals_ ? "[l]" : "", reg(in.b)));
        return;
      case Opcode::Check:
        lanes_line(varying(in.a), fmt::format("if (!{}) {{ thorn_fail({}, {} + {}); return false; }}", reg(in.a), o_.err,
                                                      o_.msg_base, in.aux));
        return;
      case Opcode::Call: call(in); return;
      case Opcode::If: {
        line(fmt::format("if ({}) {{", reg(in.a)));
        ++indent_;
        block_body(in.blocks.at(0));
        parallel_assign(in.dsts, in.blocks[0].results);
        --indent_;
        line("} else {");
        ++indent_;
        block_body(in.blocks.at(1));
        parallel_assign(in.dsts, in.blocks[1].results);
        --indent_;
        line("}");
        return;
      }
      case Opcode::For: {
        if (!block() && o_.lane_loops) {
          auto it = o_.lane_loops->find(&in);
          if (it != o_.lane_loops->end()) return lane_loop(in, it->second);
        }
        const Block& body = in.blocks.at(0);
        std::vector<Reg> carried(body.params.begin() + 1, body.params.end());
        // Not i{}: i8, i16, i32 and i64 are type names (a loop counter named i64
        // made the next declaration `i64 r1 = ...` a syntax error).
        std::string n = fmt::format("n{}", tmp_++), i = fmt::format("it{}", tmp_++);
        line("{");
        ++indent_;
        line(fmt::format("const i64 {} = {};", n, reg(in.a)));
        parallel_assign(carried, in.args);
        line(fmt::format("for (i64 {0} = 0; {0} < {1}; ++{0}) {{", i, n));
        ++indent_;
        // Outermost For loops only: an inner one runs a bounded count per
        // outer iteration, and a poll in matmul's dot product costs 10%.
        if (loop_depth_ == 0) poll_cancel();
        ++loop_depth_;
        line(fmt::format("{} = {};", reg(body.params.at(0)), i));
        block_body(body);
        parallel_assign(carried, body.results);
        --loop_depth_;
        --indent_;
        line("}");
        parallel_assign(in.dsts, carried);
        --indent_;
        line("}");
        return;
      }
      case Opcode::While: {
        if (varying(in.blocks.at(0).results.at(0))) return masked_while(in);
        const Block& cond = in.blocks.at(0);
        const Block& body = in.blocks.at(1);
        line("{");
        ++indent_;
        parallel_assign(cond.params, in.args);
        line("while (true) {");
        ++indent_;
        poll_cancel();
        block_body(cond);
        line(fmt::format("if (!{}) break;", reg(cond.results.at(0))));
        parallel_assign(body.params, cond.params);
        block_body(body);
        parallel_assign(cond.params, body.results);
        --indent_;
        line("}");
        parallel_assign(in.dsts, cond.params);
        --indent_;
        line("}");
        return;
      }
    }
    throw Error(ErrorKind::Internal, fmt::format("kernel codegen: unknown opcode {} in {}", int(in.op), f_.name));
  }

  // A For whose iterations run THORN_B at a time, as the lanes of the
  // block form (FunctionEmitOptions::lane_loops): the counter is a lane
  // array, the spare lanes of the last block repeat its last iteration
  // (which the analysis allows: iterations are independent, and the same
  // one twice stores the same values to the same places).
  void lane_loop(const Instr& in, const std::vector<char>& vary) {
    const Block& body = in.blocks.at(0);
    std::string n = fmt::format("n{}", tmp_++), i = fmt::format("it{}", tmp_++);
    line("{  // lane loop");
    ++indent_;
    line(fmt::format("const i64 {} = {};", n, reg(in.a)));
    varying_ = &vary;
    // The loop's registers, lane arrays or scalars, shadowing the
    // function's scalar declarations of the same names.
    declare_registers(body, false);
    line(fmt::format("for (i64 {0} = 0; {0} < {1}; {0} += THORN_B) {{", i, n));
    ++indent_;
    if (loop_depth_ == 0) poll_cancel();
    ++loop_depth_;
    lanes_line(true, fmt::format("{0} = {1} + l < {2} ? {1} + l : {2} - 1;", reg(body.params.at(0)), i, n));
    block_body(body);
    --loop_depth_;
    --indent_;
    line("}");
    varying_ = nullptr;
    --indent_;
    line("}");
  }

  // A While whose condition varies across the lanes: it runs while any
  // lane's condition holds; a lane whose condition failed keeps its
  // carried values, so that every lane ends with its own element's values.
  // The lanes that are done still compute the condition and the body,
  // which the analysis allows only for straight-line code without effects
  // (native_uniform.hpp); their condition stays false, since it is a pure
  // function of values that no longer change. Condition, body and the
  // select of the carried values are one loop over the lanes, each
  // register a scalar in it: a loop the compiler vectorises whole (one
  // loop per statement, with the lanes' registers in memory, was slower
  // than one element at a time).
  void masked_while(const Instr& in) {
    const Block& cond = in.blocks.at(0);
    const Block& body = in.blocks.at(1);
    std::string any = fmt::format("a{}", tmp_++);
    line("{  // masked while");
    ++indent_;
    parallel_assign(cond.params, in.args);
    line("while (true) {");
    ++indent_;
    poll_cancel();
    line(fmt::format("u8 {} = 0;", any));
    line("for (int l = 0; l < THORN_B; ++l) {");
    ++indent_;
    for (const Block* b : {&cond, &body})
      for (const Instr& x : b->instrs) lane_scalar_.insert(x.dst);
    for (Reg p : body.params) lane_scalar_.insert(p);
    block_body(cond);
    const std::string go = fmt::format("g{}", tmp_++);
    line(fmt::format("const bool {} = {};", go, reg(cond.results.at(0))));
    line(fmt::format("{} |= (u8){};", any, go));
    for (size_t k = 0; k < body.params.size(); ++k)
      line(fmt::format("const {} {} = {};", reg_type(type(body.params[k])), reg_name(body.params[k]), reg(cond.params[k])));
    block_body(body);
    std::vector<std::string> next;
    for (size_t k = 0; k < cond.params.size(); ++k) {
      next.push_back(fmt::format("t{}", tmp_++));
      line(fmt::format("const {} {} = {} ? {} : {};", reg_type(type(cond.params[k])), next.back(), go,
                       reg(body.results.at(k)), reg(cond.params[k])));
    }
    for (size_t k = 0; k < cond.params.size(); ++k) line(fmt::format("{} = {};", reg(cond.params[k]), next[k]));
    lane_scalar_.clear();
    --indent_;
    line("}");
    line(fmt::format("if (!{}) break;", any));
    --indent_;
    line("}");
    parallel_assign(in.dsts, cond.params);
    --indent_;
    line("}");
  }

  std::string unary(const Instr& in) {
    Prim t = type(in.a);
    std::string x = reg(in.a);
    UnOp op = in.unop();
    bool f64 = t == Prim::F64;
    switch (op) {
      case UnOp::Neg:
        if (is_float(t)) return "-" + x;
        return fmt::format("({})(0u - ({}){})", reg_type(t), wide(t), x);
      case UnOp::Not: return "!" + x;
      case UnOp::Complement: return fmt::format("({})(~{})", reg_type(t), x);
      case UnOp::Abs:
        if (is_float(t)) return fmt::format("{}({})", f64 ? "fabs" : "fabsf", x);
        if (is_unsigned_int(t)) return x;
        return fmt::format("({0})({1} < 0 ? ({2})0 - ({2}){1} : ({2}){1})", reg_type(t), x, wide(t));
      case UnOp::Signum:
        if (is_float(t)) return fmt::format("{}({})", f64 ? "thorn_fsignum64" : "thorn_fsignum32", x);
        if (is_unsigned_int(t)) return fmt::format("({})({} > 0)", reg_type(t), x);
        return fmt::format("({0})(({1} > 0) - ({1} < 0))", reg_type(t), x);
      case UnOp::IsNan: return fmt::format("({0} != {0})", x);
      case UnOp::IsInf: return fmt::format("{}({})", f64 ? "thorn_isinf64" : "thorn_isinf32", x);
      case UnOp::Popc:
        if (bit_width(t) == 64) return fmt::format("(i32)__popcll((u64){})", x);
        return fmt::format("(i32)__popc((u32)({}){})", unsigned_type(t), x);
      case UnOp::Clz:
        if (bit_width(t) == 64) return fmt::format("(i32)__clzll((i64){})", x);
        return fmt::format("(i32)(__clz((i32)(u32)({}){}) - {})", unsigned_type(t), x, 32 - bit_width(t));
      case UnOp::Ctz:
        if (bit_width(t) == 64) return fmt::format("thorn_ctz64((u64){})", x);
        return fmt::format("thorn_ctz32((u32)({}){}, {})", unsigned_type(t), x, bit_width(t));
      case UnOp::ToBits:
        if (t == Prim::F16) return fmt::format("(u16)thorn_f2h({})", x);
        if (t == Prim::F32) return fmt::format("(u32)__float_as_uint({})", x);
        return fmt::format("(u64)__double_as_longlong({})", x);
      case UnOp::FromBits:
        if (in.type == Prim::F16) return fmt::format("thorn_h2f((thorn_half){})", x);
        if (in.type == Prim::F32) return fmt::format("__uint_as_float((u32){})", x);
        return fmt::format("__longlong_as_double((i64){})", x);
      default: break;
    }
    const FloatFn* fn = float_fn(op);
    if (!fn || !is_float(t))
      throw Error(ErrorKind::Internal, fmt::format("kernel codegen: unary {} on {} in {}",
                                                   kir::unop_name(op), prim_name(t), f_.name));
    return round_to(t, fmt::format("{}({})", f64 ? fn->f64 : fn->f32, x));
  }

  std::string binary(const Instr& in) {
    Prim t = in.type;
    std::string a = reg(in.a), b = reg(in.b);
    std::string_view T = reg_type(t), W = wide(t), U = unsigned_type(t);
    bool f64 = t == Prim::F64;
    auto arith = [&](const char* op) {
      if (is_float(t)) return round_to(t, fmt::format("{} {} {}", a, op, b));
      return fmt::format("({})(({}){} {} ({}){})", T, W, a, op, W, b);
    };
    // Shift amounts are read unsigned; shifting by the width or more gives 0
    // (or the sign, for an arithmetic right shift), as the hardware does.
    std::string amount = fmt::format("({})({}){}", W, U, b);
    if (host()) {
      // Shifts as the host executor computes them: on 64 bits, negative
      // amounts shifting the other way (host_semantics.hpp).
      switch (in.binop()) {
        case BinOp::Shl: return fmt::format("thorn_hshl<{}>({}, {})", T, a, b);
        case BinOp::Shr: return fmt::format("thorn_hashr<{}>({}, {})", T, a, b);
        case BinOp::LShr: return fmt::format("thorn_hlshr<{}>({}, {})", T, a, b);
        default: break;
      }
    }
    switch (in.binop()) {
      case BinOp::Add: return arith("+");
      case BinOp::Sub: return arith("-");
      case BinOp::Mul: return arith("*");
      case BinOp::Div:
        if (is_float(t)) return round_to(t, fmt::format("{} / {}", a, b));
        return fmt::format("{}({}, {})", is_signed_int(t) ? "thorn_sdiv" : "thorn_udiv", a, b);
      case BinOp::Mod:
        // The host executor's `%` on floats is C's fmod (host_semantics.hpp).
        if (is_float(t) && host()) return round_to(t, fmt::format("{}({}, {})", f64 ? "fmod" : "fmodf", a, b));
        if (is_float(t)) return round_to(t, fmt::format("{}({}, {})", f64 ? "thorn_fmod64" : "thorn_fmod32", a, b));
        return fmt::format("{}({}, {})", is_signed_int(t) ? "thorn_smod" : "thorn_umod", a, b);
      case BinOp::Quot:
        if (is_float(t)) return round_to(t, fmt::format("{}({} / {})", f64 ? "trunc" : "truncf", a, b));
        return fmt::format("{}({}, {})", is_signed_int(t) ? "thorn_squot" : "thorn_udiv", a, b);
      case BinOp::Rem:
        if (is_float(t)) return round_to(t, fmt::format("{}({}, {})", f64 ? "fmod" : "fmodf", a, b));
        return fmt::format("{}({}, {})", is_signed_int(t) ? "thorn_srem" : "thorn_umod", a, b);
      case BinOp::Pow:
        if (is_float(t)) return round_to(t, fmt::format("{}({}, {})", f64 ? "pow" : "powf", a, b));
        if (host()) return fmt::format("thorn_hpow<{}>({}, {})", T, a, b);
        return fmt::format("({})thorn_upow<{}>(({})({}){}, ({})({}){})", T, W, W, U, a, W, U, b);
      case BinOp::And: return fmt::format("({})({} & {})", T, a, b);
      case BinOp::Or: return fmt::format("({})({} | {})", T, a, b);
      case BinOp::Xor: return fmt::format("({})({} ^ {})", T, a, b);
      case BinOp::Shl:
        return fmt::format("({0} >= {1} ? ({2})0 : ({2})(({3}){4} << {0}))", amount, bit_width(t), T, W, a);
      case BinOp::Shr:
        if (is_signed_int(t))
          return fmt::format("({0} >= {1} ? ({2})({3} < 0 ? -1 : 0) : ({2})({3} >> {0}))", amount,
                             bit_width(t), T, a);
        [[fallthrough]];
      case BinOp::LShr:
        return fmt::format("({0} >= {1} ? ({2})0 : ({2})(({3})(({4}){5}) >> {0}))", amount, bit_width(t), T,
                           W, U, a);
      case BinOp::Min:
        if (is_float(t)) return fmt::format("{}({}, {})", f64 ? "fmin" : "fminf", a, b);
        return fmt::format("({0} < {1} ? {0} : {1})", a, b);
      case BinOp::Max:
        if (is_float(t)) return fmt::format("{}({}, {})", f64 ? "fmax" : "fmaxf", a, b);
        return fmt::format("({0} < {1} ? {1} : {0})", a, b);
      case BinOp::Atan2: return round_to(t, fmt::format("{}({}, {})", f64 ? "atan2" : "atan2f", a, b));
      case BinOp::Hypot: return round_to(t, fmt::format("{}({}, {})", f64 ? "hypot" : "hypotf", a, b));
      case BinOp::NextAfter: return fmt::format("{}({}, {})", f64 ? "nextafter" : "nextafterf", a, b);
      // The exponent is an integer held in a's type, clamped (host_kernels_binary.cpp).
      case BinOp::LdExp:
        return round_to(t, f64 ? fmt::format("ldexp({}, (int)fmax(fmin({}, 100000.0), -100000.0))", a, b)
                               : fmt::format("ldexpf({}, (int)fmaxf(fminf({}, 100000.0f), -100000.0f))", a, b));
      // Across lanes bitwise, as Select on bools (instr).
      case BinOp::LogAnd: return block() ? fmt::format("(bool)((u8){} & (u8){})", a, b) : fmt::format("({} && {})", a, b);
      case BinOp::LogOr: return block() ? fmt::format("(bool)((u8){} | (u8){})", a, b) : fmt::format("({} || {})", a, b);
    }
    throw Error(ErrorKind::Internal, fmt::format("kernel codegen: unknown binary operator {} in {}", int(in.sub), f_.name));
  }

  std::string compare(const Instr& in) {
    static const char* ops[] = {"==", "!=", "<", "<=", ">", ">="};
    return fmt::format("({} {} {})", reg(in.a), ops[in.sub], reg(in.b));
  }

  std::string convert(Prim from, Prim to, const std::string& x) {
    std::string_view T = reg_type(to);
    if (from == to) return x;
    if (from == Prim::Bool) {
      if (is_float(to)) return fmt::format("({})({} ? 1 : 0)", T, x);
      return fmt::format("({})({} ? 1 : 0)", T, x);
    }
    if (to == Prim::Bool) return fmt::format("({} != 0)", x);
    if (is_float(from)) {
      if (is_float(to)) {
        if (to == Prim::F16) return from == Prim::F64 ? fmt::format("thorn_rhd({})", x) : fmt::format("thorn_rh({})", x);
        return fmt::format("({}){}", T, x);  // widening is exact; f64 -> f32 rounds once
      }
      if (to == Prim::U64) return fmt::format("({})thorn_f2u64((f64){})", T, x);
      if (to == Prim::I64 || to == Prim::U32) return fmt::format("({})thorn_f2i64((f64){})", T, x);
      return fmt::format("({})thorn_f2i32((f64){})", T, x);
    }
    // from an integer
    if (is_float(to)) {
      // Through f64, like the host backends (an i64 rounds to f64 first).
      if (to == Prim::F16) return fmt::format("thorn_rhd((f64){})", x);
      if (to == Prim::F32) return fmt::format("(f32)(f64){}", x);
      return fmt::format("(f64){}", x);
    }
    // Futhark sign-extends only into signed types; into unsigned ones the
    // source's bits are zero-extended (u32.i16 (-32768) is 32768).
    if (is_signed_int(from) && is_unsigned_int(to)) {
      Prim unsigned_from = Prim(int(from) - int(Prim::I8) + int(Prim::U8));
      return fmt::format("({})({}){}", T, reg_type(unsigned_from), x);
    }
    return fmt::format("({}){}", T, x);  // wraps; extends by the source's signedness
  }

  const kir::Function& f_;
  const FunctionEmitOptions& o_;
  std::string out_;
  int indent_ = 0;
  int tmp_ = 0;
  int loop_depth_ = 0;  // For loops around the current statement
  std::map<Reg, bool> is_param_;
  const std::vector<char>* varying_ = nullptr;  // the block form's or a lane loop's varying registers
  bool laned_locals_ = false;  // the block form: private arrays [count][lane]
  std::set<Reg> lane_scalar_;  // a masked While's registers: scalars within its loop over the lanes
  std::vector<std::vector<char>> sub_locals_;  // per subroutine: the private arrays it (or a callee) uses
};

}  // namespace

std::string emit_function(const kir::Function& f, const FunctionEmitOptions& opts) {
  return Emitter(f, opts).run();
}

}  // namespace thorn::gpu::cg
