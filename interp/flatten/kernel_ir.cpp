#include "interp/flatten/kernel_ir.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace thorn::kir {

std::string check_message(const std::string& text, const int64_t* index, const int64_t* value2,
                          const int64_t* value3) {
  const std::string hole = "[{}]";
  size_t at = text.find(hole);
  if (at == std::string::npos) {
    // Bare holes (`Range 0..1..<{} is invalid.`): the values, or "n" without them.
    std::string out = text;
    const int64_t* values[] = {index, value2, value3};
    size_t from = 0;
    for (const int64_t* v : values) {
      at = out.find("{}", from);
      if (at == std::string::npos) break;
      std::string x = v ? std::to_string(*v) : std::string("n");
      out = out.substr(0, at) + x + out.substr(at + 2);
      from = at + x.size();
    }
    return out;
  }
  if (index) return text.substr(0, at) + fmt::format("[{}]", *index) + text.substr(at + hole.size());
  size_t end = at + hole.size();
  if (end < text.size() && text[end] == ' ') ++end;
  return text.substr(0, at) + text.substr(end);
}

std::vector<Prim> Function::param_types() const {
  std::vector<Prim> out;
  for (Reg r : body.params) out.push_back(reg_types.at(size_t(r)));
  return out;
}

std::vector<Prim> Function::result_types() const {
  std::vector<Prim> out;
  for (Reg r : body.results) out.push_back(reg_types.at(size_t(r)));
  return out;
}

std::string_view unop_name(UnOp op) {
  static constexpr std::string_view kNames[] = {
      "neg",   "not",   "complement", "abs",   "signum", "sqrt",  "cbrt",  "exp",
      "log",   "log2",  "log10",      "log1p", "sin",    "cos",   "tan",   "asin",
      "acos",  "atan",  "sinh",       "cosh",  "tanh",   "asinh", "acosh", "atanh",
      "floor", "ceil",  "round",      "trunc", "isnan",  "isinf", "popc",  "clz",
      "ctz",   "erf",   "erfc",       "gamma", "lgamma", "to_bits", "from_bits"};
  size_t i = size_t(op);
  return i < std::size(kNames) ? kNames[i] : "?unop";
}

std::string_view binop_name(BinOp op) {
  static constexpr std::string_view kNames[] = {
      "add", "sub", "mul", "div", "mod", "quot", "rem",   "pow",   "and",    "or",    "xor",
      "shl", "shr", "lshr", "min", "max", "atan2", "hypot", "nextafter", "ldexp", "logand", "logor"};
  size_t i = size_t(op);
  return i < std::size(kNames) ? kNames[i] : "?binop";
}

