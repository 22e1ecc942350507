#pragma once
// The host executor's compiled form of a kernel IR function, and the
// batched interpreter that runs it.
//
// A kir::Function is compiled once into flat arrays of instructions, each a
// pointer to a kernel specialised by operation and type (i32 add, f64 mul,
// ...). Execution is batched: every register holds kLanes values, and one
// instruction runs across all active lanes before the next starts, so the
// cost of dispatch is paid once per kLanes elements and the inner loops are
// plain typed loops the C++ compiler vectorises.
//
// Control flow runs on lane subsets ("selection vectors"): an If runs each
// branch on the lanes that take it; loops keep running on the lanes whose
// loop has not finished. Straight-line code on all lanes uses dense loops.
//
// Reads whose index is an affine function of the element's (segment,
// position) parameters are recognised at compile time; on dense tiles they
// become strided copies, or, when contiguous, no copy at all: the register
// points into the input buffer.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "interp/core/prim.hpp"
#include "interp/exec/native/native_abi.hpp"
#include "interp/flatten/kernel_ir.hpp"
#include "interp/util/source.hpp"

namespace thorn::host {

constexpr int kLanes = 256;

// Active lanes: sel == nullptr means lanes 0..n-1; else the n lane indices in sel.
struct Lanes {
  const int32_t* sel = nullptr;
  int n = 0;
};

struct Frame;
struct CInstr;
using Kernel = void (*)(const CInstr&, Frame&, Lanes);

struct CInstr {
  Kernel fn = nullptr;
  int32_t dst = -1, a = -1, b = -1, c = -1;
  int32_t aux = 0;  // Read: free array; Check: message; control: index into Program::controls
  int32_t aux2 = -1;  // Read: index into Program::affine (or -1); Check: a third value's register
};

struct CBlock {
  std::vector<CInstr> instrs;
  std::vector<int32_t> params, results;
};

// If / For / While: blocks are indices into Program::blocks.
struct Control {
  kir::Opcode op = kir::Opcode::If;
  int blocks[2] = {-1, -1};
  std::vector<int32_t> dsts, args;
};

// index = cs * s + cj * j + c0, where s and j are the function's first two
// parameters. `flat`: cs == cj * segment_size (or one segment), so on lanes
// at consecutive flat positions f the index is cj * f + c0 even across
// segment boundaries.
struct Affine {
  int64_t cs = 0, cj = 0, c0 = 0;
  bool flat = false;
};

struct Program {
  std::string name;
  std::vector<CBlock> blocks;  // blocks[0]: the function body
  std::vector<Control> controls;
  std::vector<Prim> reg_types;
  std::vector<int> reg_bytes;
  std::vector<std::pair<int32_t, uint64_t>> consts;  // hoisted constants: register, lane bits
  std::vector<Affine> affine;
  std::vector<Prim> array_types;
  // Private arrays (kir::LocalArray): each lane has its own copy.
  struct Local {
    Prim elem = Prim::I32;
    int64_t count = 0;
  };
  std::vector<Local> locals;
  std::vector<std::string> messages;
  std::vector<Loc> message_locs;
  std::vector<char> param_live;  // per parameter: does any kept instruction read it?

