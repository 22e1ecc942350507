// Kernel IR: the builder, the printer, the verifier, and plan listings.
#include <doctest/doctest.h>

#include "interp/flatten/kernel_ir_builder.hpp"
#include "interp/flatten/plan.hpp"

using namespace thorn;
using kir::BinOp;
using kir::CmpOp;
using kir::Reg;

namespace {

// (s, j) -> xs[s*4+j] * 2 when positive, else 0; plus a counted loop.
kir::Function sample() {
  kir::Function f;
  f.name = "elem";
  kir::Builder b(f);
  Reg s = b.param(Prim::I64), j = b.param(Prim::I64);
  int xs = b.free_array(Prim::I32, "xs");
  Reg idx = b.binary(BinOp::Add, b.binary(BinOp::Mul, s, b.i64(4)), j);
  Reg x = b.read(xs, idx);
  Reg pos = b.compare(CmpOp::Gt, x, b.i32(0));
  auto r = b.if_(pos, [&] { return std::vector<Reg>{b.binary(BinOp::Mul, x, b.i32(2))}; },
                 [&] { return std::vector<Reg>{b.i32(0)}; });
  auto l = b.for_(b.i64(3), {r[0]}, [&](Reg i, const std::vector<Reg>& c) {
    return std::vector<Reg>{b.binary(BinOp::Add, c[0], b.convert(Prim::I32, i))};
  });
  b.ret({l[0]});
  return f;
}

}  // namespace

TEST_CASE("kir: builder output verifies and prints") {
  kir::Function f = sample();
  CHECK(kir::verify(f) == "");
  CHECK(f.param_types() == std::vector<Prim>{Prim::I64, Prim::I64});
  CHECK(f.result_types() == std::vector<Prim>{Prim::I32});
  std::string text = kir::to_string(f);
  CHECK(text.find("fn elem(r0: i64, r1: i64) -> (i32)") != std::string::npos);
  CHECK(text.find("read a0(xs)[") != std::string::npos);
  CHECK(text.find("gt.i32") != std::string::npos);
  CHECK(text.find("for ") != std::string::npos);
  CHECK(text.find("then:") != std::string::npos);
}

TEST_CASE("kir: verify finds use before definition") {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::I32);
  Reg later = f.new_reg(Prim::I32);  // never defined
  b.ret({b.binary(BinOp::Add, x, later)});
  CHECK(kir::verify(f).find("before its definition") != std::string::npos);
}

TEST_CASE("kir: verify finds type mismatches") {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::I32);
  Reg y = b.param(Prim::F64);
  kir::Instr in;
  in.op = kir::Opcode::Binary;
  in.sub = uint8_t(BinOp::Add);
  in.type = Prim::I32;
  in.a = x;
  in.b = y;
  in.dst = f.new_reg(Prim::I32);
  f.body.instrs.push_back(in);
  b.ret({in.dst});
  CHECK(kir::verify(f).find("expected i32") != std::string::npos);
}

TEST_CASE("kir: verify rejects double definition and scope escapes") {
  {
    kir::Function f;
    kir::Builder b(f);
    Reg x = b.param(Prim::I32);
    kir::Instr in;
    in.op = kir::Opcode::Const;
    in.type = Prim::I32;
    in.imm = Scalar::i32(1);
    in.dst = x;  // redefines the parameter
    f.body.instrs.push_back(in);
    b.ret({x});
    CHECK(kir::verify(f).find("defined twice") != std::string::npos);
  }
  {
    kir::Function f;
    kir::Builder b(f);
    Reg c = b.param(Prim::Bool);
    Reg inner = kir::kNoReg;
    b.if_(c, [&] { inner = b.i32(1); return std::vector<Reg>{inner}; },
          [&] { return std::vector<Reg>{b.i32(2)}; });
    b.ret({inner});  // a register of the then-block, not visible outside it
    CHECK(kir::verify(f).find("before its definition") != std::string::npos);
  }
}