std::string_view cmpop_name(CmpOp op) {
  static constexpr std::string_view kNames[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  size_t i = size_t(op);
  return i < std::size(kNames) ? kNames[i] : "?cmp";
}

// ------------------------------------------------------------------ printing

namespace {

struct Printer {
  const Function& f;
  std::string out;

  std::string reg(Reg r) const { return r == kNoReg ? std::string("_") : fmt::format("r{}", r); }

  std::string typed(Reg r) const {
    if (r < 0 || size_t(r) >= f.reg_types.size()) return fmt::format("{}: ?", reg(r));
    return fmt::format("{}: {}", reg(r), prim_name(f.reg_types[size_t(r)]));
  }

  std::string list(const std::vector<Reg>& rs, bool with_types) const {
    std::string s;
    for (size_t i = 0; i < rs.size(); ++i) {
      if (i) s += ", ";
      s += with_types ? typed(rs[i]) : reg(rs[i]);
    }
    return s;
  }

  void line(int depth, const std::string& text) {
    out.append(size_t(depth) * 2, ' ');
    out += text;
    out += '\n';
  }

  std::string array_name(int idx) const {
    if (idx >= 0 && size_t(idx) < f.free_arrays.size() && !f.free_arrays[size_t(idx)].name.empty())
      return fmt::format("a{}({})", idx, f.free_arrays[size_t(idx)].name);
    return fmt::format("a{}", idx);
  }

  void block_body(const Block& b, int depth) {
    for (const Instr& in : b.instrs) instr(in, depth);
    line(depth, fmt::format("yield ({})", list(b.results, false)));
  }

  void instr(const Instr& in, int depth) {
    std::string lhs = in.dst != kNoReg ? typed(in.dst) + " = " : std::string();
    switch (in.op) {
      case Opcode::Const:
        line(depth, lhs + format_scalar(in.imm));
        break;
      case Opcode::Unary:
        line(depth, fmt::format("{}{} {}", lhs, unop_name(in.unop()), reg(in.a)));
        break;
      case Opcode::Binary:
        line(depth, fmt::format("{}{} {} {}", lhs, binop_name(in.binop()), reg(in.a), reg(in.b)));
        break;
      case Opcode::Compare:
        line(depth, fmt::format("{}{}.{} {} {}", lhs, cmpop_name(in.cmpop()), prim_name(in.type),
                                reg(in.a), reg(in.b)));
        break;
      case Opcode::Convert:
        line(depth, fmt::format("{}{}.{} {}", lhs, prim_name(in.type), prim_name(in.src_type),
                                reg(in.a)));
        break;
      case Opcode::Select:
        line(depth, fmt::format("{}select {} {} {}", lhs, reg(in.a), reg(in.b), reg(in.c)));
        break;
      case Opcode::Read:
        line(depth, fmt::format("{}read {}[{}]", lhs, array_name(in.aux), reg(in.a)));
        break;
      case Opcode::LocalRead:
        line(depth, fmt::format("{}local l{}[{}]", lhs, in.aux, reg(in.a)));
        break;
      case Opcode::LocalWrite:
        line(depth, fmt::format("local l{}[{}] := {}", in.aux, reg(in.a), reg(in.b)));
        break;
      case Opcode::Write:
        line(depth, fmt::format("write {}[{}] := {}", array_name(in.aux), reg(in.a), reg(in.b)));
        break;
      case Opcode::Check: {
        std::string msg = in.aux >= 0 && size_t(in.aux) < f.messages.size()
                              ? f.messages[size_t(in.aux)]
                              : fmt::format("<message {}>", in.aux);
        if (in.b != kNoReg) msg += fmt::format(" (index {})", reg(in.b));
        if (in.c != kNoReg) msg += fmt::format(" (and {})", reg(in.c));
        for (Reg r : in.args) msg += fmt::format(" (and {})", reg(r));
        line(depth, fmt::format("check {} \"{}\"", reg(in.a), msg));
        break;
      }
      case Opcode::Call: {
        std::string name = in.aux >= 0 && size_t(in.aux) < f.subs.size() ? f.subs[size_t(in.aux)].name : "?";
        line(depth, fmt::format("({}) = call s{} {}({})", list(in.dsts, true), in.aux, name, list(in.args, false)));
        break;
      }
      case Opcode::If: {
        line(depth, fmt::format("({}) = if {}", list(in.dsts, true), reg(in.a)));
        for (size_t k = 0; k < in.blocks.size(); ++k) {
          line(depth, k == 0 ? "then:" : "else:");
          block_body(in.blocks[k], depth + 1);
        }
        break;
      }
      case Opcode::For: {
        const Block* body = in.blocks.empty() ? nullptr : &in.blocks[0];
        line(depth, fmt::format("({}) = for {} times, init ({})", list(in.dsts, true), reg(in.a),
                                list(in.args, false)));
        if (body) {
          line(depth, fmt::format("body ({}):", list(body->params, true)));
          block_body(*body, depth + 1);
        }
        break;
      }
      case Opcode::While: {
        line(depth, fmt::format("({}) = while, init ({})", list(in.dsts, true), list(in.args, false)));
        for (size_t k = 0; k < in.blocks.size(); ++k) {
          line(depth, fmt::format("{} ({}):", k == 0 ? "cond" : "body",
                                  list(in.blocks[k].params, true)));
          block_body(in.blocks[k], depth + 1);
        }
        break;
      }
    }
  }
};

}  // namespace

int64_t Function::local_bytes() const {
  int64_t n = 0;
  for (const LocalArray& l : locals) n += l.count * prim_bytes(l.elem);
  return n;
}

std::string to_string(const Function& f) {
  Printer p{f, {}};
  p.out = fmt::format("fn {}({}) -> ({})\n", f.name.empty() ? "<anon>" : f.name,
                      p.list(f.body.params, true), [&] {
                        std::string s;
                        auto ts = f.result_types();
                        for (size_t i = 0; i < ts.size(); ++i)
                          s += fmt::format("{}{}", i ? ", " : "", prim_name(ts[i]));
                        return s;
                      }());
  for (size_t k = 0; k < f.free_arrays.size(); ++k)
    p.line(1, fmt::format("{} a{}: []{} {}", f.free_arrays[k].written ? "out" : "free", k,
                          prim_name(f.free_arrays[k].elem), f.free_arrays[k].name));
  for (size_t k = 0; k < f.locals.size(); ++k)
    p.line(1, fmt::format("local l{}: [{}]{} {}", k, f.locals[k].count, prim_name(f.locals[k].elem),
                          f.locals[k].name));
  for (const Instr& in : f.body.instrs) p.instr(in, 1);
  p.line(1, fmt::format("return ({})", p.list(f.body.results, false)));
  for (size_t k = 0; k < f.subs.size(); ++k) {
    const Subroutine& s = f.subs[k];
    std::string ts;
    for (size_t i = 0; i < s.body.results.size(); ++i) ts += (i ? ", " : "") + p.typed(s.body.results[i]);
    p.line(0, fmt::format("sub s{} {}({}) -> ({})", k, s.name, p.list(s.body.params, true), ts));
    for (const Instr& in : s.body.instrs) p.instr(in, 1);
    p.line(1, fmt::format("return ({})", p.list(s.body.results, false)));
  }
  return p.out;
}

int64_t instruction_count(const Block& b) {
  int64_t n = 0;
  for (const Instr& in : b.instrs) {
    ++n;
    for (const Block& nb : in.blocks) n += instruction_count(nb);
  }
  return n;
}

namespace {

// Whether an instruction of b, of its nested blocks or of a subroutine it
// calls has opcode `a` or `b`.
bool uses_opcode(const Function& f, const Block& blk, Opcode a, Opcode b) {
  for (const Instr& in : blk.instrs) {
    if (in.op == a || in.op == b) return true;
    if (in.op == Opcode::Call && in.aux >= 0 && size_t(in.aux) < f.subs.size() &&
        uses_opcode(f, f.subs[size_t(in.aux)].body, a, b))
      return true;
    for (const Block& nb : in.blocks)
      if (uses_opcode(f, nb, a, b)) return true;
  }
  return false;
}

}  // namespace

bool has_loop(const Function& f, const Block& b) { return uses_opcode(f, b, Opcode::For, Opcode::While); }

bool reads_locals(const Function& f, const Block& b) {
  return uses_opcode(f, b, Opcode::LocalRead, Opcode::LocalRead);
}

bool reads_locals(const Function& f, const Block& b, const std::set<int>& which) {
  for (const Instr& in : b.instrs) {
    if (in.op == Opcode::LocalRead && which.count(int(in.aux))) return true;
    if (in.op == Opcode::Call && in.aux >= 0 && size_t(in.aux) < f.subs.size() &&
        uses_opcode(f, f.subs[size_t(in.aux)].body, Opcode::LocalRead, Opcode::LocalRead))
      return true;
    for (const Block& nb : in.blocks)
      if (reads_locals(f, nb, which)) return true;
  }
  return false;
}

namespace {

constexpr int64_t kWorkCap = int64_t(1) << 40;
constexpr int64_t kUnknownTrips = 16;

struct WorkEstimate {
  const Function& f;
  std::map<Reg, int64_t> constants;  // i64 registers defined by a Const
  std::vector<int64_t> sub_work;     // memo per subroutine (-1: not yet)

  static int64_t sat(int64_t a) { return std::min(a, kWorkCap); }
  static int64_t mul(int64_t a, int64_t b) { return a != 0 && b > kWorkCap / a ? kWorkCap : a * b; }

  void find_constants(const Block& b) {
    for (const Instr& in : b.instrs) {
      if (in.op == Opcode::Const && in.type == Prim::I64) constants[in.dst] = in.imm.as_i64();
      for (const Block& nb : in.blocks) find_constants(nb);
    }
  }
  int64_t block(const Block& b, int depth) {
    int64_t n = 0;
    for (const Instr& in : b.instrs) {
      n = sat(n + 1);
      if (depth > 64) continue;
      switch (in.op) {
        case Opcode::For: {
          auto c = constants.find(in.a);
          int64_t trips = c != constants.end() ? std::max<int64_t>(c->second, 0) : kUnknownTrips;
          n = sat(n + mul(trips, block(in.blocks[0], depth + 1)));
          break;
        }
        case Opcode::While: {
          int64_t body = 0;
          for (const Block& nb : in.blocks) body = sat(body + block(nb, depth + 1));
          n = sat(n + mul(kUnknownTrips, body));
          break;
        }
        case Opcode::If: {
          int64_t most = 0;
          for (const Block& nb : in.blocks) most = std::max(most, block(nb, depth + 1));
          n = sat(n + most);
          break;
        }
        case Opcode::Call:
          if (in.aux >= 0 && size_t(in.aux) < f.subs.size()) {
            int64_t& w = sub_work[size_t(in.aux)];
            if (w < 0) w = block(f.subs[size_t(in.aux)].body, depth + 1);
            n = sat(n + w);
          }
          break;
        default: break;
      }
    }
    return n;
  }
};

}  // namespace

int64_t estimated_work(const Function& f) {
  WorkEstimate w{f, {}, std::vector<int64_t>(f.subs.size(), -1)};
  w.find_constants(f.body);
  for (const Subroutine& s : f.subs) w.find_constants(s.body);
  return w.block(f.body, 0);
}

// ------------------------------------------------------------------ verification

namespace {

// Scoping: a register is visible in the block that defines it and in the
// blocks nested inside it after its definition. `defined` tracks
// definitions ever made (each register defined once); `visible` is the
// current scope, restored when a nested block ends.
struct Verifier {
  const Function& f;
  std::vector<char> defined, visible;
  std::string error;
  size_t current_sub = 0;  // the body being checked: a subroutine's index, or subs.size() for the function's

  bool fail(std::string msg) {
    if (error.empty()) error = std::move(msg);
    return false;
  }

  bool valid_reg(Reg r) const { return r >= 0 && size_t(r) < f.reg_types.size(); }
  Prim type(Reg r) const { return f.reg_types[size_t(r)]; }

  bool use(Reg r, const char* what) {
    if (!valid_reg(r)) return fail(fmt::format("{}: register r{} does not exist", what, r));
    if (!visible[size_t(r)]) return fail(fmt::format("{}: r{} used before its definition", what, r));
    return true;
  }

  bool def(Reg r, const char* what) {
    if (!valid_reg(r)) return fail(fmt::format("{}: register r{} does not exist", what, r));
    if (defined[size_t(r)]) return fail(fmt::format("{}: r{} defined twice", what, r));
    defined[size_t(r)] = visible[size_t(r)] = 1;
    return true;
  }

  bool expect(Reg r, Prim t, const char* what) {
    if (!use(r, what)) return false;
    if (type(r) != t)
      return fail(fmt::format("{}: r{} has type {}, expected {}", what, r, prim_name(type(r)),
                              prim_name(t)));
    return true;
  }

  // Checks a block whose params are defined on entry; its scope ends with it.
  bool block(const Block& b, const std::vector<Prim>& param_types, const char* what) {
    std::vector<char> saved = visible;
    if (b.params.size() != param_types.size())
      return fail(fmt::format("{}: block has {} parameters, expected {}", what, b.params.size(),
                              param_types.size()));
    for (size_t i = 0; i < b.params.size(); ++i) {
      if (!def(b.params[i], what)) return false;
      if (type(b.params[i]) != param_types[i])
        return fail(fmt::format("{}: parameter r{} has type {}, expected {}", what, b.params[i],
                                prim_name(type(b.params[i])), prim_name(param_types[i])));
    }
    for (const Instr& in : b.instrs)
      if (!instr(in)) return false;
    for (Reg r : b.results)
      if (!use(r, what)) return false;
    visible = std::move(saved);
    return true;
  }

  std::vector<Prim> types_of(const std::vector<Reg>& rs) const {
    std::vector<Prim> out;
    for (Reg r : rs) out.push_back(valid_reg(r) ? type(r) : Prim::Bool);
    return out;
  }

  bool results_match(const Block& b, const std::vector<Reg>& dsts, const char* what) {
    if (b.results.size() != dsts.size())
      return fail(fmt::format("{}: block yields {} values, expected {}", what, b.results.size(),
                              dsts.size()));
    for (size_t i = 0; i < dsts.size(); ++i)
      if (valid_reg(b.results[i]) && valid_reg(dsts[i]) && type(b.results[i]) != type(dsts[i]))
        return fail(fmt::format("{}: block result r{} has type {}, expected {}", what,
                                b.results[i], prim_name(type(b.results[i])),
                                prim_name(type(dsts[i]))));
    return true;
  }

  bool unary(const Instr& in) {
    if (!use(in.a, "unary")) return false;
    Prim a = type(in.a), t = in.type;
    UnOp op = in.unop();
    auto bad = [&] {
      return fail(fmt::format("unary {}: bad types {} -> {}", unop_name(op), prim_name(a),
                              prim_name(t)));
    };
    switch (op) {
      case UnOp::Not:
        return a == Prim::Bool && t == Prim::Bool ? true : bad();
      case UnOp::IsNan:
      case UnOp::IsInf:
        return is_float(a) && t == Prim::Bool ? true : bad();
      case UnOp::Popc:
      case UnOp::Clz:
      case UnOp::Ctz:
        return is_integral(a) && t == Prim::I32 ? true : bad();
      case UnOp::ToBits:
        return is_float(a) && is_unsigned_int(t) && prim_bytes(a) == prim_bytes(t) ? true : bad();
      case UnOp::FromBits:
        return is_float(t) && is_unsigned_int(a) && prim_bytes(a) == prim_bytes(t) ? true : bad();
      case UnOp::Neg:
      case UnOp::Abs:
      case UnOp::Signum:
        return a == t && is_numeric(a) ? true : bad();
      case UnOp::Complement:
        return a == t && is_integral(a) ? true : bad();
      default:  // the floating-point functions
        return a == t && is_float(a) ? true : bad();
    }
  }

  bool binary(const Instr& in) {
    if (!expect(in.a, in.type, "binary") || !expect(in.b, in.type, "binary")) return false;
    BinOp op = in.binop();
    Prim t = in.type;
    bool ok = true;
    switch (op) {
      case BinOp::LogAnd:
      case BinOp::LogOr:
        ok = t == Prim::Bool;
        break;
      case BinOp::And:
      case BinOp::Or:
      case BinOp::Xor:
        ok = is_integral(t) || t == Prim::Bool;
        break;
      case BinOp::Shl:
      case BinOp::Shr:
      case BinOp::LShr:
      case BinOp::Quot:
      case BinOp::Rem:
        ok = is_integral(t);
        break;
      case BinOp::Atan2:
      case BinOp::Hypot:
      case BinOp::LdExp:
        ok = is_float(t);
        break;
      case BinOp::NextAfter:
        ok = t == Prim::F32 || t == Prim::F64;
        break;
      default:
        ok = is_numeric(t);
        break;
    }
    if (!ok) return fail(fmt::format("binary {} on {}", binop_name(op), prim_name(t)));
    return true;
  }

  bool instr(const Instr& in) {
    auto dst_type = [&](Prim t, const char* what) {
      if (!def(in.dst, what)) return false;
      if (type(in.dst) != t)
        return fail(fmt::format("{}: destination r{} has type {}, expected {}", what, in.dst,
                                prim_name(type(in.dst)), prim_name(t)));
      return true;
    };
    switch (in.op) {
      case Opcode::Const:
        if (in.imm.type != in.type)
          return fail(fmt::format("const: immediate of type {} for {}", prim_name(in.imm.type),
                                  prim_name(in.type)));
        return dst_type(in.type, "const");
      case Opcode::Unary:
        return unary(in) && dst_type(in.type, "unary");
      case Opcode::Binary:
        return binary(in) && dst_type(in.type, "binary");
      case Opcode::Compare:
        if (!expect(in.a, in.type, "compare") || !expect(in.b, in.type, "compare")) return false;
        return dst_type(Prim::Bool, "compare");
      case Opcode::Convert:
        return expect(in.a, in.src_type, "convert") && dst_type(in.type, "convert");
      case Opcode::Select:
        if (!expect(in.a, Prim::Bool, "select") || !expect(in.b, in.type, "select") ||
            !expect(in.c, in.type, "select"))
          return false;
        return dst_type(in.type, "select");
      case Opcode::Read:
        if (in.aux < 0 || size_t(in.aux) >= f.free_arrays.size())
          return fail(fmt::format("read: free array a{} does not exist", in.aux));
        if (f.free_arrays[size_t(in.aux)].elem != in.type)
          return fail(fmt::format("read: a{} holds {}, instruction says {}", in.aux,
                                  prim_name(f.free_arrays[size_t(in.aux)].elem),
                                  prim_name(in.type)));
        return expect(in.a, Prim::I64, "read") && dst_type(in.type, "read");
      case Opcode::LocalRead:
      case Opcode::LocalWrite: {
        const char* what = in.op == Opcode::LocalRead ? "local read" : "local write";
        if (in.aux < 0 || size_t(in.aux) >= f.locals.size())
          return fail(fmt::format("{}: local array l{} does not exist", what, in.aux));
        if (f.locals[size_t(in.aux)].elem != in.type)
          return fail(fmt::format("{}: l{} holds {}, instruction says {}", what, in.aux,
                                  prim_name(f.locals[size_t(in.aux)].elem), prim_name(in.type)));
        if (!expect(in.a, Prim::I64, what)) return false;
        if (in.op == Opcode::LocalWrite) return expect(in.b, in.type, what);
        return dst_type(in.type, what);
      }
      case Opcode::Write:
        if (in.aux < 0 || size_t(in.aux) >= f.free_arrays.size())
          return fail(fmt::format("write: free array a{} does not exist", in.aux));
        if (!f.free_arrays[size_t(in.aux)].written) return fail(fmt::format("write: a{} is not written", in.aux));
        if (f.free_arrays[size_t(in.aux)].elem != in.type) return fail("write: element type differs");
        return expect(in.a, Prim::I64, "write") && expect(in.b, in.type, "write");
      case Opcode::Check:
        if (in.aux < 0 || size_t(in.aux) >= f.messages.size())
          return fail(fmt::format("check: message {} does not exist", in.aux));
        return expect(in.a, Prim::Bool, "check") && (in.b == kNoReg || expect(in.b, Prim::I64, "check")) &&
               (in.c == kNoReg || expect(in.c, Prim::I64, "check")) &&
               (in.args.empty() || (in.args.size() == 1 && expect(in.args[0], Prim::I64, "check")));
      case Opcode::Call: {
        if (in.aux < 0 || size_t(in.aux) >= current_sub)
          return fail(fmt::format("call: subroutine s{} does not exist or is not called from an earlier one", in.aux));
        const Block& callee = f.subs[size_t(in.aux)].body;
        if (in.args.size() != callee.params.size() || in.dsts.size() != callee.results.size())
          return fail(fmt::format("call s{}: {} arguments and {} results for {} and {}", in.aux, in.args.size(),
                                  in.dsts.size(), callee.params.size(), callee.results.size()));
        for (size_t i = 0; i < in.args.size(); ++i)
          if (!use(in.args[i], "call") || !valid_reg(callee.params[i]) || type(in.args[i]) != type(callee.params[i]))
            return fail(fmt::format("call s{}: argument {} has the wrong type", in.aux, i));
        if (!results_match(callee, in.dsts, "call")) return false;
        for (Reg d : in.dsts)
          if (!def(d, "call")) return false;
        return true;
      }
      case Opcode::If: {
        if (!expect(in.a, Prim::Bool, "if")) return false;
        if (in.blocks.size() != 2) return fail("if: needs exactly two blocks");
        for (const Block& b : in.blocks)
          if (!block(b, {}, "if") || !results_match(b, in.dsts, "if")) return false;
        for (Reg d : in.dsts)
          if (!def(d, "if")) return false;
        return true;
      }
      case Opcode::For: {
        if (!expect(in.a, Prim::I64, "for")) return false;
        if (in.blocks.size() != 1) return fail("for: needs exactly one block");
        if (in.args.size() != in.dsts.size())
          return fail("for: initial values and results differ in number");
        for (Reg r : in.args)
          if (!use(r, "for")) return false;
        std::vector<Prim> params{Prim::I64};
        for (Prim t : types_of(in.args)) params.push_back(t);
        if (!block(in.blocks[0], params, "for body") ||
            !results_match(in.blocks[0], in.dsts, "for body"))
          return false;
        for (size_t i = 0; i < in.dsts.size(); ++i) {
          if (!def(in.dsts[i], "for")) return false;
          if (type(in.dsts[i]) != type(in.args[i])) return fail("for: result and initial types differ");
        }
        return true;
      }
      case Opcode::While: {
        if (in.blocks.size() != 2) return fail("while: needs a condition and a body block");
        if (in.args.size() != in.dsts.size())
          return fail("while: initial values and results differ in number");
        for (Reg r : in.args)
          if (!use(r, "while")) return false;
        std::vector<Prim> carried = types_of(in.args);
        if (!block(in.blocks[0], carried, "while condition")) return false;
        if (in.blocks[0].results.size() != 1 || !valid_reg(in.blocks[0].results[0]) ||
            type(in.blocks[0].results[0]) != Prim::Bool)
          return fail("while: the condition block must yield one bool");
        if (!block(in.blocks[1], carried, "while body") ||
            !results_match(in.blocks[1], in.dsts, "while body"))
          return false;
        for (size_t i = 0; i < in.dsts.size(); ++i) {
          if (!def(in.dsts[i], "while")) return false;
          if (type(in.dsts[i]) != type(in.args[i]))
            return fail("while: result and initial types differ");
        }
        return true;
      }
    }
    return fail("unknown opcode");
  }
};

}  // namespace

std::string verify(const Function& f) {
  Verifier v{f, std::vector<char>(f.reg_types.size(), 0), std::vector<char>(f.reg_types.size(), 0), {}};
  if (!f.message_locs.empty() && f.message_locs.size() != f.messages.size())
    return "message_locs and messages differ in length";
  // Subroutines first, each in a scope of its own: a caller's registers
  // are not visible in it. Registers are still defined once function-wide.
  for (size_t k = 0; k < f.subs.size() && v.error.empty(); ++k) {
    v.current_sub = k;
    std::fill(v.visible.begin(), v.visible.end(), 0);
    std::vector<Prim> params;
    for (Reg r : f.subs[k].body.params) params.push_back(v.valid_reg(r) ? v.type(r) : Prim::Bool);
    if (!v.block(f.subs[k].body, params, "subroutine")) v.error = fmt::format("s{}: {}", k, v.error);
  }
  if (!v.error.empty()) return v.error;
  v.current_sub = f.subs.size();
  std::fill(v.visible.begin(), v.visible.end(), 0);
  std::vector<Prim> params;
  for (Reg r : f.body.params) params.push_back(v.valid_reg(r) ? v.type(r) : Prim::Bool);
  v.block(f.body, params, "function");
  return v.error;
}

}  // namespace thorn::kir
