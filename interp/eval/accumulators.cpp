#include "interp/eval/accumulators.hpp"

#include <fmt/format.h>

#include "interp/core/ad_value.hpp"
#include "interp/eval/value_ops.hpp"

namespace thorn::eval {

namespace {

const char* const kData = "acc_data";
const char* const kOp = "acc_op";

Value make_accumulator(Value dest, const Value* op) {
  std::vector<std::pair<std::string, Value>> fields;
  fields.emplace_back(kData, std::move(dest));
  if (op) fields.emplace_back(kOp, *op);
  return Value::record(std::move(fields));
}

const Value& field_of(const Value& acc, const char* name, const Loc& loc) {
  const Value* v = acc.kind == Value::Kind::Record ? acc.field(name) : nullptr;
  if (!v) throw Error(ErrorKind::Internal, loc, "an accumulator was expected");
  return *v;
}

// Runs `f acc b` for each b of bs, in order, and returns the array.
Value stream(Evaluator& ev, Value dest, const Value* op, const Value& f, const Value& bs, const Loc& loc) {
  if (!bs.is_array()) throw Error(ErrorKind::Internal, loc, "the stream's input is not an array");
  Value acc = make_accumulator(std::move(dest), op);
  int64_t n = bs.arr().shape.empty() ? 0 : bs.arr().shape[0];
  for (int64_t j = 0; j < n; ++j) {
    Value b = index_array(bs.arr(), {IndexValue{false, j, {}, {}, {}}});
    acc = ev.apply2(f, std::move(acc), std::move(b), loc);
  }
  return field_of(acc, kData, loc);
}

Value acc_write(Evaluator& ev, Value acc, const Value& index, const Value& v, const Loc& loc) {
  Value data = field_of(acc, kData, loc);
  const Value* op = acc.field(kOp);
  Value keep_op = op ? *op : Value();
  acc = Value();  // so that `data` may be the storage's only reference
  // Under jvp/vjp an integer index carries a derivative; its value is what indexes.
  if ((index.kind != Value::Kind::Scalar && index.kind != Value::Kind::AD) || !data.is_array())
    throw Error(ErrorKind::Internal, loc, "acc_write takes an accumulator, an index and a value");
  int64_t i = ad_scalar(index).as_i64();
  int64_t n = data.arr().shape.empty() ? 0 : data.arr().shape[0];
  if (i < 0 || i >= n)  // ignored, as scatter ignores them
    return make_accumulator(std::move(data), op ? &keep_op : nullptr);
  std::vector<IndexValue> at{IndexValue{false, i, {}, {}, {}}};
  Value x = v;
  if (op) x = ev.apply2(keep_op, index_array(data.arr(), at), v, loc);
  data = update_array(std::move(data), at, x);
  return make_accumulator(std::move(data), op ? &keep_op : nullptr);
}

}  // namespace

bool is_accumulator_intrinsic(std::string_view name) {
  return name == "scatter_stream" || name == "hist_stream" || name == "acc_write";
}

Value call_accumulator_intrinsic(Evaluator& ev, std::string_view name, std::vector<Value>& args, const Loc& loc) {
  auto arity = [&](size_t n) {
    if (args.size() != n)
      throw Error(ErrorKind::Internal, loc, fmt::format("{} takes {} arguments", name, n));
  };
  if (name == "scatter_stream") {
    arity(3);
    return stream(ev, std::move(args[0]), nullptr, args[1], args[2], loc);
  }
  if (name == "hist_stream") {
    arity(5);  // dest op ne f bs; the neutral element is not needed when run in order
    return stream(ev, std::move(args[0]), &args[1], args[3], args[4], loc);
  }
  arity(3);
  return acc_write(ev, std::move(args[0]), args[1], args[2], loc);
}

}  // namespace thorn::eval
