#include "interp/eval/intrinsics.hpp"

#include <unordered_map>

#include <fmt/format.h>

#include "interp/core/ad_value.hpp"
#include "interp/eval/accumulators.hpp"
#include "interp/eval/ad.hpp"
#include "interp/eval/scalar_ops.hpp"
#include "interp/eval/value_ops.hpp"
#include "interp/exec/dispatch.hpp"

namespace thorn::eval {

TypePtr IntrinsicCall::result_type() const {
  if (!expr || !expr->type) return nullptr;
  return resolve_type(expr->type, ctx.tenv, ctx.env);
}

namespace {

struct SoacEntry {
  exec::SoacKind kind;
  int index_dims = 1;
};

const std::unordered_map<std::string_view, SoacEntry>& soac_table() {
  using K = exec::SoacKind;
  static const std::unordered_map<std::string_view, SoacEntry> table = {
      {"map", {K::Map}},
      {"reduce", {K::Reduce}},
      {"reduce_comm", {K::ReduceComm}},
      {"scan", {K::Scan}},
      {"reduce_by_index", {K::ReduceByIndex, 1}},
      {"reduce_by_index_2d", {K::ReduceByIndex, 2}},
      {"reduce_by_index_3d", {K::ReduceByIndex, 3}},
      {"scatter", {K::Scatter, 1}},
      {"scatter_2d", {K::Scatter, 2}},
      {"scatter_3d", {K::Scatter, 3}},
      {"filter", {K::Filter}},
      {"partition", {K::Partition}},
      {"partition2", {K::Partition2}},
      {"iota", {K::Iota}},
      {"replicate", {K::Replicate}},
      {"transpose", {K::Transpose}},
      {"concat", {K::Concat}},
      {"flatten", {K::Flatten}},
      {"unflatten", {K::Unflatten}},
      {"rotate", {K::Rotate}},
      {"zip", {K::Zip}},
      {"unzip", {K::Unzip}},
  };
  return table;
}

std::optional<Prim> conversion_target(std::string_view name) {
  if (name.rfind("to_", 0) != 0) return std::nullopt;
  return prim_from_name(name.substr(3));
}

Value deep_copy(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Array: return Value::make_array(copy_array(*v.array));
    case Value::Kind::Tuple:
    case Value::Kind::Record:
    case Value::Kind::Sum: {
      std::vector<Value> xs;
      for (const auto& x : *v.elems) xs.push_back(deep_copy(x));
      Value out = v;
      out.elems = std::make_shared<const std::vector<Value>>(std::move(xs));
      return out;
    }
    default: return v;
  }
}

}  // namespace

bool is_intrinsic(std::string_view name) {
  if (soac_table().count(name) || conversion_target(name) || name == "copy") return true;
  if (name == "jvp2" || name == "vjp2" || name == "with_vjp" || name == "jmp2" || name == "mjp2" || is_accumulator_intrinsic(name)) return true;
  Scalar probe = Scalar::i32(1);
  Scalar args[3] = {probe, probe, probe};
  for (int n = 1; n <= 3; ++n)
    if (scalar_function(name, args, n)) return true;
  Scalar f = Scalar::floating(Prim::F64, 1.0);
  Scalar fargs[3] = {f, f, f};
  for (int n = 1; n <= 3; ++n)
    if (scalar_function(name, fargs, n)) return true;
  return false;
}

Value call_intrinsic(IntrinsicCall& call) {
  auto& args = call.args;
  if (auto it = soac_table().find(call.name); it != soac_table().end()) {
    exec::SoacCall soac;
    soac.kind = it->second.kind;
    soac.index_dims = it->second.index_dims;
    // The user's call site when known (the prelude wrapper's otherwise).
    soac.loc = call.ev.user_call_loc.known() ? call.ev.user_call_loc : call.loc;
    soac.args = std::move(args);
    soac.result_type = [&call] { return call.result_type(); };
    return exec::dispatch(soac, call.ev);
  }
  if (auto to = conversion_target(call.name)) {
    if (args.size() == 1 && args[0].kind == Value::Kind::AD) return ad::convert(args[0], *to);
    if (args.size() != 1 || args[0].kind != Value::Kind::Scalar)
      throw Error(ErrorKind::Internal, call.loc, fmt::format("bad arguments to intrinsic {}", call.name));
    return Value(scalar_convert(args[0].scalar, *to));
  }
  if (call.name == "jvp2" || call.name == "vjp2") {
    if (args.size() != 3) throw Error(ErrorKind::Internal, call.loc, fmt::format("{} takes three arguments", call.name));
    Loc at = call.ev.user_call_loc.known() ? call.ev.user_call_loc : call.loc;
    if (call.name == "jvp2") return ad::jvp2(call.ev, args[0], args[1], args[2], at);
    return ad::vjp2(call.ev, args[0], args[1], args[2], at);
  }
  if (call.name == "jmp2" || call.name == "mjp2") {
    if (args.size() != 3) throw Error(ErrorKind::Internal, call.loc, fmt::format("{} takes three arguments", call.name));
    Loc at = call.ev.user_call_loc.known() ? call.ev.user_call_loc : call.loc;
    if (call.name == "jmp2") return ad::jmp2(call.ev, args[0], args[1], args[2], at);
    return ad::mjp2(call.ev, args[0], args[1], args[2], at);
  }
  if (call.name == "with_vjp") {
    if (args.size() != 3) throw Error(ErrorKind::Internal, call.loc, "with_vjp takes three arguments");
    Loc at = call.ev.user_call_loc.known() ? call.ev.user_call_loc : call.loc;
    return ad::with_vjp(call.ev, args[0], args[1], args[2], at);
  }
  if (is_accumulator_intrinsic(call.name)) {
    Loc at = call.ev.user_call_loc.known() ? call.ev.user_call_loc : call.loc;
    return call_accumulator_intrinsic(call.ev, call.name, args, at);
  }
  if (call.name == "copy" || call.name == "manifest") {
    if (args.size() != 1) throw Error(ErrorKind::Internal, call.loc, "copy takes one argument");
    return deep_copy(args[0]);
  }
  if (!args.empty() && args.size() <= 3) {
    Scalar scalars[3];
    bool all_scalars = true;
    bool any_ad = false;
    for (const auto& a : args) any_ad = any_ad || a.kind == Value::Kind::AD;
    if (any_ad) {
      auto r = call.ev.with_loc(call.loc, [&] { return ad::function(call.name, args.data(), int(args.size())); });
      if (r) return *r;
    }
    for (size_t k = 0; k < args.size(); ++k) {
      if (args[k].kind != Value::Kind::Scalar) {
        all_scalars = false;
        break;
      }
      scalars[k] = args[k].scalar;
    }
    if (all_scalars) {
      auto r = call.ev.with_loc(call.loc, [&] { return scalar_function(call.name, scalars, int(args.size())); });
      if (r) return Value(*r);
    }
  }
  throw Error(ErrorKind::Internal, call.loc,
              fmt::format("unknown intrinsic \"{}\" with {} argument(s)", call.name, args.size()));
}

}  // namespace thorn::eval
