// Calls of user functions as kernel-IR subroutines (kernel_ir.hpp: Call,
// Subroutine) instead of a copy of the body at every call site.
//
// Inlining every call made real elements enormous: rodinia/myocyte's solver
// element was 80,000 registers and 8 MB of native C++, finpar/InterestCalib's
// SegRed element 4.2 MB, too big for the native tier (and minutes of the C++
// compiler's time). A named function called with scalar arguments is lowered
// once per *specialisation* into a Subroutine, and each call becomes a Call:
//
//  - Specialisation key: the closure (body, environment), and per argument
//    leaf its type and, when the lowering knows it, its value. Known
//    arguments stay constants inside the subroutine, so it folds exactly as
//    the inlined copy did (same instructions, same order of operations:
//    results are bit-identical to inlining).
//  - Scalars go in and out as parameters and results. Arrays of a fixed
//    shape go through private storage (kir::LocalArray) of the subroutine:
//    the caller copies an array argument into the subroutine's parameter
//    storage before the call, and copies an array result out of the
//    subroutine's result storage after it (the next call overwrites it).
//    For myocyte's 91-element state that is a few hundred loads and stores
//    against thousands of instructions per call. The key has the array's
//    shape and element types. Functions as arguments or results, arrays
//    whose length depends on the element, a call in tail position (whose
//    SOAC may become a segmented step), a call with no unknown argument (it
//    folds to constants), and calls made while probing a value's shape are
//    inlined.
//  - The subroutine's body must be closed: a register of a caller used in it
//    (a captured scalar lifted into a parameter of the entry block) makes it
//    inlined instead. Small bodies (kMinInstructions) are inlined too: a
//    call costs copies on the interpreter and a call on native code.
//  - A failed attempt (a Fallback that inlining might not hit, such as a
//    size that is only known at one call site) is remembered per key and the
//    call inlined.
// THORN_SUBROUTINES=0 inlines every call (comparisons, bisecting).
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "interp/flatten/lower.hpp"

