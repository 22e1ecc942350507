#pragma once
// The scalar kernel IR: what every lambda body of a flattened nest is
// lowered to, and what both the host executor and the GPU code generator
// consume. It is typed SSA over primitive scalars with structured control
// flow (If, For, While blocks), reads of free arrays, and nothing else: no
// closures, no allocation, no arrays as values.
//
// Registers are numbered densely per Function; every register is defined
// exactly once (block parameters count as definitions).
//
// Subroutines (Function::subs): a user function called from an element is
// lowered once into a Subroutine and its call sites become Call
// instructions, instead of a copy of its body at every site (rodinia/
// myocyte's solver was 80,000 registers inlined). A subroutine's registers
// are numbered in the same space as the rest of the Function (each defined
// once, in the subroutine's body), so inlining one at a call site is a
// copy of its block; its body sees only its own parameters and registers
// (no register of a caller), and shares the Function's free arrays,
// private arrays and messages: an array argument or result travels in
// private storage of the subroutine, which the caller fills before the
// call and copies out of after it. Subroutine k
// calls only subroutines with a smaller index: no recursion, and emitting
// them in index order defines every callee before its callers.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "interp/core/prim.hpp"
#include "interp/util/source.hpp"

namespace thorn::kir {

using Reg = int32_t;
constexpr Reg kNoReg = -1;

enum class UnOp : uint8_t {
  Neg, Not /* bool */, Complement /* ~ on integers */, Abs, Signum,
  Sqrt, Cbrt, Exp, Log, Log2, Log10, Log1p, Sin, Cos, Tan, Asin, Acos, Atan,
  Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Floor, Ceil, Round, Trunc,
  IsNan, IsInf, Popc, Clz, Ctz, Erf, Erfc, Gamma, Lgamma,
  ToBits, FromBits,  // float <-> same-width unsigned integer, bitwise
};

enum class BinOp : uint8_t {
  Add, Sub, Mul,
  Div,   // `/`: integer division rounding toward negative infinity for signed (Futhark), float division
  Mod,   // `%`: modulo with the sign of the divisor (Futhark)
  Quot,  // `//`: truncating division
  Rem,   // `%%`: truncating remainder
  Pow, And, Or, Xor, Shl, Shr /* arithmetic */, LShr /* logical */,
  Min, Max, Atan2, Hypot,
  NextAfter,  // floats: the next representable value from a towards b (f32, f64)
  LdExp,      // floats: a * 2^b, b an integer exponent held in a's type
  LogAnd, LogOr,  // on bool
};

enum class CmpOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

enum class Opcode : uint8_t {
  Const,    // dst = imm
  Unary,    // dst = unop(a)
  Binary,   // dst = binop(a, b)                   (type: operand and result type)
  Compare,  // dst : bool = cmpop(a, b)            (type: operand type)
  Convert,  // dst : type = convert(a)             (src_type: operand type; Futhark's conversions)
  Select,   // dst = a ? b : c
  Read,     // dst = free_arrays[aux][a]           (a: i64 flat element index)
  Check,    // if !a: fail with messages[aux]      (bounds, division by zero, assert);
            //   b, c, args[0] (optional, i64): the values the message reports (check_message)
  If,       // dsts = a ? blocks[0] : blocks[1]    (each block's results)
  For,      // dsts = loop a (i64 trip count) times over blocks[0]
            //   blocks[0].params = [i, carried...]; args = initial carried values;
            //   blocks[0].results = next carried values; dsts = final carried values
  While,    // dsts = while blocks[0](carried) do blocks[1](carried)
            //   blocks[0].params = carried; results = [cond : bool]
            //   blocks[1].params = carried; results = next carried; args = initial
  LocalRead,   // dst = locals[aux][a]              (a: i64 element index)
  LocalWrite,  // locals[aux][a] = b                (no dst: an effect, in program order)
  Write,       // free_arrays[aux][a] = b           (no dst: an effect; the free array is `written`)
  Call,        // dsts = subs[aux](args)             (may fail a Check or write private arrays: an effect)
};

// True for the instructions that have effects besides their destination:
// they are never removed as dead code and never reordered.
inline bool has_effect(Opcode op) {
  return op == Opcode::Check || op == Opcode::If || op == Opcode::For || op == Opcode::While ||
         op == Opcode::LocalWrite || op == Opcode::Write || op == Opcode::Call;
}

// A Check's message with the index it reports: a bounds check's message
// has "[{}]" where Futhark's names the index ("Index [-1] out of bounds for
// array of shape [20000]."). Without the value (the GPU's error flag does not
// carry it) the brackets are left out. Bare "{}" holes (iota's "Range
// 0..1..<{} is invalid.", a slice's "Index [{}:{}] out of bounds ...")
// are the values in order, or "n" without them.
std::string check_message(const std::string& text, const int64_t* index, const int64_t* value2 = nullptr,
                          const int64_t* value3 = nullptr);

// The message of the Check that guards a private array sized by a guessed
// bound (Lowerer::speculative_bound): the planner catches the error it
// raises and plans again with a larger bound, so a user never sees it.
inline constexpr const char* kBoundExceeded =
    "internal: a private array outgrew the bound the planner guessed for it";

struct Block;

struct Instr {
  Opcode op = Opcode::Const;
  Prim type = Prim::I32;      // the result type (Compare: the operand type)
  Prim src_type = Prim::I32;  // Convert: the operand type
  Reg dst = kNoReg;
  Reg a = kNoReg, b = kNoReg, c = kNoReg;
  uint8_t sub = 0;            // the UnOp / BinOp / CmpOp
  int32_t aux = 0;            // Read: free array index; Check: message index; Call: subroutine
  Scalar imm;                 // Const
  std::vector<Reg> dsts;      // If / For / While / Call results
  std::vector<Reg> args;      // For / While initial carried values; Call arguments
  std::vector<Block> blocks;  // If / For / While bodies

