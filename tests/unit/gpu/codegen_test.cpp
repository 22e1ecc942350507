// Generated CUDA text: self-contained, shape-independent, and spelling the
// semantics the kernel IR asks for.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "gpu/codegen/constants.hpp"
#include "gpu/codegen/fingerprint.hpp"
#include "gpu/codegen/ctypes.hpp"
#include "gpu/codegen/kir_to_cuda.hpp"
#include "gpu/codegen/skeleton.hpp"
#include "interp/flatten/kernel_ir_builder.hpp"
#include "tests/gpu/support/steps.hpp"

using namespace thorn;
using namespace thorn::gpu;

namespace {
bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }
}  // namespace

TEST_CASE("literals are exact C spellings") {
  CHECK(cg::literal(Scalar::i32(-5)) == "((i32)-5ll)");
  CHECK(cg::literal(Scalar::i64(std::numeric_limits<int64_t>::min())) == "((i64)(-9223372036854775807ll - 1))");
  CHECK(cg::literal(Scalar::unsigned_int(Prim::U64, ~0ull)) == "((u64)18446744073709551615ull)");
  CHECK(cg::literal(Scalar::boolean(true)) == "true");
  CHECK(cg::literal(Scalar::floating(Prim::F32, 0.1)) == "0.1f");
  CHECK(cg::literal(Scalar::floating(Prim::F64, 2.0)) == "2.0");
  CHECK(cg::literal(Scalar::floating(Prim::F64, -0.0)) == "-0.0");
  CHECK(cg::literal(Scalar::floating(Prim::F32, INFINITY)) == "__uint_as_float(0x7f800000u)");
  CHECK(has(cg::literal(Scalar::floating(Prim::F64, NAN)), "__longlong_as_double(0x7ff8"));
  CHECK(cg::literal(Scalar::floating(Prim::F16, 0.1)) == "0.099975586f");  // the f16 value (as a float, shortest)
}

TEST_CASE("register and memory types") {
  CHECK(cg::reg_type(Prim::F16) == "f16");
  CHECK(cg::mem_type(Prim::F16) == "thorn_half");
  CHECK(cg::mem_type(Prim::Bool) == "u8");
  CHECK(cg::load_expr(Prim::Bool, "p[i]") == "(p[i] != 0)");
  CHECK(cg::store_expr(Prim::F16, "x") == "thorn_f2h(x)");
}

TEST_CASE("kernel sources are self-contained") {
  for (const cg::KernelSource& ks :
       {cg::gen_segmap(test::map_axpy(Prim::F32, 10, 1000), {}),
        cg::gen_segred(test::segred(Prim::I32, test::RedOp::Mss, false, 1, 10, 1000), cg::RedStrategy::Large, true, {}),
        cg::gen_scatter(test::scatter(Prim::F64, 2, 1, 100, 50), {}), cg::gen_transpose(8)}) {
    CHECK_FALSE(has(ks.source, "#include"));
    for (const std::string& e : ks.entries) CHECK(has(ks.source, "extern \"C\" __global__ void __launch_bounds__"));
    CHECK_FALSE(ks.entries.empty());
  }
}

TEST_CASE("sizes are lifted: one kernel text for every shape") {
  // The flattener bakes n into the element function; the text must not change with it.
  std::string a = cg::gen_segmap(test::map_axpy(Prim::F32, 10, 1000), {}).source;
  std::string b = cg::gen_segmap(test::map_axpy(Prim::F32, 3, 77777), {}).source;
  CHECK(a == b);
  CHECK_FALSE(has(a, "77777"));
  CHECK(has(a, "env.kc.v[0]"));
  std::string r1 = cg::gen_segred(test::segred(Prim::I32, test::RedOp::Sum, true, 0, 5, 300), cg::RedStrategy::Small, true, {}).source;
  std::string r2 = cg::gen_segred(test::segred(Prim::I32, test::RedOp::Sum, true, 0, 9, 4000), cg::RedStrategy::Small, true, {}).source;
  CHECK(r1 == r2);
}

TEST_CASE("lifted constants: which, and their bits") {
  CHECK_FALSE(cg::worth_lifting(Scalar::i64(1)));
  CHECK_FALSE(cg::worth_lifting(Scalar::i64(-1)));
  CHECK_FALSE(cg::worth_lifting(Scalar::floating(Prim::F32, 0.0)));
  CHECK_FALSE(cg::worth_lifting(Scalar::boolean(true)));
  CHECK(cg::worth_lifting(Scalar::i64(1000)));
  CHECK(cg::worth_lifting(Scalar::floating(Prim::F64, 2.5)));
  CHECK(cg::worth_lifting(Scalar::floating(Prim::F64, NAN)));
  plan::Step st = test::map_axpy(Prim::F32, 4, 1000);  // constants: n = 1000, a = 2.0f
  cg::LiftedConstants lc = cg::lift_constants(st);
  REQUIRE(lc.values.size() == 2);
  std::vector<uint64_t> bits = cg::constant_bits(lc);
  CHECK(bits[0] == 1000);
  CHECK(bits[1] == 0x40000000u);  // 2.0f
  CHECK(cg::lifted_expr(Prim::F32, 1) == "__uint_as_float((u32)env.kc.v[1])");
}