namespace thorn::flatten {

using kir::Reg;

namespace {

// Instructions (nested ones included) below which a body is inlined.
constexpr int64_t kMinInstructions = 40;

bool subroutines_enabled() {
  static const bool on = [] {
    const char* e = std::getenv("THORN_SUBROUTINES");
    return !(e && std::strcmp(e, "0") == 0);
  }();
  return on;
}

template <class T>
void put(std::string& key, const T& v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Appends the argument's shape to the key; false for what cannot be passed
// (functions, SOACs, arrays of a length known only per element). `unknown`
// counts the leaves that become parameters. `element` gives an array's
// element structure (Lowerer::element_like).
bool signature(const Sym& s, std::string& key, int& unknown, const std::function<Sym(const Sym&)>& element) {
  put(key, uint8_t(s.kind));
  switch (s.kind) {
    case Sym::Kind::Scalar:
      put(key, uint8_t(s.prim));
      put(key, uint8_t(s.known.has_value()));
      if (s.known) {
        put(key, uint8_t(s.known->type));
        put(key, s.known->u);
      } else {
        ++unknown;
      }
      return true;
    case Sym::Kind::Tuple:
    case Sym::Kind::Record:
      if (s.names)
        for (const std::string& n : *s.names) key += n + '\0';
      put(key, uint32_t(s.elems.size()));
      for (const Sym& e : s.elems)
        if (!signature(e, key, unknown, element)) return false;
      return true;
    case Sym::Kind::Array: {
      const SymArr& a = *s.arr;
      if (a.len != kir::kNoReg || a.dims.empty()) return false;
      put(key, uint32_t(a.dims.size()));
      for (int64_t d : a.dims) {
        if (d < 0) return false;
        put(key, d);
      }
      int probes = 0;  // the element's registers are probes: only its structure counts
      ++unknown;       // its contents vary
      return signature(element(s), key, probes, element);
    }
    default: return false;
  }
}

// Registers a block uses that it does not define (nor a block around the use).
bool closed(const kir::Block& b, std::vector<char>& defined) {
  auto ok = [&](Reg r) { return r < 0 || (size_t(r) < defined.size() && defined[size_t(r)]); };
  for (Reg r : b.params) defined[size_t(r)] = 1;
  for (const kir::Instr& in : b.instrs) {
    if (!ok(in.a) || !ok(in.b) || !ok(in.c)) return false;
    for (Reg r : in.args)
      if (!ok(r)) return false;
    for (const kir::Block& nb : in.blocks)
      if (!closed(nb, defined)) return false;
    if (in.dst >= 0) defined[size_t(in.dst)] = 1;
    for (Reg r : in.dsts) defined[size_t(r)] = 1;
  }
  for (Reg r : b.results)
    if (!ok(r)) return false;
  return true;
}

}  // namespace

// The argument with its unknown scalars replaced by fresh parameters and its
// known ones re-made as constants of the current block.
Sym Lowerer::parameterise(const Sym& s, std::vector<Reg>& params, std::vector<Sym>& storage, const Loc& loc) {
  if (s.kind == Sym::Kind::Scalar) {
    if (s.known) return constant(*s.known);
    Reg r = f_.new_reg(s.prim);
    params.push_back(r);
    return Sym::scalar(r, s.prim);
  }
  if (s.kind == Sym::Kind::Array) {
    // The subroutine's own storage, which each caller fills before the call.
    Sym st = private_storage(s, loc);
    storage.push_back(st);
    return with_current_versions(st);
  }
  Sym out;
  out.kind = s.kind;
  out.names = s.names;
  for (const Sym& e : s.elems) out.elems.push_back(parameterise(e, params, storage, loc));
  return out;
}

// The call's value from its results; leaves the subroutine always computes
// to the same constant stay known constants at the call site, and arrays
// are copied out of the subroutine's result storage.
Sym Lowerer::call_result(const Sym& like, const std::vector<Reg>& regs, size_t& pos, const Loc& loc) {
  if (like.kind == Sym::Kind::Scalar) {
    Reg r = regs.at(pos++);
    if (like.known) return constant(*like.known);
    return Sym::scalar(r, f_.reg_types[size_t(r)]);
  }
  if (like.kind == Sym::Kind::Array) {
    for (const SymArr::Leaf& l : like.arr->leaves) bump_version(l.array);  // the call wrote it
    return materialise(with_current_versions(like), loc);
  }
  Sym s;
  s.kind = like.kind;
  s.names = like.names;
  for (const Sym& e : like.elems) s.elems.push_back(call_result(e, regs, pos, loc));
  return s;
}

// Inside the subroutine: its result with every array in storage of its own
// (made in it: `first_local` on), scalars collected as the block's results.
Sym Lowerer::sub_result(const Sym& r, std::vector<Reg>& regs, size_t first_local, const Loc& loc) {
  switch (r.kind) {
    case Sym::Kind::Scalar: regs.push_back(r.reg); return r;
    case Sym::Kind::Array: {
      if (dynamic(r)) throw Fallback("a subroutine result whose length depends on the element");
      bool own = is_private_whole(r);
      for (const SymArr::Leaf& l : r.arr->leaves) own = own && size_t(l.array) >= first_local;
      return own ? r : materialise(r, loc);
    }
    case Sym::Kind::Tuple:
    case Sym::Kind::Record: {
      Sym s;
      s.kind = r.kind;
      s.names = r.names;
      for (const Sym& e : r.elems) s.elems.push_back(sub_result(e, regs, first_local, loc));
      return s;
    }
    default: throw Fallback("a function value where only scalars and arrays are supported");
  }
}

std::optional<Sym> Lowerer::subroutine_call(const CallablePtr& fn, const std::vector<Sym>& args, const Loc& loc,
                                            bool tail, const CallHint* hint) {
  const Callable& c = *fn;
  if (!subroutines_enabled() || tail || probing_ > 0 || !c.params || !c.body || args.size() != c.params->size())
    return std::nullopt;
  std::string key;
  // The closure: the flattener's rewrites (distribution, interchange) make
  // closures over the same body with other parameter lists. The entry keeps
  // the Callable alive, so no other one can take these addresses.
  put(key, c.body);
  put(key, c.params);
  put(key, c.type_params);
  put(key, c.env.get());
  put(key, c.tenv.get());
  int unknown = 0;
  auto element = [&](const Sym& arr) { return element_like(arr, loc); };
  try {
    for (const Sym& a : args)
      if (!signature(a, key, unknown, element)) return std::nullopt;
  } catch (const Fallback&) {
    return std::nullopt;
  }
  if (unknown == 0) return std::nullopt;
  if (hint) {
    for (const auto& [name, v] : hint->sizes) {
      key += name + '\0';
      put(key, v);
    }
    put(key, uint32_t(hint->dims.size()));
    for (const auto& d : hint->dims) put(key, d ? *d : int64_t(-2));
  }

  auto it = subs_.find(key);
  if (it == subs_.end()) {
    SubEntry entry;
    entry.fn = fn;
    size_t locals = f_.locals.size(), versions = local_version.size(), subs = f_.subs.size(), fused_n = fused.size();
    std::vector<Reg> params;
    Sym result;
    try {
      kir::Block body = b_.capture([&] {
        std::vector<Sym> pargs;
        for (const Sym& a : args) pargs.push_back(parameterise(a, params, entry.storage, loc));
        Sym r = call_body(*c.params, *c.body, root_scope(c.env, source_of(c)), c.type_params, pargs, c.name, loc,
                          false, c.ret_type, hint);
        std::vector<Reg> out;
        result = sub_result(r, out, locals, loc);
        return out;
      });
      body.params = params;
      std::vector<char> defined(f_.reg_types.size(), 0);
      if (closed(body, defined) && kir::instruction_count(body) >= kMinInstructions) {
        f_.subs.push_back(kir::Subroutine{c.name.empty() ? std::string("lambda") : c.name, std::move(body)});
        entry.index = int(f_.subs.size() - 1);
        entry.result = result;
      }
    } catch (const Fallback&) {
      entry.index = -1;
    }
    if (entry.index < 0) {
      // Inlined after all: drop what the attempt made, unless a subroutine
      // it created (which may use its private arrays) stays for reuse.
      if (f_.subs.size() == subs) {
        f_.locals.resize(locals);
        if (local_version.size() > versions) local_version.resize(versions);
      }
      fused.resize(fused_n);
    }
    it = subs_.emplace(std::move(key), std::move(entry)).first;
  }
  if (it->second.index < 0) return std::nullopt;

  // Scalar arguments as parameters; arrays copied into the subroutine's
  // storage, in the order parameterise() made it.
  const SubEntry& entry = it->second;
  std::vector<Reg> regs;
  size_t stored = 0;
  std::function<void(const Sym&)> go = [&](const Sym& s) {
    if (s.kind == Sym::Kind::Scalar) {
      if (!s.known) regs.push_back(s.reg);
    } else if (s.kind == Sym::Kind::Array) {
      const Sym& st = entry.storage.at(stored++);
      copy_into(with_current_versions(st), s, loc);
    } else {
      for (const Sym& e : s.elems) go(e);
    }
  };
  for (const Sym& a : args) go(a);
  std::vector<Reg> out = b_.call(entry.index, regs);
  size_t pos = 0;
  return call_result(entry.result, out, pos, loc);
}

}  // namespace thorn::flatten
