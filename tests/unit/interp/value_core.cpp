// interp/core/value.cpp: buffers, views, structure-of-arrays building and
// copying, scalar storage.
#include <doctest/doctest.h>

#include <cstdint>

#include "interp/core/value.hpp"
#include "interp/eval/value_ops.hpp"
#include "interp/util/error.hpp"

using namespace thorn;

namespace {
Value i32(int32_t x) { return Value(Scalar::i32(x)); }
Value row(std::vector<int32_t> xs) {
  std::vector<Value> v;
  for (int32_t x : xs) v.push_back(i32(x));
  return array_from_rows(v);
}
}  // namespace

TEST_CASE("buffers are zeroed, 64-byte aligned and never null") {
  Buffer b(Prim::F64, 3);
  CHECK(reinterpret_cast<uintptr_t>(b.host()) % 64 == 0);
  CHECK(b.data<double>()[2] == 0.0);
  Buffer empty(Prim::I32, 0);
  CHECK(empty.host() != nullptr);
  CHECK(empty.bytes() == 0);
  CHECK_THROWS_AS(Buffer(Prim::I32, -1), Error);
}

TEST_CASE("a device-only buffer is downloaded once, on first host access") {
  struct FakeDevice : Buffer::DeviceSide {
    int downloads = 0;
    void download(std::byte* host, size_t bytes) override {
      ++downloads;
      for (size_t k = 0; k < bytes; ++k) host[k] = std::byte(7);
    }
  };
  auto dev = std::make_shared<FakeDevice>();
  Buffer b(Prim::U8, 4);
  b.device = dev;
  b.mark_device_only();
  CHECK(b.data<uint8_t>()[3] == 7);
  CHECK(b.data<uint8_t>()[0] == 7);
  CHECK(dev->downloads == 1);
}

TEST_CASE("scalars round-trip through memory at every type") {
  std::byte mem[8];
  for (Scalar s : {Scalar::signed_int(Prim::I8, -5), Scalar::signed_int(Prim::I16, -300),
                   Scalar::i32(-70000), Scalar::i64(-(int64_t(1) << 40)), Scalar::unsigned_int(Prim::U8, 250),
                   Scalar::unsigned_int(Prim::U64, ~uint64_t(0)), Scalar::floating(Prim::F16, 1.5),
                   Scalar::floating(Prim::F32, 0.1), Scalar::floating(Prim::F64, -2.25), Scalar::boolean(true)}) {
    store_scalar(mem, s);
    CHECK(load_scalar(s.type, mem) == s);
  }
}

TEST_CASE("rows of prim arrays are views; arrays of tuples are stored as tuples of arrays") {
  Value m = array_from_rows({row({1, 2, 3}), row({4, 5, 6})});
  const ArrayValue& a = *m.array;
  CHECK(a.shape == std::vector<int64_t>{2, 3});
  Value r = array_row(a, 1);
  CHECK(r.array->buffer == a.buffer);  // a view, not a copy
  CHECK(r.array->offset == 3);
  CHECK(prim_element(*r.array, 2).i == 6);

  Value t = array_from_rows({Value::tuple({i32(1), Value(Scalar::boolean(true))}),
                             Value::tuple({i32(2), Value(Scalar::boolean(false))})});
  REQUIRE(t.array->elem.kind == ElemShape::Kind::Tuple);
  REQUIRE(t.array->components.size() == 2);
  CHECK(t.array->components[1]->buffer->elem() == Prim::Bool);
  Value second = array_row(*t.array, 1);
  CHECK((*second.elems)[0].scalar.i == 2);
  CHECK((*second.elems)[1].scalar.b == false);

  // Tuples holding arrays: components have the outer shape as prefix.
  Value ta = array_from_rows({Value::tuple({row({1, 2}), i32(3)}), Value::tuple({row({4, 5}), i32(6)})});
  CHECK(ta.array->shape == std::vector<int64_t>{2});
  CHECK(ta.array->components[0]->shape == std::vector<int64_t>{2, 2});
}

TEST_CASE("records are kept in Futhark's field order") {
  Value r = Value::record({{"b", i32(2)}, {"a", i32(1)}, {"10", i32(10)}, {"9", i32(9)}});
  CHECK(*r.names == std::vector<std::string>{"9", "10", "a", "b"});
  REQUIRE(r.field("a"));
  CHECK(r.field("a")->scalar.i == 1);
  CHECK(r.field("zz") == nullptr);
}

TEST_CASE("sum values and functions are boxed in arrays") {
  Value s = array_from_rows({Value::sum("some", {i32(1)}), Value::sum("none", {})});
  CHECK(s.array->elem.kind == ElemShape::Kind::Boxed);
  CHECK(array_row(*s.array, 1).constructor() == "none");
  Value sub = eval::index_array(*s.array, {eval::IndexValue{true, 0, 1, std::nullopt, std::nullopt}});
  CHECK(sub.array->outer() == 1);
  CHECK(array_row(*sub.array, 0).constructor() == "none");
}

TEST_CASE("irregular rows are an error; empty arrays keep their structure") {
  CHECK_THROWS_AS(array_from_rows({row({1, 2}), row({3})}), Error);
  ElemShape tup;
  tup.kind = ElemShape::Kind::Tuple;
  tup.children = {ElemShape{}, ElemShape{}};
  Value e = array_from_rows({}, &tup);
  CHECK(e.array->outer() == 0);
  CHECK(e.array->components.size() == 2);
}

TEST_CASE("copy_array compacts views and shares nothing") {
  Value m = array_from_rows({row({1, 2}), row({3, 4})});
  Value r = array_row(*m.array, 1);
  ArrayPtr c = copy_array(*r.array);
  CHECK(c->offset == 0);
  CHECK(c->buffer != m.array->buffer);
  CHECK(prim_element(*c, 0).i == 3);
  CHECK(eval::storage_unique(*c));
  CHECK_FALSE(eval::storage_unique(*r.array));
}