TEST_CASE("kernel IR operators get Futhark's semantics") {
  kir::Function f;
  kir::Builder b(f);
  kir::Reg x = b.param(Prim::I32), y = b.param(Prim::I32), h = b.param(Prim::F16);
  kir::Reg u = b.convert(Prim::U8, x);
  std::vector<kir::Reg> out = {
      b.binary(kir::BinOp::Div, x, y), b.binary(kir::BinOp::Mod, x, y), b.binary(kir::BinOp::Quot, x, y),
      b.binary(kir::BinOp::Shl, x, y), b.binary(kir::BinOp::Add, x, y), b.binary(kir::BinOp::Div, u, u),
      b.binary(kir::BinOp::Mul, h, h), b.convert(Prim::I64, h)};
  b.ret(out);
  cg::FunctionEmitOptions o;
  o.name = "f";
  std::string s = cg::emit_function(f, o);
  CHECK(has(s, "thorn_sdiv(r0, r1)"));      // rounds toward negative infinity
  CHECK(has(s, "thorn_smod(r0, r1)"));
  CHECK(has(s, "thorn_squot(r0, r1)"));
  CHECK(has(s, ">= 32 ? (i32)0"));          // shifts past the width give 0
  CHECK(has(s, "(i32)((u32)r0 + (u32)r1)"));  // wraps without undefined behaviour
  CHECK(has(s, "thorn_udiv("));
  CHECK(has(s, "thorn_rh(r2 * r2)"));       // f16 rounds after every operation
  CHECK(has(s, "thorn_f2i64((f64)r2)"));    // NaN -> 0, saturating
  CHECK(has(s, "THORN_DEV bool f(const thorn_env& env, i32 r0, i32 r1, f16 r2, "));
}

TEST_CASE("Check instructions report and stop") {
  kir::Function f;
  kir::Builder b(f);
  kir::Reg x = b.param(Prim::I64);
  b.check(b.compare(kir::CmpOp::Lt, x, b.i64(10)), "too big");
  b.ret({x});
  cg::FunctionEmitOptions o;
  o.name = "g";
  o.msg_base = "env.msg_elem";
  std::string s = cg::emit_function(f, o);
  CHECK(has(s, "thorn_fail(env.err, env.msg_elem + 0); return false;"));
}

TEST_CASE("accumulator sizes follow C struct layout") {
  auto bytes = [](std::vector<Prim> types) {
    plan::Step st;
    kir::Builder b(st.op);
    std::vector<kir::Reg> ps;
    for (int rep = 0; rep < 2; ++rep)
      for (Prim t : types) ps.push_back(b.param(t));
    b.ret(std::vector<kir::Reg>(ps.begin(), ps.begin() + long(types.size())));
    return cg::accumulator_bytes(st);
  };
  CHECK(bytes({Prim::I32}) == 4);
  CHECK(bytes({Prim::I8, Prim::I64}) == 16);
  CHECK(bytes({Prim::F16}) == 4);
  CHECK(bytes({Prim::Bool, Prim::Bool}) == 2);
  CHECK(bytes({Prim::F64, Prim::I32}) == 16);
}

TEST_CASE("structural keys: equal exactly when the kernel text is") {
  auto key = [](const plan::Step& s) { return cg::structural_key(s); };
  auto text = [](const plan::Step& s) {
    return cg::gen_segred(s, cg::RedStrategy::Large, true, {}).source;
  };
  plan::Step a = test::segred(Prim::I32, test::RedOp::Mss, false, 1, 10, 1000);
  plan::Step b = test::segred(Prim::I32, test::RedOp::Mss, false, 1, 77, 3333);  // another shape
  plan::Step c = test::segred(Prim::I32, test::RedOp::Sum, false, 1, 10, 1000);  // another operator
  plan::Step d = test::segred(Prim::I64, test::RedOp::Mss, false, 1, 10, 1000);  // another type
  plan::Step e = test::segred(Prim::I32, test::RedOp::Mss, false, 1, 10, 1);     // n = 1 stays a literal
  CHECK(key(a) == key(b));
  CHECK(text(a) == text(b));
  for (const plan::Step* other : {&c, &d, &e}) {
    CHECK(key(a) != key(*other));
    CHECK(text(a) != text(*other));
  }
  plan::Step f = a;
  f.neutral[0] = Scalar::i32(5);  // neutral elements are in the text
  CHECK(key(a) != key(f));
}