  UnOp unop() const { return UnOp(sub); }
  BinOp binop() const { return BinOp(sub); }
  CmpOp cmpop() const { return CmpOp(sub); }
};

struct Block {
  std::vector<Reg> params;
  std::vector<Instr> instrs;
  std::vector<Reg> results;
};

// A free array read by the function: bound at run time to a flat buffer.
// A `written` one is an output the function stores into (Write): a step
// whose element computes a whole row of its result at once.
struct FreeArray {
  Prim elem = Prim::I32;
  std::string name;  // for kernel sources and plan printing
  bool written = false;
};

// An array private to one running instance of the function (one element
// of a step): `count` elements, created when the instance starts, read
// and updated in place with LocalRead / LocalWrite, gone when it ends.
// Arrays a lambda body creates (replicate, iota, scan, an in-place
// update's target) live here; the host executor keeps them per lane, the
// GPU code in each thread's local memory.
struct LocalArray {
  Prim elem = Prim::I32;
  int64_t count = 0;
  std::string name;
};

// A function called from the body (see the top of this file): body.params
// are its parameters, body.results its results.
struct Subroutine {
  std::string name;  // the user function's, for listings
  Block body;
};

// One scalar function: parameters in, results out.
struct Function {
  std::string name;
  std::vector<Prim> reg_types;  // type of every register, indexed by Reg
  Block body;                   // body.params are the function's parameters
  std::vector<FreeArray> free_arrays;
  std::vector<LocalArray> locals;
  std::vector<std::string> messages;  // Check failure messages (with source locations)
  std::vector<Loc> message_locs;      // optional, parallel to messages: where a Check failure points
  std::vector<Subroutine> subs;       // called by Call (aux: the index)

  // Adds a Check message and returns its index (for Instr::aux).
  int add_message(std::string text, Loc loc = {}) {
    messages.push_back(std::move(text));
    message_locs.resize(messages.size() - 1);
    message_locs.push_back(loc);
    return int(messages.size() - 1);
  }

  Reg new_reg(Prim t) { reg_types.push_back(t); return Reg(reg_types.size() - 1); }
  int num_regs() const { return int(reg_types.size()); }
  // Bytes of private storage one instance needs (all locals).
  int64_t local_bytes() const;
  std::vector<Prim> param_types() const;
  std::vector<Prim> result_types() const;
};

// Private storage (Function::locals) per element. Up to kPrivateBytes an
// element's arrays are kept privately by choice (rather than recomputed
// where read), and every kind of step may hold them: a GPU thread's local
// memory, kLanes of them in a host frame. A SegMap or Scatter element may
// need up to kMaxSegMapPrivateBytes (a map over few rows that each sort or
// factor an array of their own): the host runs its tiles narrower, so that a
// frame still holds kLanes * kPrivateBytes; other executors decline it.
constexpr int64_t kPrivateBytes = 64 * 1024;
constexpr int64_t kMaxSegMapPrivateBytes = int64_t(256) * kPrivateBytes;

// Instructions of a block, nested blocks included (not through calls).
int64_t instruction_count(const Block& b);
// Whether b contains a For or While, also inside the subroutines it calls.
bool has_loop(const Function& f, const Block& b);
// Whether b reads a private array (LocalRead), also inside subroutines.
bool reads_locals(const Function& f, const Block& b);
// Whether b reads one of the private arrays `which` (LocalRead of them;
// inside a subroutine, any LocalRead counts).
bool reads_locals(const Function& f, const Block& b, const std::set<int>& which);
// Roughly how many instructions one run of f's body executes: a For whose
// trip count is a constant multiplies its body by it, other loops by 16;
// an If counts its larger branch, a Call its subroutine. Saturates at 2^40.
// The native tier's hotness uses it (a few heavy elements are worth
// compiling on their first run).
int64_t estimated_work(const Function& f);

std::string_view unop_name(UnOp op);
std::string_view binop_name(BinOp op);
std::string_view cmpop_name(CmpOp op);

// Readable listing, used by :plan and in test failure messages.
std::string to_string(const Function& f);

// Structural checks (every register defined once before use, types agree).
// Returns an empty string when valid, else what is wrong.
std::string verify(const Function& f);

}  // namespace thorn::kir