TEST_CASE("kir: verify checks reads, checks and loop shapes") {
  kir::Function f;
  kir::Builder b(f);
  Reg i = b.param(Prim::I32);  // reads need an i64 index
  int a = b.free_array(Prim::F32, "a");
  b.ret({b.read(a, i)});
  CHECK(kir::verify(f).find("expected i64") != std::string::npos);

  kir::Function g;
  kir::Builder gb(g);
  Reg n = gb.param(Prim::I64);
  auto r = gb.while_({n}, [&](const std::vector<Reg>& c) { return gb.compare(CmpOp::Gt, c[0], gb.i64(0)); },
                     [&](const std::vector<Reg>& c) {
                       return std::vector<Reg>{gb.binary(BinOp::Sub, c[0], gb.i64(1))};
                     });
  gb.check(gb.compare(CmpOp::Eq, r[0], gb.i64(0)), "loop ends at zero");
  gb.ret(r);
  CHECK(kir::verify(g) == "");
  CHECK(kir::to_string(g).find("loop ends at zero") != std::string::npos);
}

TEST_CASE("kir: unary result types") {
  kir::Function f;
  kir::Builder b(f);
  Reg x = b.param(Prim::F32);
  Reg nan = b.unary(kir::UnOp::IsNan, x);
  Reg bits = b.unary(kir::UnOp::ToBits, x);
  Reg pc = b.unary(kir::UnOp::Popc, bits);
  b.ret({nan, bits, pc});
  CHECK(kir::verify(f) == "");
  CHECK(f.result_types() == std::vector<Prim>{Prim::Bool, Prim::U32, Prim::I32});
  CHECK(kir::unop_name(kir::UnOp::FromBits) == "from_bits");
  CHECK(kir::binop_name(BinOp::LogOr) == "logor");
  CHECK(kir::cmpop_name(CmpOp::Ge) == "ge");
}

TEST_CASE("plan: listing names steps, shapes, buffers, fusion and fallbacks") {
  plan::Plan p;
  p.source = "reduce (+) 0 (map f xs)";
  p.buffers.push_back({Prim::I32, 12, "xs", true});
  p.buffers.push_back({Prim::I32, 3, "sums", false});
  plan::Step s;
  s.kind = plan::StepKind::SegRed;
  s.segments = 3;
  s.segment_size = 4;
  s.element = sample();
  s.reads = {0};
  s.writes = {1};
  s.commutative = true;
  s.neutral = {Scalar::i32(0)};
  s.fused = "map";
  kir::Builder ob(s.op);
  Reg a = ob.param(Prim::I32), x = ob.param(Prim::I32);
  ob.ret({ob.binary(BinOp::Add, a, x)});
  p.steps.push_back(s);
  p.notes.push_back("map fused into the reduction");
  p.results = {1};
  std::string text = plan::to_string(p);
  CHECK(text.find("step 0: SegRed [3][4] -> [3] (commutative)") != std::string::npos);
  CHECK(text.find("b0: [12]i32 xs (input)") != std::string::npos);
  CHECK(text.find("fused: map") != std::string::npos);
  CHECK(text.find("neutral: (0i32)") != std::string::npos);
  CHECK(text.find("operator:") != std::string::npos);
  CHECK(text.find("results: b1(sums)") != std::string::npos);
  CHECK(plan::step_kind_name(plan::StepKind::Scatter) == "Scatter");

  plan::Plan fb;
  fb.source = "map g xss";
  fb.fallback = "the lambda calls a recursive function";
  CHECK(plan::to_string(fb).find("fallback to the reference backend: the lambda calls") !=
        std::string::npos);
}

