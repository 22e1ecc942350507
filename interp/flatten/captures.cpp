// Capture sources, signatures and rebinding for the plan cache (captures.hpp).
#include "interp/flatten/captures.hpp"

#include <cstring>

#include "interp/eval/callable.hpp"
#include "interp/eval/env.hpp"
#include "interp/flatten/delayed.hpp"

namespace thorn::flatten {

std::pair<int, bool> CaptureLog::source(int parent, CaptureSource::Step step, const std::string& name, int k) {
  auto key = std::make_tuple(parent, int(step), name, k);
  auto it = dedup.find(key);
  if (it != dedup.end()) return {it->second, false};
  CaptureSource s;
  s.step = step;
  s.parent = parent;
  s.name = name;
  s.k = k;
  sources.push_back(std::move(s));
  int id = int(sources.size() - 1);
  dedup.emplace(key, id);
  return {id, true};
}

namespace {

void num(std::string& s, uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }

bool fail(std::string* why, const char* what) {
  if (why) *why = what;
  return false;
}

// Code identity of a function value (not the values it holds: those are
// sources of their own).
bool function_sig(const Callable& c, std::string& s, std::string* why) {
  s += 'F';
  s += char('0' + int(c.kind));
  switch (c.kind) {
    case Callable::Kind::Closure:
      num(s, uint64_t(reinterpret_cast<uintptr_t>(c.body)));
      num(s, uint64_t(reinterpret_cast<uintptr_t>(c.params)));
      return true;
    case Callable::Kind::Partial:
    case Callable::Kind::RightSection:
      num(s, c.args.size());
      return c.fn && function_sig(*c.fn, s, why);
    case Callable::Kind::Operator:
    case Callable::Kind::Intrinsic:
      s += c.name;
      s += '|';
      num(s, uint64_t(c.arity));
      num(s, c.args.size());
      return true;
    case Callable::Kind::Projection:
      for (const std::string& p : c.path) s += p + ".";
      return true;
    case Callable::Kind::IndexSection:
      for (const eval::IndexValue& ix : c.index_args) {
        if (ix.is_slice) return fail(why, "slice sections");
        num(s, uint64_t(ix.index));
      }
      return true;
  }
  return fail(why, "an unknown kind of function");
}

// Leaves in the depth-first order of Lowerer::view_of; components may have
// more dimensions than the array (arrays of tuples with array components).
bool array_sig(const ArrayValue& a, bool outer_free, std::string& s, SourceLeaves* leaves, std::string* why,
               int64_t copy_delayed_up_to) {
  if (delayed_producer(a)) {
    if (a.count() > copy_delayed_up_to) return fail(why, "a delayed array (its producer is code inside the plan)");
    materialise_leaves(a);
  }
  s += 'a';
  num(s, a.shape.size());
  for (size_t d = outer_free ? 1 : 0; d < a.shape.size(); ++d) num(s, uint64_t(a.shape[d]));
  switch (a.elem.kind) {
    case ElemShape::Kind::Prim:
      if (!a.buffer) return fail(why, "an array without a buffer");
      s += char('A' + int(a.elem.prim));
      num(s, uint64_t(a.offset));
      if (leaves) leaves->arrays.push_back(a.buffer);
      return true;
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record:
      s += a.elem.kind == ElemShape::Kind::Tuple ? 't' : 'r';
      for (const std::string& nm : a.elem.names) s += nm + ",";
      num(s, a.components.size());
      for (const ArrayPtr& c : a.components)
        if (!array_sig(*c, outer_free, s, leaves, why, copy_delayed_up_to)) return false;
      return true;
    case ElemShape::Kind::Boxed: break;
  }
  return fail(why, "arrays of sum types or functions");
}

}  // namespace

bool signature(const Value& v, bool outer_free, std::string& s, SourceLeaves* leaves, std::string* why,
               int64_t copy_delayed_up_to) {
  switch (v.kind) {
    case Value::Kind::Scalar:
      s += 's';
      s += char('A' + int(v.scalar.type));
      if (leaves) leaves->scalars.push_back(v.scalar);
      return true;
    case Value::Kind::Tuple:
    case Value::Kind::Record:
      s += v.kind == Value::Kind::Tuple ? '(' : '{';
      if (v.names)
        for (const std::string& nm : *v.names) s += nm + ",";
      for (const Value& e : *v.elems)
        if (!signature(e, false, s, leaves, why, copy_delayed_up_to)) return false;
      s += ')';
      return true;
    case Value::Kind::Array: return array_sig(v.arr(), outer_free, s, leaves, why, copy_delayed_up_to);
    case Value::Kind::Function: return v.fn && function_sig(*v.fn, s, why);
    case Value::Kind::Sum:
      // The constructor is part of the signature: plans match on it when
      // they are made (lower_match.cpp); the payload's scalars are leaves.
      s += '#' + v.constructor() + '(';
      if (v.elems)
        for (const Value& e : *v.elems)
          if (!signature(e, false, s, leaves, why, copy_delayed_up_to)) return false;
      s += ')';
      return true;
    default: break;
  }
  return fail(why, "values of this kind");
}

bool rebind(const std::vector<CaptureSource>& sources, const std::vector<ReadBinding>& reads,
            const std::vector<std::tuple<int, int, int>>& aliases, const Value& fn, const std::vector<Value>& args,
            std::vector<BufferPtr>& out, int64_t copy_delayed_up_to) {
  std::vector<Value> vals(sources.size());
  std::vector<SourceLeaves> leaves(sources.size());
  std::string sig;
  for (size_t i = 0; i < sources.size(); ++i) {
    const CaptureSource& src = sources[i];
    const Value* parent = src.parent >= 0 ? &vals[size_t(src.parent)] : nullptr;
    const Callable* pc = parent && parent->kind == Value::Kind::Function ? parent->fn.get() : nullptr;
    switch (src.step) {
      case CaptureSource::Step::Fn: vals[i] = fn; break;
      case CaptureSource::Step::Input:
        if (size_t(src.k) >= args.size()) return false;
        vals[i] = args[size_t(src.k)];
        break;
      case CaptureSource::Step::EnvName: {
        if (!pc || pc->kind != Callable::Kind::Closure) return false;
        const eval::Binding* b = eval::lookup_value(pc->env, std::string_view(src.name));
        if (!b || b->lazy || b->consumed) return false;
        vals[i] = b->value;
        break;
      }
      case CaptureSource::Step::Arg:
        if (!pc || size_t(src.k) >= pc->args.size()) return false;
        vals[i] = pc->args[size_t(src.k)];
        break;
      case CaptureSource::Step::InnerFn:
        if (!pc || !pc->fn) return false;
        vals[i] = Value::function(pc->fn);
        break;
    }
    sig.clear();
    if (!signature(vals[i], src.step == CaptureSource::Step::Input, sig, &leaves[i], nullptr, copy_delayed_up_to) ||
        sig != src.sig)
      return false;
  }
  out.assign(reads.size(), nullptr);
  for (size_t f = 0; f < reads.size(); ++f) {
    const ReadBinding& r = reads[f];
    switch (r.kind) {
      case ReadBinding::Kind::Fixed: out[f] = r.fixed; break;
      case ReadBinding::Kind::Output: break;
      case ReadBinding::Kind::SourceArray: {
        const auto& arrays = leaves.at(size_t(r.source)).arrays;
        if (size_t(r.leaf) >= arrays.size()) return false;
        out[f] = arrays[size_t(r.leaf)];
        out[f]->materialise_delayed();  // delayed: now, on this thread; GPU-resident: stays there
        break;
      }
      case ReadBinding::Kind::Param: {
        const auto& scalars = leaves.at(size_t(r.source)).scalars;
        if (size_t(r.leaf) >= scalars.size() || scalars[size_t(r.leaf)].type != r.prim) return false;
        auto b = std::make_shared<Buffer>(r.prim, 1, Buffer::NoInit{});
        store_scalar(b->host_mut(), scalars[size_t(r.leaf)]);
        out[f] = std::move(b);
        break;
      }
    }
  }
  for (const auto& [src, leaf, f] : aliases) {
    const auto& arrays = leaves.at(size_t(src)).arrays;
    if (size_t(leaf) >= arrays.size() || out.at(size_t(f)) != arrays[size_t(leaf)]) return false;
  }
  return true;
}

}  // namespace thorn::flatten
