// Futhark's binary data format: 'b', version 2, rank, a four-character
// type, the dimensions as little-endian u64, then the elements (little
// endian; bool one byte each). See docs/binary-data-format.rst in Futhark.
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "interp/core/value_io.hpp"
#include "interp/util/error.hpp"

static_assert(std::endian::native == std::endian::little,
              "the binary value format is little endian; a big-endian host needs byte swaps here");

namespace thorn {

namespace {

constexpr uint8_t kVersion = 2;

// The four-character type names, right-aligned.
std::string_view type_tag(Prim p) {
  switch (p) {
    case Prim::Bool: return "bool";
    case Prim::I8: return "  i8";
    case Prim::I16: return " i16";
    case Prim::I32: return " i32";
    case Prim::I64: return " i64";
    case Prim::U8: return "  u8";
    case Prim::U16: return " u16";
    case Prim::U32: return " u32";
    case Prim::U64: return " u64";
    case Prim::F16: return " f16";
    case Prim::F32: return " f32";
    case Prim::F64: return " f64";
  }
  return "????";
}

std::optional<Prim> prim_of_tag(std::string_view tag) {
  for (int k = 0; k < kNumPrims; ++k)
    if (type_tag(Prim(k)) == tag) return Prim(k);
  return std::nullopt;
}

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s) out += (c >= 0x20 && c < 0x7f) ? std::string(1, c) : fmt::format("\\x{:02x}", uint8_t(c));
  return out;
}

}  // namespace

Value ValueReader::read_binary(const Type* expected, std::string_view what, ValueType* type_out) {
  size_t start = pos_;
  auto fail = [&](const std::string& message) -> void {
    throw Error(ErrorKind::Input, fmt::format("{}: binary value at byte {}: {}", what, start, message));
  };
  auto need = [&](size_t bytes) {
    if (input_.size() - pos_ < bytes) fail("the input ends in the middle of the value");
  };
  need(7);
  const char* p = input_.data() + pos_;
  uint8_t version = uint8_t(p[1]);
  int rank = int(int8_t(p[2]));
  std::string_view tag(p + 3, 4);
  if (version != kVersion) fail(fmt::format("unsupported format version {} (only {} is known)", version, kVersion));
  if (rank < 0) fail(fmt::format("negative rank {}", rank));
  auto prim = prim_of_tag(tag);
  if (!prim) fail(fmt::format("unknown element type \"{}\"", printable(tag)));
  pos_ += 7;

  ValueType got{*prim, {}};
  need(size_t(rank) * 8);
  int64_t count = 1;
  for (int k = 0; k < rank; ++k) {
    uint64_t d;
    std::memcpy(&d, input_.data() + pos_, 8);
    pos_ += 8;
    if (d > uint64_t(1) << 62) fail(fmt::format("dimension {} is absurdly large", d));
    got.shape.push_back(int64_t(d));
    if (count != 0 && int64_t(d) > (int64_t(1) << 62) / count) fail("the array is absurdly large");
    count *= int64_t(d);
  }

  if (expected && expected->kind != Type::Kind::Param) {
    bool ok = true;
    if (expected->kind == Type::Kind::Prim) {
      ok = rank == 0 && expected->prim == *prim;
    } else {  // Array (the caller checked it is a value-format type)
      ok = rank == int(expected->dims.size()) &&
           (expected->elem->kind == Type::Kind::Param || expected->elem->prim == *prim);
      for (size_t k = 0; ok && k < expected->dims.size(); ++k)
        if (expected->dims[k].kind == Dim::Kind::Constant && expected->dims[k].value != got.shape[k]) ok = false;
    }
    if (!ok) fail(fmt::format("expected {}, got a value of type {}", type_text(*expected), got.str()));
  }

  size_t bytes = size_t(count) * size_t(prim_bytes(*prim));
  need(bytes);
  const std::byte* data = reinterpret_cast<const std::byte*>(input_.data() + pos_);
  pos_ += bytes;
  if (type_out) *type_out = got;

  if (rank == 0) {
    Scalar s = load_scalar(*prim, data);
    if (*prim == Prim::Bool) s = Scalar::boolean(std::to_integer<uint8_t>(data[0]) != 0);
    return s;
  }
  auto buffer = std::make_shared<Buffer>(*prim, count);
  std::byte* out = buffer->host_mut();
  if (bytes) std::memcpy(out, data, bytes);
  if (*prim == Prim::Bool)  // any non-zero byte is true; store the canonical 1
    for (int64_t k = 0; k < count; ++k) out[k] = std::byte(out[k] != std::byte(0) ? 1 : 0);
  return Value::make_array(make_prim_array(buffer, got.shape));
}

void write_binary_value(std::string& out, const Value& v) {
  ValueType type = value_type_of(v);
  out += 'b';
  out += char(kVersion);
  out += char(int8_t(type.shape.size()));
  out += type_tag(type.prim);
  for (int64_t d : type.shape) {
    uint64_t u = uint64_t(d);
    out.append(reinterpret_cast<const char*>(&u), 8);
  }
  if (v.kind == Value::Kind::Scalar) {
    std::byte bytes[8];
    store_scalar(bytes, v.scalar);
    out.append(reinterpret_cast<const char*>(bytes), size_t(prim_bytes(type.prim)));
    return;
  }
  const ArrayValue& a = v.arr();
  size_t elem = size_t(prim_bytes(type.prim));
  const std::byte* data = a.buffer->host() + size_t(a.offset) * elem;
  out.append(reinterpret_cast<const char*>(data), size_t(a.count()) * elem);
}

std::string binary_value(const Value& v) {
  std::string out;
  write_binary_value(out, v);
  return out;
}

}  // namespace thorn
