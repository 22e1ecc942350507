// Kernel IR simplification (kernel_ir_simplify.hpp): common subexpressions
// and dead code, and what must not be merged.
#include <doctest/doctest.h>

#include "interp/flatten/kernel_ir_builder.hpp"
#include "interp/flatten/kernel_ir_simplify.hpp"

using namespace thorn;
using kir::BinOp;
using kir::CmpOp;
using kir::Reg;
using kir::UnOp;

namespace {

int64_t count_op(const kir::Block& b, kir::Opcode op) {
  int64_t n = 0;
  for (const kir::Instr& in : b.instrs) {
    n += in.op == op;
    for (const kir::Block& inner : in.blocks) n += count_op(inner, op);
  }
  return n;
}

}  // namespace

TEST_CASE("kir simplify: repeated pure expressions are computed once") {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::F64), i = b.param(Prim::I64);
  int xs = b.free_array(Prim::F64, "xs");
  // exp(x * read xs[i]) twice, as two reads of one generator would give.
  auto once = [&] { return b.unary(UnOp::Exp, b.binary(BinOp::Mul, x, b.read(xs, i))); };
  Reg a = once(), c = once();
  b.ret({b.binary(BinOp::Add, a, c)});
  kir::simplify(f);
  CHECK(kir::verify(f) == "");
  CHECK(count_op(f.body, kir::Opcode::Unary) == 1);
  CHECK(count_op(f.body, kir::Opcode::Read) == 1);
  CHECK(f.body.results.size() == 1);
}

TEST_CASE("kir simplify: an outer value is reused inside a branch, not the other way") {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::I32);
  Reg sq = b.binary(BinOp::Mul, x, x);
  Reg pos = b.compare(CmpOp::Gt, x, b.i32(0));
  auto r = b.if_(pos, [&] { return std::vector<Reg>{b.binary(BinOp::Mul, x, x)}; },
                 [&] { return std::vector<Reg>{b.binary(BinOp::Add, x, b.i32(1))}; });
  // Defined only inside the else branch, so computed again here.
  Reg after = b.binary(BinOp::Add, x, b.i32(1));
  b.ret({sq, r[0], after});
  kir::simplify(f);
  CHECK(kir::verify(f) == "");
  // The then branch's x*x is the outer one; x+1 stays in both places.
  CHECK(count_op(f.body, kir::Opcode::Binary) == 3);
}

TEST_CASE("kir simplify: reads of written arrays and private arrays are kept") {
  kir::Function f;
  kir::Builder b(f);
  Reg i = b.param(Prim::I64);
  int out = b.free_array(Prim::I32, "out");
  int l = b.local_array(Prim::I32, 4, "l");
  Reg r1 = b.read(out, i);
  b.write(out, i, b.binary(BinOp::Add, r1, b.i32(1)));
  Reg r2 = b.read(out, i);
  Reg p1 = b.local_read(l, i);
  b.local_write(l, i, b.i32(7));
  Reg p2 = b.local_read(l, i);
  b.ret({r2, p1, p2});
  kir::simplify(f);
  CHECK(kir::verify(f) == "");
  CHECK(count_op(f.body, kir::Opcode::Read) == 2);
  CHECK(count_op(f.body, kir::Opcode::LocalRead) == 2);
}

TEST_CASE("kir simplify: unused pure instructions go, effects stay") {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::I64);
  b.binary(BinOp::Mul, x, b.i64(5));  // unused
  b.check(b.compare(CmpOp::Lt, x, b.i64(10)), "x too large");
  b.ret({x});
  kir::simplify(f);
  CHECK(kir::verify(f) == "");
  CHECK(count_op(f.body, kir::Opcode::Binary) == 0);
  CHECK(count_op(f.body, kir::Opcode::Check) == 1);
  CHECK(count_op(f.body, kir::Opcode::Compare) == 1);
}

