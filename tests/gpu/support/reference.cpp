#include "tests/gpu/support/reference.hpp"

#include <cmath>

#include <fmt/format.h>

namespace thorn::gpu::test {

namespace {

// Scalar arithmetic with the kernel IR's semantics: integers wrap, floats
// round to their type after every operation.
Scalar add(const Scalar& a, const Scalar& b) {
  if (a.type == Prim::Bool) return Scalar::boolean(a.b || b.b);
  if (is_float(a.type)) return Scalar::floating(a.type, a.f + b.f);
  if (is_unsigned_int(a.type)) return Scalar::unsigned_int(a.type, a.u + b.u);
  return Scalar::signed_int(a.type, int64_t(uint64_t(a.i) + uint64_t(b.i)));
}
Scalar sub(const Scalar& a, const Scalar& b) {
  if (is_float(a.type)) return Scalar::floating(a.type, a.f - b.f);
  if (is_unsigned_int(a.type)) return Scalar::unsigned_int(a.type, a.u - b.u);
  return Scalar::signed_int(a.type, int64_t(uint64_t(a.i) - uint64_t(b.i)));
}
Scalar mul(const Scalar& a, const Scalar& b) {
  if (is_float(a.type)) return Scalar::floating(a.type, a.f * b.f);
  if (is_unsigned_int(a.type)) return Scalar::unsigned_int(a.type, a.u * b.u);
  return Scalar::signed_int(a.type, int64_t(uint64_t(a.i) * uint64_t(b.i)));
}
bool less(const Scalar& a, const Scalar& b) {
  if (is_float(a.type)) return a.f < b.f;
  if (is_unsigned_int(a.type)) return a.u < b.u;
  return a.i < b.i;
}
Scalar max(const Scalar& a, const Scalar& b) {
  if (a.type == Prim::Bool) return Scalar::boolean(a.b && b.b);
  return less(a, b) ? b : a;
}
Scalar bit_and(const Scalar& a, const Scalar& b) {
  if (is_unsigned_int(a.type)) return Scalar::unsigned_int(a.type, a.u & b.u);
  return Scalar::signed_int(a.type, a.i & b.i);
}
Scalar typed(Prim t, double v) {
  if (t == Prim::Bool) return Scalar::boolean(v != 0);
  if (is_float(t)) return Scalar::floating(t, v);
  if (is_unsigned_int(t)) return Scalar::unsigned_int(t, uint64_t(int64_t(v)));
  return Scalar::signed_int(t, int64_t(v));
}

// The element function's reduced values for input x (steps.cpp's segred).
std::vector<Scalar> lift(RedOp op, const Scalar& x) {
  Prim t = x.type;
  switch (op) {
    case RedOp::Sum:
    case RedOp::Max: return {x};
    case RedOp::Mss: {
      Scalar p = max(x, typed(t, 0));
      return {p, p, p, x};
    }
    case RedOp::Mat2: return {x, typed(t, 1), sub(x, typed(t, 1)), typed(t, 0)};
    case RedOp::Affine: {
      Scalar a = is_float(t) ? add(typed(t, 1), Scalar::floating(t, x.f / 8)) : add(bit_and(x, typed(t, 3)), typed(t, 1));
      return {a, x};
    }
  }
  return {};
}

std::vector<Scalar> neutral(RedOp op, Prim t) {
  switch (op) {
    case RedOp::Sum: return {typed(t, 0)};
    case RedOp::Max: {
      if (t == Prim::Bool) return {Scalar::boolean(true)};
      if (is_float(t)) return {Scalar::floating(t, -INFINITY)};
      if (is_unsigned_int(t)) return {Scalar::unsigned_int(t, 0)};
      return {Scalar::signed_int(t, int64_t(-1) << (prim_bytes(t) * 8 - 1))};
    }
    case RedOp::Mss: return {typed(t, 0), typed(t, 0), typed(t, 0), typed(t, 0)};
    case RedOp::Mat2: return {typed(t, 1), typed(t, 0), typed(t, 0), typed(t, 1)};
    case RedOp::Affine: return {typed(t, 1), typed(t, 0)};
  }
  return {};
}

std::vector<Scalar> combine(RedOp op, const std::vector<Scalar>& x, const std::vector<Scalar>& y) {
  switch (op) {
    case RedOp::Sum: return {add(x[0], y[0])};
    case RedOp::Max: return {max(x[0], y[0])};
    case RedOp::Mss:
      return {max(max(x[0], y[0]), add(x[2], y[1])), max(x[1], add(x[3], y[1])), max(y[2], add(x[2], y[3])),
              add(x[3], y[3])};
    case RedOp::Mat2:
      return {add(mul(x[0], y[0]), mul(x[1], y[2])), add(mul(x[0], y[1]), mul(x[1], y[3])),
              add(mul(x[2], y[0]), mul(x[3], y[2])), add(mul(x[2], y[1]), mul(x[3], y[3]))};
    case RedOp::Affine: return {mul(x[0], y[0]), add(mul(y[0], x[1]), y[1])};
  }
  return {};
}

}  // namespace

uint64_t next(uint64_t& s) {  // splitmix64
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

BufferPtr buffer_of(Prim t, const std::vector<Scalar>& v) {
  auto b = std::make_shared<Buffer>(t, int64_t(v.size()));
  std::byte* p = b->host_mut();
  for (size_t i = 0; i < v.size(); ++i) store_scalar(p + i * size_t(prim_bytes(t)), v[i]);
  return b;
}

plan::BufferDesc desc(Prim t, int64_t count, std::string name, bool input) {
  plan::BufferDesc d;
  d.elem = t;
  d.count = count;
  d.name = std::move(name);
  d.is_input = input;
  return d;
}

Scalar random_value(Prim t, uint64_t& state) {
  uint64_t r = next(state);
  switch (t) {
    case Prim::Bool: return Scalar::boolean((r & 7) != 0);  // mostly true: && and || both informative
    case Prim::F16:
    case Prim::F32:
    case Prim::F64: return Scalar::floating(t, double(int64_t(r % 17) - 8) / 4.0);
    case Prim::U8:
    case Prim::U16:
    case Prim::U32:
    case Prim::U64: return Scalar::unsigned_int(t, r % 251);
    default: return Scalar::signed_int(t, int64_t(r % 201) - 100);
  }
}

Case segred_case(Prim t, RedOp op, bool commutative, int maps, int64_t segments, int64_t n, uint64_t seed) {
  Case c;
  c.name = fmt::format("segred {} {} {} maps={} [{}][{}]", red_op_name(op), prim_name(t),
                       commutative ? "comm" : "noncomm", maps, segments, n);
  const int k = red_op_arity(op);
  plan::Step st = segred(t, op, commutative, maps, segments, n);
  st.reads = {0};
  c.plan.buffers.push_back(desc(t, segments * n, "x", true));
  for (int i = 0; i < maps; ++i) {
    st.writes.push_back(int(c.plan.buffers.size()));
    c.plan.buffers.push_back(desc(t, segments * n, fmt::format("map{}", i), false));
  }
  for (int i = 0; i < k; ++i) {
    st.writes.push_back(int(c.plan.buffers.size()));
    c.plan.buffers.push_back(desc(t, segments, fmt::format("red{}", i), false));
  }
  c.plan.steps.push_back(std::move(st));

  uint64_t state = seed;
  std::vector<Scalar> x(size_t(segments * n));
  for (Scalar& v : x) v = random_value(t, state);
  c.buffers.assign(c.plan.buffers.size(), nullptr);
  c.buffers[0] = buffer_of(t, x);

  std::vector<std::vector<Scalar>> map_out(size_t(maps), std::vector<Scalar>(x.size()));
  std::vector<std::vector<Scalar>> red_out(size_t(k), std::vector<Scalar>(static_cast<size_t>(segments)));
  std::vector<double> tol(size_t(segments), 0.0);
  for (int64_t s = 0; s < segments; ++s) {
    std::vector<Scalar> acc = neutral(op, t);
    double magnitude = 0;
    for (int64_t j = 0; j < n; ++j) {
      const Scalar& v = x[size_t(s * n + j)];
      if (maps >= 1) map_out[0][size_t(s * n + j)] = t == Prim::Bool ? Scalar::boolean(!v.b) : add(v, v);
      if (maps >= 2) map_out[1][size_t(s * n + j)] = t == Prim::Bool ? v : add(v, typed(t, 1));
      acc = combine(op, acc, lift(op, v));
      if (is_float(t)) magnitude += std::fabs(v.f);
    }
    for (int i = 0; i < k; ++i) red_out[size_t(i)][size_t(s)] = acc[size_t(i)];
    // f16 partial sums round differently in another order: allow the
    // classic bound of about log2(n) roundings of the running magnitude.
    if (t == Prim::F16) tol[size_t(s)] = magnitude * std::ldexp(1.0, -10) * (std::log2(double(n) + 1) + 2) + 1e-3;
  }
  c.expected.assign(c.plan.buffers.size(), nullptr);
  c.tolerance.assign(c.plan.buffers.size(), {});
  for (int i = 0; i < maps; ++i) c.expected[size_t(1 + i)] = buffer_of(t, map_out[size_t(i)]);
  for (int i = 0; i < k; ++i) {
    c.expected[size_t(1 + maps + i)] = buffer_of(t, red_out[size_t(i)]);
    if (t == Prim::F16) c.tolerance[size_t(1 + maps + i)] = tol;
  }
  return c;
}

std::vector<Scalar> red_op_lift(RedOp op, const Scalar& x) { return lift(op, x); }
std::vector<Scalar> red_op_neutral(RedOp op, Prim t) { return neutral(op, t); }
std::vector<Scalar> red_op_combine(RedOp op, const std::vector<Scalar>& x, const std::vector<Scalar>& y) {
  return combine(op, x, y);
}

Case segmap_case(Prim t, int64_t segments, int64_t n, uint64_t seed) {
  Case c;
  c.name = fmt::format("map axpy {} [{}][{}]", prim_name(t), segments, n);
  plan::Step st = map_axpy(t, segments, n);
  st.reads = {0, 1};
  st.writes = {2};
  c.plan.buffers = {desc(t, segments * n, "x", true), desc(t, segments * n, "y", true),
                    desc(t, segments * n, "out", false)};
  c.plan.steps.push_back(std::move(st));
  uint64_t state = seed;
  std::vector<Scalar> x(size_t(segments * n)), y(x.size()), out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = random_value(t, state);
    y[i] = random_value(t, state);
    out[i] = add(mul(typed(t, 2), x[i]), y[i]);
  }
  c.buffers = {buffer_of(t, x), buffer_of(t, y), nullptr};
  c.expected = {nullptr, nullptr, buffer_of(t, out)};
  c.tolerance.assign(3, {});
  return c;
}

Case private_rows_case(Prim t, int64_t rows, int64_t row, uint64_t seed) {
  Case c;
  c.name = fmt::format("map private rows {} [{}][{}]", prim_name(t), rows, row);
  plan::Step st = map_private_rows(t, rows, row);
  st.reads = {0, 1};  // out is a written free array, not one of `writes`
  c.plan.buffers = {desc(t, rows * row, "x", true), desc(t, rows * row, "out", false)};
  c.plan.results = {1};
  c.plan.steps.push_back(std::move(st));
  uint64_t state = seed;
  std::vector<Scalar> x(size_t(rows * row)), out(x.size());
  for (Scalar& v : x) v = random_value(t, state);
  for (int64_t s = 0; s < rows; ++s) {
    std::vector<Scalar> l(x.begin() + s * row, x.begin() + (s + 1) * row);
    for (int64_t i = 1; i < row; ++i) l[size_t(i)] = add(l[size_t(i - 1)], l[size_t(i)]);
    for (int64_t i = 0; i < row; ++i) out[size_t(s * row + i)] = l[size_t(row - 1 - i)];
  }
  c.buffers = {buffer_of(t, x), nullptr};
  c.expected = {nullptr, buffer_of(t, out)};
  c.tolerance.assign(2, {});
  return c;
}

Case scatter_case(Prim t, int k, int64_t segments, int64_t n, int64_t dest_size, uint64_t seed) {
  Case c;
  c.name = fmt::format("scatter {} k={} [{}][{}] into [{}][{}]", prim_name(t), k, segments, n, segments, dest_size);
  plan::Step st = scatter(t, k, segments, n, dest_size);
  st.reads = {0, 1};
  c.plan.buffers = {desc(Prim::I64, segments * n, "is", true), desc(t, segments * n, "vs", true)};
  for (int i = 0; i < k; ++i) {
    st.writes.push_back(int(c.plan.buffers.size()));
    c.plan.buffers.push_back(desc(t, segments * dest_size, fmt::format("dest{}", i), true));
  }
  c.plan.steps.push_back(std::move(st));
  uint64_t state = seed;
  // Distinct indices per segment (a permutation prefix) plus out-of-bounds
  // ones, so the result does not depend on which duplicate wins.
  std::vector<Scalar> is(size_t(segments * n)), vs(is.size());
  std::vector<std::vector<Scalar>> dest(size_t(k), std::vector<Scalar>(size_t(segments * dest_size)));
  for (auto& d : dest)
    for (Scalar& v : d) v = random_value(t, state);
  std::vector<std::vector<Scalar>> initial = dest;
  for (int64_t s = 0; s < segments; ++s) {
    std::vector<int64_t> perm(size_t(std::max(dest_size, n)));
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = int64_t(i);
    for (size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[next(state) % i]);
    for (int64_t j = 0; j < n; ++j) {
      uint64_t r = next(state);
      int64_t idx = (r % 8 == 0) ? -1 - int64_t(r % 5) : (r % 8 == 1) ? dest_size + int64_t(r % 3) : perm[size_t(j)];
      Scalar v = random_value(t, state);
      is[size_t(s * n + j)] = Scalar::i64(idx);
      vs[size_t(s * n + j)] = v;
      if (idx >= 0 && idx < dest_size) {
        dest[0][size_t(s * dest_size + idx)] = v;
        if (k == 2) dest[1][size_t(s * dest_size + idx)] = t == Prim::Bool ? Scalar::boolean(!v.b) : add(v, v);
      }
    }
  }
  c.buffers = {buffer_of(Prim::I64, is), buffer_of(t, vs)};
  c.expected = {nullptr, nullptr};
  for (int i = 0; i < k; ++i) {
    c.buffers.push_back(buffer_of(t, initial[size_t(i)]));
    c.expected.push_back(buffer_of(t, dest[size_t(i)]));
  }
  c.tolerance.assign(c.buffers.size(), {});
  return c;
}

std::string compare(const Case& c, const std::vector<BufferPtr>& got) {
  for (size_t b = 0; b < c.expected.size(); ++b) {
    const BufferPtr& want = c.expected[b];
    if (!want) continue;
    if (b >= got.size() || !got[b]) return fmt::format("{}: output buffer {} missing", c.name, b);
    const Buffer& g = *got[b];
    if (g.elem() != want->elem() || g.count() < want->count())
      return fmt::format("{}: output {} is {} x {}, expected {} x {}", c.name, b, g.count(), prim_name(g.elem()),
                         want->count(), prim_name(want->elem()));
    Prim t = want->elem();
    size_t w = size_t(prim_bytes(t));
    const std::byte* gp = g.host();
    const std::byte* wp = want->host();
    for (int64_t i = 0; i < want->count(); ++i) {
      Scalar x = load_scalar(t, gp + size_t(i) * w), y = load_scalar(t, wp + size_t(i) * w);
      bool ok;
      if (is_float(t)) {
        double tol = c.tolerance[b].empty() ? 0.0 : c.tolerance[b][size_t(i)];
        ok = (std::isnan(x.f) && std::isnan(y.f)) || x.f == y.f || std::fabs(x.f - y.f) <= tol;
      } else {
        ok = x == y;
      }
      if (!ok)
        return fmt::format("{}: buffer {} ({}) element {}: got {}, expected {}", c.name, b,
                           c.plan.buffers[b].name, i, format_scalar(x), format_scalar(y));
    }
  }
  return "";
}

}  // namespace thorn::gpu::test