TEST_CASE("kir: inline_call renames registers, remaps arrays and messages") {
  // callee(x) = check x != 0; read a0[x] + x, inside an if
  kir::Function callee;
  kir::Builder cb(callee);
  Reg x = cb.param(Prim::I64);
  int a = cb.free_array(Prim::I64, "a");
  cb.check(cb.compare(CmpOp::Ne, x, cb.i64(0)), "x is zero");
  auto r = cb.if_(cb.compare(CmpOp::Gt, x, cb.i64(5)), [&] { return std::vector<Reg>{cb.read(a, x)}; },
                  [&] { return std::vector<Reg>{x}; });
  cb.ret({cb.binary(BinOp::Add, r[0], x)});
  REQUIRE(kir::verify(callee) == "");

  kir::Function f;
  kir::Builder b(f);
  Reg y = b.param(Prim::I64);
  b.free_array(Prim::F32, "other");
  int mine = b.free_array(Prim::I64, "mine");
  b.check(b.boolean(true), "first message");
  auto out = b.inline_call(callee, {y}, {mine});
  auto out2 = b.inline_call(callee, {out[0]}, {mine});
  b.ret({out2[0]});
  CHECK(kir::verify(f) == "");
  CHECK(f.messages.size() == 3);
  CHECK(f.messages[1] == "x is zero");
  std::string text = kir::to_string(f);
  CHECK(text.find("read a1(mine)") != std::string::npos);
  CHECK(text.find("a0(other)[") == std::string::npos);
}

TEST_CASE("kir: subroutines verify, print, and are checked for scope, types and order") {
  kir::Function f;
  f.name = "elem";
  kir::Builder b(f);
  Reg x = b.param(Prim::F64);
  // s0: (a, b) -> (a*b, a+b); s1 calls s0 twice.
  int s0 = b.subroutine("mul_add", {Prim::F64, Prim::F64}, [&](const std::vector<Reg>& p) {
    return std::vector<Reg>{b.binary(BinOp::Mul, p[0], p[1]), b.binary(BinOp::Add, p[0], p[1])};
  });
  int s1 = b.subroutine("twice", {Prim::F64}, [&](const std::vector<Reg>& p) {
    auto r = b.call(s0, {p[0], p[0]});
    auto q = b.call(s0, {r[0], r[1]});
    return std::vector<Reg>{q[1]};
  });
  auto y = b.call(s1, {x});
  auto z = b.call(s0, {y[0], x});
  b.ret({z[0]});
  CHECK(kir::verify(f) == "");
  std::string text = kir::to_string(f);
  CHECK(text.find("call s1 twice(") != std::string::npos);
  CHECK(text.find("sub s0 mul_add(") != std::string::npos);

  SUBCASE("a caller's register inside a subroutine") {
    kir::Function g = f;
    g.subs[1].body.instrs[0].args[0] = x;
    CHECK(kir::verify(g).find("used before its definition") != std::string::npos);
  }
  SUBCASE("a call of a later subroutine (recursion is impossible)") {
    kir::Function g = f;
    g.subs[0].body.instrs.push_back(g.subs[1].body.instrs[0]);
    CHECK(kir::verify(g).find("not called from an earlier one") != std::string::npos);
  }
  SUBCASE("wrong arity and types") {
    kir::Function g = f;
    g.body.instrs.back().args.pop_back();
    CHECK(kir::verify(g).find("arguments") != std::string::npos);
    kir::Function h;
    kir::Builder hb(h);
    int s = hb.subroutine("id", {Prim::F64}, [&](const std::vector<Reg>& p) { return p; });
    hb.ret(hb.call(s, {hb.i32(1)}));
    CHECK(kir::verify(h).find("argument 0 has the wrong type") != std::string::npos);
  }
  SUBCASE("inline_call copies the callee's subroutines, callees first") {
    kir::Function g;
    kir::Builder gb(g);
    Reg a = gb.param(Prim::F64);
    int pre = gb.subroutine("pre", {Prim::F64}, [&](const std::vector<Reg>& p) { return p; });
    auto r = gb.inline_call(f, {a}, {});
    gb.ret({gb.call(pre, r)[0]});
    CHECK(kir::verify(g) == "");
    REQUIRE(g.subs.size() == 3);
    CHECK(g.subs[1].name == "mul_add");
    CHECK(g.subs[2].name == "twice");
  }
}