TEST_CASE("kir simplify: calls of pure subroutines merge, calls touching private arrays do not") {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::F32);
  int l = b.local_array(Prim::F32, 2, "scratch");
  int pure = b.subroutine("square", {Prim::F32}, [&](const std::vector<Reg>& p) {
    return std::vector<Reg>{b.binary(BinOp::Mul, p[0], p[0])};
  });
  int impure = b.subroutine("stash", {Prim::F32}, [&](const std::vector<Reg>& p) {
    b.local_write(l, b.i64(0), p[0]);
    return std::vector<Reg>{b.local_read(l, b.i64(1))};
  });
  Reg a = b.call(pure, {x})[0], c = b.call(pure, {x})[0];
  Reg d = b.call(impure, {x})[0], e = b.call(impure, {x})[0];
  b.ret({b.binary(BinOp::Add, a, c), d, e});
  kir::simplify(f);
  CHECK(kir::verify(f) == "");
  CHECK(count_op(f.body, kir::Opcode::Call) == 3);
}

namespace {

int64_t count_binop(const kir::Block& b, BinOp op) {
  int64_t n = 0;
  for (const kir::Instr& in : b.instrs) {
    n += in.op == kir::Opcode::Binary && in.binop() == op;
    for (const kir::Block& inner : in.blocks) n += count_binop(inner, op);
  }
  return n;
}

const kir::Instr& only_loop(const kir::Function& f) {
  for (const kir::Instr& in : f.body.instrs)
    if (in.op == kir::Opcode::For) return in;
  FAIL("no loop");
  return f.body.instrs.front();
}

// fn(e) = sum over j < 16 of xs[(e*16 + j) / 16 * 3 + (e*16 + j) % 16]: a
// flattened row read back as (row, column), as a fused producer does.
kir::Function row_reader(int64_t width) {
  kir::Function f;
  kir::Builder b(f);
  Reg e = b.param(Prim::I64);
  int xs = b.free_array(Prim::F64, "xs");
  Reg w = b.i64(width);
  Reg base = b.binary(BinOp::Mul, e, w);
  auto r = b.for_(w, {b.constant(Scalar::floating(Prim::F64, 0))}, [&](Reg j, const std::vector<Reg>& acc) {
    Reg flat = b.binary(BinOp::Add, base, j);
    Reg row = b.binary(BinOp::Quot, flat, w);
    Reg col = b.binary(BinOp::Rem, flat, w);
    Reg at = b.binary(BinOp::Add, b.binary(BinOp::Mul, row, b.i64(3)), col);
    return std::vector<Reg>{b.binary(BinOp::Add, acc[0], b.read(xs, at))};
  });
  b.ret(r);
  return f;
}

}  // namespace

TEST_CASE("kir simplify: a flat index split again by its own width needs no division, and leaves the loop") {
  kir::Function f = row_reader(16);
  kir::simplify(f, /*params_are_indices=*/true);
  CHECK(kir::verify(f) == "");
  CHECK(count_binop(f.body, BinOp::Quot) == 0);
  CHECK(count_binop(f.body, BinOp::Rem) == 0);
  // row * 3 does not depend on j: computed once, before the loop.
  const kir::Instr& loop = only_loop(f);
  CHECK(count_binop(loop.blocks[0], BinOp::Mul) == 0);
  CHECK(count_binop(f.body, BinOp::Mul) == 1);  // e * 3 (e*16/16 is e)
}

TEST_CASE("kir simplify: divisions stay where the ranges do not show the split") {
  // Parameters that are not indices may be negative: (e*16 + j) / 16 is
  // not e for e = -1.
  kir::Function f = row_reader(16);
  kir::simplify(f, /*params_are_indices=*/false);
  CHECK(kir::verify(f) == "");
  CHECK(count_binop(f.body, BinOp::Quot) == 1);
  CHECK(count_binop(f.body, BinOp::Rem) == 1);

  // A division by a register may fail (its Check guards it in place): it stays in the loop.
  kir::Function g;
  kir::Builder b(g);
  Reg n = b.param(Prim::I64), d = b.param(Prim::I64);
  auto r = b.for_(n, {b.i64(0)}, [&](Reg j, const std::vector<Reg>& acc) {
    return std::vector<Reg>{b.binary(BinOp::Add, acc[0], b.binary(BinOp::Add, j, b.binary(BinOp::Quot, n, d)))};
  });
  b.ret(r);
  kir::simplify(g, true);
  CHECK(kir::verify(g) == "");
  CHECK(count_binop(only_loop(g).blocks[0], BinOp::Quot) == 1);
}
