#pragma once
// A small builder for kernel IR functions: allocates registers, appends
// instructions to the current block, and builds structured control flow
// from callbacks. Used by the flattener's lowering and by tests.
//
//   kir::Function f; f.name = "sq";
//   kir::Builder b(f);
//   Reg x = b.param(Prim::F64);
//   b.ret({b.binary(kir::BinOp::Mul, x, x)});
#include <functional>
#include <string>
#include <vector>

#include "interp/flatten/kernel_ir.hpp"

namespace thorn::kir {

class Builder {
 public:
  explicit Builder(Function& f) : f_(f), cur_(&f.body) {}

  Function& function() { return f_; }
  Prim type(Reg r) const { return f_.reg_types.at(size_t(r)); }

  Reg param(Prim t);  // appends a function parameter
  int free_array(Prim elem, std::string name);
  void ret(std::vector<Reg> results);  // sets the function's results

  Reg constant(const Scalar& s);
  Reg i64(int64_t v) { return constant(Scalar::i64(v)); }
  Reg i32(int32_t v) { return constant(Scalar::i32(v)); }
  Reg boolean(bool v) { return constant(Scalar::boolean(v)); }
  Reg unary(UnOp op, Reg a);              // result type derived from the operator
  Reg unary(UnOp op, Prim result, Reg a);  // explicit result type
  Reg binary(BinOp op, Reg a, Reg b);     // operand type = result type
  Reg compare(CmpOp op, Reg a, Reg b);
  Reg convert(Prim to, Reg a);
  Reg select(Reg cond, Reg if_true, Reg if_false);
  Reg read(int array, Reg index);
  int local_array(Prim elem, int64_t count, std::string name);
  Reg local_read(int local, Reg index);
  void local_write(int local, Reg index, Reg value);
  void write(int array, Reg index, Reg value);  // marks the free array written
  // index (i64, optional): the value a bounds check reports in place of the
  // message's "[{}]" (kir::check_message).
  // The user's call being lowered (the lowering sets it while it inlines a
  // function called from user code): a check raised inside a prelude
  // function is reported there, as the evaluator reports it.
  Loc user_site;
  // index, value2, value3: the i64 values the message's holes report (check_message).
  void check(Reg cond, std::string message, Loc loc = {}, Reg index = kNoReg, Reg value2 = kNoReg,
             Reg value3 = kNoReg);

  using BlockFn = std::function<std::vector<Reg>()>;
  // dsts = cond ? then() : otherwise(); both must yield the same types.
  std::vector<Reg> if_(Reg cond, const BlockFn& then, const BlockFn& otherwise);
  // A counted loop: body(i, carried) -> next carried.
  std::vector<Reg> for_(Reg count, const std::vector<Reg>& init,
                        const std::function<std::vector<Reg>(Reg, const std::vector<Reg>&)>& body);
  // Copies `callee`'s body into the current block with its parameters bound
  // to `args`; callee free array k becomes this function's array
  // array_map[k], its Check messages are appended. Returns its results.
  std::vector<Reg> inline_call(const Function& callee, const std::vector<Reg>& args,
                               const std::vector<int>& array_map);

  // A new subroutine of `params` (Function::subs; its body built by `body`
  // from its parameter registers) and its index. Its body may use only its
  // parameters and what it defines, and call only earlier subroutines.
  int subroutine(std::string name, const std::vector<Prim>& params,
                 const std::function<std::vector<Reg>(const std::vector<Reg>&)>& body);
  // dsts = subs[sub](args) (kir::Opcode::Call).
  std::vector<Reg> call(int sub, const std::vector<Reg>& args);

  // Appends already-built instructions (registers of this function).
  void append(std::vector<Instr> instrs);
  // Runs fn with a fresh block as the current one and returns what it built
  // (the block's results are fn's return value).
  Block capture(const BlockFn& fn);

  // while cond(carried) do body(carried).
  std::vector<Reg> while_(const std::vector<Reg>& init,
                          const std::function<Reg(const std::vector<Reg>&)>& cond,
                          const std::function<std::vector<Reg>(const std::vector<Reg>&)>& body);

 private:
  Reg emit(Instr in);
  // Runs fn with `b` as the current block.
  // Exception-safe: the lowering catches a Fallback from a subroutine it
  // tries to build and goes on building its caller.
  template <class Fn>
  auto in_block(Block& b, Fn&& fn) {
    struct Restore {
      Block*& cur;
      Block* saved;
      ~Restore() { cur = saved; }
    } restore{cur_, cur_};
    cur_ = &b;
    return fn();
  }

  Function& f_;
  Block* cur_;
};

}  // namespace thorn::kir