  const std::vector<int32_t>& params() const { return blocks[0].params; }
  const std::vector<int32_t>& results() const { return blocks[0].results; }
  Prim result_type(size_t k) const { return reg_types[size_t(results()[k])]; }
  Prim param_type(size_t k) const { return reg_types[size_t(params()[k])]; }
};

// Compiles f (which must verify).
std::shared_ptr<const Program> compile(const kir::Function& f);
// Compiles the element function of a step over [segments][segment_size]:
// its first two parameters are (segment, position) and reads at affine
// indices are recognised. The program must then run its body on dense,
// consecutive tiles (Tile::consecutive).
std::shared_ptr<const Program> compile_element(const kir::Function& f, int64_t segments,
                                               int64_t segment_size);

// A free array bound to a buffer: its base pointer and element count.
struct ArrayBinding {
  const std::byte* data = nullptr;
  int64_t count = 0;
};

// Where the current tile lies in a step's iteration space; lets affine reads
// compute their addresses. Lanes are consecutive flat positions starting
// at `flat0`; `single_segment` says whether they all share segment `s0`
// (positions j0, j0+1, ...).
struct Tile {
  int64_t flat0 = 0;
  int64_t s0 = 0, j0 = 0;
  bool single_segment = false;
  bool consecutive = false;  // false: lanes are not consecutive (affine reads gather)
  int64_t segment_size = 0;
};

// The native tier's tile entry for a frame's program (interp/exec/native):
// when set, run_element_tile calls it instead of interpreting, and falls
// back to interpreting the tile when it reports a failure.
namespace native {
struct AffineBounds;
}
struct NativeTile {
  native::TileFn fn = nullptr;
  const native::Args* args = nullptr;
  const native::AffineBounds* bounds = nullptr;  // checked before each call (native_bounds.hpp)
};

// The registers of one running instance of a Program (one per thread).
struct Frame {
  // `lanes`: the most lanes a tile run in this frame will use (at most
  // kLanes). A step over fewer elements gets a narrower frame: registers
  // side by side instead of a kLanes-wide array each, so a one-element
  // program of 80,000 registers (rodinia/myocyte's whole solver) touches
  // 640 KB of registers rather than 160 MB, one cache line apiece.
  explicit Frame(std::shared_ptr<const Program> p, int lanes = kLanes);
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;

  std::shared_ptr<const Program> prog;
  int lanes = kLanes;             // lanes of every register and private array
  std::vector<std::byte*> regs;   // current lane array of each register (may alias an input)
  std::vector<std::byte*> owned;  // the frame's own storage for each register
  std::vector<ArrayBinding> arrays;
  // Program::locals, each laid out [element][lane] (lanes side by side, so a
  // tile's lanes touching the same element index touch one run of memory).
  std::vector<std::byte*> locals;
  Tile tile;
  NativeTile native;

  template <class T> T* out(int32_t r) {
    regs[size_t(r)] = owned[size_t(r)];
    return reinterpret_cast<T*>(owned[size_t(r)]);
  }
  template <class T> const T* in(int32_t r) const { return reinterpret_cast<const T*>(regs[size_t(r)]); }
  std::byte* lane_ptr(int32_t r, int lane) { return regs[size_t(r)] + size_t(lane) * size_t(prog->reg_bytes[size_t(r)]); }

 private:
  std::unique_ptr<std::byte[]> storage_;
  std::unique_ptr<std::byte[]> local_storage_;
};

// Runs a block (0: the body) on the given lanes.
void run_block(const Program& p, int block, Frame& fr, Lanes lanes);
inline void run(Frame& fr, Lanes lanes) { run_block(*fr.prog, 0, fr, lanes); }

// Copies lanes of register `src` to register `dst` (same type) for the active lanes.
void copy_lanes(Frame& fr, int32_t dst, int32_t src, Lanes lanes);

// Kernel lookup, used by compile().
Kernel unary_kernel(kir::UnOp op, Prim operand, Prim result);
Kernel binary_kernel(kir::BinOp op, Prim t);
Kernel compare_kernel(kir::CmpOp op, Prim t);
Kernel convert_kernel(Prim from, Prim to);
Kernel select_kernel(Prim t);
Kernel read_kernel(Prim t);
Kernel check_kernel();
Kernel local_read_kernel(Prim t);
Kernel local_write_kernel(Prim t);
Kernel write_kernel(Prim t);
Kernel control_kernel(kir::Opcode op);

// Raw lane bits of a constant in register representation.
uint64_t const_bits(const Scalar& s);
// Lane `lane` of a lane array of type t, as a Scalar, and back.
Scalar read_lane(Prim t, const std::byte* lanes, int lane);
void write_lane(const Scalar& s, std::byte* lanes, int lane);

}  // namespace thorn::host
