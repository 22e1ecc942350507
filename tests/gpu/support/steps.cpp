#include "tests/gpu/support/steps.hpp"

#include <limits>
#include <stdexcept>

#include "interp/flatten/kernel_ir_builder.hpp"

namespace thorn::gpu::test {

using kir::BinOp;
using kir::Builder;
using kir::CmpOp;
using kir::Reg;
using kir::UnOp;

namespace {

// Element prologue: (s, j) parameters and the flat index s*n + j, with n a
// constant baked in the way the flattener does (the GPU backend lifts it).
struct ElementStart {
  Reg s, j, flat;
};

ElementStart element_start(Builder& b, int64_t n) {
  ElementStart e;
  e.s = b.param(Prim::I64);
  e.j = b.param(Prim::I64);
  e.flat = b.binary(BinOp::Add, b.binary(BinOp::Mul, e.s, b.i64(n)), e.j);
  return e;
}

Scalar typed(Prim t, double v) {
  if (t == Prim::Bool) return Scalar::boolean(v != 0);
  if (is_float(t)) return Scalar::floating(t, v);
  if (is_unsigned_int(t)) return Scalar::unsigned_int(t, uint64_t(int64_t(v)));
  return Scalar::signed_int(t, int64_t(v));
}

// A value of type t that is "negative infinity" for max: the type's minimum.
Scalar lowest(Prim t) {
  if (is_float(t)) return Scalar::floating(t, -std::numeric_limits<double>::infinity());
  if (is_unsigned_int(t)) return Scalar::unsigned_int(t, 0);
  if (t == Prim::Bool) return Scalar::boolean(false);
  return Scalar::signed_int(t, int64_t(-1) << (prim_bytes(t) * 8 - 1));
}

plan::Step shaped(int64_t segments, int64_t n) {
  plan::Step st;
  st.segments = segments;
  st.segment_size = n;
  return st;
}

}  // namespace

const char* red_op_name(RedOp op) {
  switch (op) {
    case RedOp::Sum: return "sum";
    case RedOp::Max: return "max";
    case RedOp::Mss: return "mss";
    case RedOp::Mat2: return "mat2";
    case RedOp::Affine: return "affine";
  }
  return "?";
}

int red_op_arity(RedOp op) {
  switch (op) {
    case RedOp::Sum:
    case RedOp::Max: return 1;
    case RedOp::Affine: return 2;
    default: return 4;
  }
}

plan::Step map_axpy(Prim t, int64_t segments, int64_t n) {
  plan::Step st = shaped(segments, n);
  st.kind = plan::StepKind::SegMap;
  st.element.name = "axpy";
  Builder b(st.element);
  int x = b.free_array(t, "x"), y = b.free_array(t, "y");
  ElementStart e = element_start(b, st.segment_size);
  Reg a = b.constant(typed(t, 2));
  b.ret({b.binary(BinOp::Add, b.binary(BinOp::Mul, a, b.read(x, e.flat)), b.read(y, e.flat))});
  st.fused = "map";
  return st;
}

plan::Step map_convert(Prim from, Prim to, int64_t segments, int64_t n) {
  plan::Step st = shaped(segments, n);
  st.kind = plan::StepKind::SegMap;
  st.element.name = "convert";
  Builder b(st.element);
  int x = b.free_array(from, "x");
  ElementStart e = element_start(b, st.segment_size);
  Reg v = b.read(x, e.flat);
  Reg zero = b.constant(typed(from, 0));
  b.ret({b.convert(to, v), b.compare(CmpOp::Eq, v, zero)});
  return st;
}

plan::Step map_private_rows(Prim t, int64_t rows, int64_t row) {
  plan::Step st = shaped(rows, 1);
  st.kind = plan::StepKind::SegMap;
  st.element.name = "private_rows";
  Builder b(st.element);
  int x = b.free_array(t, "x"), out = b.free_array(t, "out");
  int l = b.local_array(t, row, "row");
  Reg s = b.param(Prim::I64);
  b.param(Prim::I64);
  Reg base = b.binary(BinOp::Mul, s, b.i64(row));
  Reg n = b.i64(row);
  b.for_(n, {}, [&](Reg i, const std::vector<Reg>&) {
    b.local_write(l, i, b.read(x, b.binary(BinOp::Add, base, i)));
    return std::vector<Reg>{};
  });
  b.for_(b.i64(row - 1), {}, [&](Reg i, const std::vector<Reg>&) {
    Reg next = b.binary(BinOp::Add, i, b.i64(1));
    Reg prev = b.local_read(l, i), cur = b.local_read(l, next);
    b.local_write(l, next, t == Prim::Bool ? b.binary(BinOp::LogOr, prev, cur) : b.binary(BinOp::Add, prev, cur));
    return std::vector<Reg>{};
  });
  b.for_(n, {}, [&](Reg i, const std::vector<Reg>&) {
    Reg from = b.binary(BinOp::Sub, b.i64(row - 1), i);
    b.write(out, b.binary(BinOp::Add, base, i), b.local_read(l, from));
    return std::vector<Reg>{};
  });
  b.ret({});
  st.fused = "map rows";
  return st;
}

plan::Step segred(Prim t, RedOp op, bool commutative, int num_map_outputs, int64_t segments, int64_t n) {
  plan::Step st = shaped(segments, n);
  st.kind = plan::StepKind::SegRed;
  st.commutative = commutative;
  st.num_map_outputs = num_map_outputs;
  int k = red_op_arity(op);
  {
    Builder b(st.element);
    st.element.name = std::string("elem_") + red_op_name(op);
    int x = b.free_array(t, "x");
    ElementStart e = element_start(b, st.segment_size);
    Reg v = b.read(x, e.flat);
    std::vector<Reg> out;
    if (num_map_outputs >= 1)
      out.push_back(t == Prim::Bool ? b.unary(UnOp::Not, v) : b.binary(BinOp::Add, v, v));
    if (num_map_outputs >= 2)
      out.push_back(t == Prim::Bool ? v : b.binary(BinOp::Add, v, b.constant(typed(t, 1))));
    switch (op) {
      case RedOp::Sum:
      case RedOp::Max: out.push_back(v); break;
      case RedOp::Mss: {
        Reg zero = b.constant(typed(t, 0));
        Reg p = b.binary(BinOp::Max, v, zero);
        out.insert(out.end(), {p, p, p, v});
        break;
      }
      case RedOp::Mat2: {
        // [[x, 1], [1, 0]]-like matrices: non-commuting for distinct x.
        Reg one = b.constant(typed(t, 1));
        Reg zero = b.constant(typed(t, 0));
        out.insert(out.end(), {v, one, b.binary(BinOp::Sub, v, one), zero});
        break;
      }
      case RedOp::Affine: {
        // x -> a*x + b with a = (x & 3) + 1 for integers (or 1 + x/8 for floats), b = x.
        Reg a = is_float(t) ? b.binary(BinOp::Add, b.constant(typed(t, 1)), b.binary(BinOp::Div, v, b.constant(typed(t, 8))))
                            : b.binary(BinOp::Add, b.binary(BinOp::And, v, b.constant(typed(t, 3))), b.constant(typed(t, 1)));
        out.insert(out.end(), {a, v});
        break;
      }
    }
    b.ret(out);
  }
  {
    Builder b(st.op);
    st.op.name = std::string("op_") + red_op_name(op);
    std::vector<Reg> x, y;
    for (int i = 0; i < k; ++i) x.push_back(b.param(t));
    for (int i = 0; i < k; ++i) y.push_back(b.param(t));
    switch (op) {
      case RedOp::Sum:
        b.ret({t == Prim::Bool ? b.binary(BinOp::LogOr, x[0], y[0]) : b.binary(BinOp::Add, x[0], y[0])});
        st.neutral = {typed(t, 0)};
        break;
      case RedOp::Max:
        b.ret({t == Prim::Bool ? b.binary(BinOp::LogAnd, x[0], y[0]) : b.binary(BinOp::Max, x[0], y[0])});
        st.neutral = {t == Prim::Bool ? Scalar::boolean(true) : lowest(t)};
        break;
      case RedOp::Mss: {
        // (mss, mis, mcs, ts)
        Reg mss = b.binary(BinOp::Max, b.binary(BinOp::Max, x[0], y[0]), b.binary(BinOp::Add, x[2], y[1]));
        Reg mis = b.binary(BinOp::Max, x[1], b.binary(BinOp::Add, x[3], y[1]));
        Reg mcs = b.binary(BinOp::Max, y[2], b.binary(BinOp::Add, x[2], y[3]));
        Reg ts = b.binary(BinOp::Add, x[3], y[3]);
        b.ret({mss, mis, mcs, ts});
        st.neutral = {typed(t, 0), typed(t, 0), typed(t, 0), typed(t, 0)};
        break;
      }
      case RedOp::Mat2: {
        // row-major [[a b] [c d]] product x*y
        auto mul = [&](Reg p, Reg q) { return b.binary(BinOp::Mul, p, q); };
        auto add = [&](Reg p, Reg q) { return b.binary(BinOp::Add, p, q); };
        b.ret({add(mul(x[0], y[0]), mul(x[1], y[2])), add(mul(x[0], y[1]), mul(x[1], y[3])),
               add(mul(x[2], y[0]), mul(x[3], y[2])), add(mul(x[2], y[1]), mul(x[3], y[3]))});
        st.neutral = {typed(t, 1), typed(t, 0), typed(t, 0), typed(t, 1)};
        break;
      }
      case RedOp::Affine: {
        // apply x first, then y: (a2*(a1*v + b1) + b2) = (a1*a2, a2*b1 + b2)
        b.ret({b.binary(BinOp::Mul, x[0], y[0]), b.binary(BinOp::Add, b.binary(BinOp::Mul, y[0], x[1]), y[1])});
        st.neutral = {typed(t, 1), typed(t, 0)};
        break;
      }
    }
  }
  return st;
}

plan::Step scatter(Prim t, int k, int64_t segments, int64_t n, int64_t dest_size) {
  plan::Step st = shaped(segments, n);
  st.dest_size = dest_size;
  st.kind = plan::StepKind::Scatter;
  st.element.name = "scatter";
  Builder b(st.element);
  int idx = b.free_array(Prim::I64, "is"), val = b.free_array(t, "vs");
  ElementStart e = element_start(b, st.segment_size);
  Reg v = b.read(val, e.flat);
  std::vector<Reg> out = {b.read(idx, e.flat), v};
  if (k == 2) out.push_back(t == Prim::Bool ? b.unary(UnOp::Not, v) : b.binary(BinOp::Add, v, v));
  b.ret(out);
  return st;
}

}  // namespace thorn::gpu::test
