#include "interp/flatten/kernel_ir_builder.hpp"

namespace thorn::kir {

Reg Builder::param(Prim t) {
  Reg r = f_.new_reg(t);
  f_.body.params.push_back(r);
  return r;
}

int Builder::free_array(Prim elem, std::string name) {
  f_.free_arrays.push_back(FreeArray{elem, std::move(name)});
  return int(f_.free_arrays.size() - 1);
}

void Builder::ret(std::vector<Reg> results) { f_.body.results = std::move(results); }

Reg Builder::emit(Instr in) {
  Reg d = in.dst;
  cur_->instrs.push_back(std::move(in));
  return d;
}

Reg Builder::constant(const Scalar& s) {
  Instr in;
  in.op = Opcode::Const;
  in.type = s.type;
  in.imm = s;
  in.dst = f_.new_reg(s.type);
  return emit(std::move(in));
}

Reg Builder::unary(UnOp op, Reg a) {
  Prim t = type(a);
  switch (op) {
    case UnOp::IsNan:
    case UnOp::IsInf: return unary(op, Prim::Bool, a);
    case UnOp::Popc:
    case UnOp::Clz:
    case UnOp::Ctz: return unary(op, Prim::I32, a);
    case UnOp::ToBits:
      return unary(op, t == Prim::F16 ? Prim::U16 : t == Prim::F32 ? Prim::U32 : Prim::U64, a);
    case UnOp::FromBits:
      return unary(op, t == Prim::U16 ? Prim::F16 : t == Prim::U32 ? Prim::F32 : Prim::F64, a);
    default: return unary(op, t, a);
  }
}

Reg Builder::unary(UnOp op, Prim result, Reg a) {
  Instr in;
  in.op = Opcode::Unary;
  in.sub = uint8_t(op);
  in.type = result;
  in.a = a;
  in.dst = f_.new_reg(result);
  return emit(std::move(in));
}

Reg Builder::binary(BinOp op, Reg a, Reg b) {
  Instr in;
  in.op = Opcode::Binary;
  in.sub = uint8_t(op);
  in.type = type(a);
  in.a = a;
  in.b = b;
  in.dst = f_.new_reg(in.type);
  return emit(std::move(in));
}

Reg Builder::compare(CmpOp op, Reg a, Reg b) {
  Instr in;
  in.op = Opcode::Compare;
  in.sub = uint8_t(op);
  in.type = type(a);
  in.a = a;
  in.b = b;
  in.dst = f_.new_reg(Prim::Bool);
  return emit(std::move(in));
}

Reg Builder::convert(Prim to, Reg a) {
  Instr in;
  in.op = Opcode::Convert;
  in.type = to;
  in.src_type = type(a);
  in.a = a;
  in.dst = f_.new_reg(to);
  return emit(std::move(in));
}

Reg Builder::select(Reg cond, Reg if_true, Reg if_false) {
  Instr in;
  in.op = Opcode::Select;
  in.type = type(if_true);
  in.a = cond;
  in.b = if_true;
  in.c = if_false;
  in.dst = f_.new_reg(in.type);
  return emit(std::move(in));
}

Reg Builder::read(int array, Reg index) {
  Instr in;
  in.op = Opcode::Read;
  in.type = f_.free_arrays.at(size_t(array)).elem;
  in.aux = array;
  in.a = index;
  in.dst = f_.new_reg(in.type);
  return emit(std::move(in));
}

int Builder::local_array(Prim elem, int64_t count, std::string name) {
  f_.locals.push_back({elem, count, std::move(name)});
  return int(f_.locals.size() - 1);
}

Reg Builder::local_read(int local, Reg index) {
  Instr in;
  in.op = Opcode::LocalRead;
  in.type = f_.locals.at(size_t(local)).elem;
  in.aux = local;
  in.a = index;
  in.dst = f_.new_reg(in.type);
  return emit(std::move(in));
}

void Builder::local_write(int local, Reg index, Reg value) {
  Instr in;
  in.op = Opcode::LocalWrite;
  in.type = f_.locals.at(size_t(local)).elem;
  in.aux = local;
  in.a = index;
  in.b = value;
  emit(std::move(in));
}

void Builder::write(int array, Reg index, Reg value) {
  Instr in;
  in.op = Opcode::Write;
  f_.free_arrays.at(size_t(array)).written = true;
  in.type = f_.free_arrays[size_t(array)].elem;
  in.aux = array;
  in.a = index;
  in.b = value;
  emit(std::move(in));
}

void Builder::check(Reg cond, std::string message, Loc loc, Reg index, Reg value2, Reg value3) {
  Instr in;
  in.op = Opcode::Check;
  in.a = cond;
  in.b = index;
  in.c = value2;
  if (value3 != kNoReg) in.args = {value3};
  if (loc.in_prelude() && user_site.known()) loc = user_site;
  in.aux = f_.add_message(std::move(message), loc);
  emit(std::move(in));
}

std::vector<Reg> Builder::if_(Reg cond, const BlockFn& then, const BlockFn& otherwise) {
  Instr in;
  in.op = Opcode::If;
  in.a = cond;
  in.blocks.resize(2);
  in.blocks[0].results = in_block(in.blocks[0], then);
  in.blocks[1].results = in_block(in.blocks[1], otherwise);
  for (Reg r : in.blocks[0].results) in.dsts.push_back(f_.new_reg(type(r)));
  std::vector<Reg> dsts = in.dsts;
  emit(std::move(in));
  return dsts;
}

std::vector<Reg> Builder::for_(
    Reg count, const std::vector<Reg>& init,
    const std::function<std::vector<Reg>(Reg, const std::vector<Reg>&)>& body) {
  Instr in;
  in.op = Opcode::For;
  in.a = count;
  in.args = init;
  in.blocks.resize(1);
  Block& b = in.blocks[0];
  Reg i = f_.new_reg(Prim::I64);
  b.params.push_back(i);
  std::vector<Reg> carried;
  for (Reg r : init) {
    carried.push_back(f_.new_reg(type(r)));
    b.params.push_back(carried.back());
  }
  b.results = in_block(b, [&] { return body(i, carried); });
  for (Reg r : init) in.dsts.push_back(f_.new_reg(type(r)));
  std::vector<Reg> dsts = in.dsts;
  emit(std::move(in));
  return dsts;
}

std::vector<Reg> Builder::while_(
    const std::vector<Reg>& init, const std::function<Reg(const std::vector<Reg>&)>& cond,
    const std::function<std::vector<Reg>(const std::vector<Reg>&)>& body) {
  Instr in;
  in.op = Opcode::While;
  in.args = init;
  in.blocks.resize(2);
  for (Block& b : in.blocks)
    for (Reg r : init) b.params.push_back(f_.new_reg(type(r)));
  std::vector<Reg> cparams = in.blocks[0].params, bparams = in.blocks[1].params;
  in.blocks[0].results = {in_block(in.blocks[0], [&] { return cond(cparams); })};
  in.blocks[1].results = in_block(in.blocks[1], [&] { return body(bparams); });
  for (Reg r : init) in.dsts.push_back(f_.new_reg(type(r)));
  std::vector<Reg> dsts = in.dsts;
  emit(std::move(in));
  return dsts;
}

namespace {

struct Inliner {
  Function& f;
  const Function& callee;
  const std::vector<int>& array_map;
  std::vector<Reg> rename;  // callee register -> caller register
  std::vector<int> message_map;
  std::vector<int> local_map;  // callee local -> caller local (fresh storage per inlined copy)
  std::vector<int> sub_map;    // callee subroutine -> caller subroutine (copied on first use)

  // Callees of a subroutine are copied before it, keeping callee < caller.
  int sub(int k) {
    int& m = sub_map.at(size_t(k));
    if (m < 0) {
      Subroutine s;
      s.name = callee.subs[size_t(k)].name;
      s.body = block(callee.subs[size_t(k)].body);
      f.subs.push_back(std::move(s));
      m = int(f.subs.size() - 1);
    }
    return m;
  }

  Reg map(Reg r) {
    if (r < 0) return r;
    Reg& m = rename[size_t(r)];
    if (m < 0) m = f.new_reg(callee.reg_types[size_t(r)]);
    return m;
  }

  Block block(const Block& b) {
    Block out;
    for (Reg r : b.params) out.params.push_back(map(r));
    for (const Instr& in : b.instrs) out.instrs.push_back(instr(in));
    for (Reg r : b.results) out.results.push_back(map(r));
    return out;
  }

  Instr instr(const Instr& in) {
    Instr c = in;
    c.dst = map(in.dst);
    c.a = map(in.a);
    c.b = map(in.b);
    c.c = map(in.c);
    for (Reg& r : c.dsts) r = map(r);
    for (Reg& r : c.args) r = map(r);
    if (in.op == Opcode::Read || in.op == Opcode::Write) c.aux = array_map.at(size_t(in.aux));
    if (in.op == Opcode::LocalRead || in.op == Opcode::LocalWrite) {
      int& m = local_map[size_t(in.aux)];
      if (m < 0) {
        f.locals.push_back(callee.locals[size_t(in.aux)]);
        m = int(f.locals.size() - 1);
      }
      c.aux = m;
    }
    if (in.op == Opcode::Check) {
      int& m = message_map[size_t(in.aux)];
      if (m < 0)
        m = f.add_message(callee.messages[size_t(in.aux)],
                          size_t(in.aux) < callee.message_locs.size() ? callee.message_locs[size_t(in.aux)] : Loc{});
      c.aux = m;
    }
    if (in.op == Opcode::Call) c.aux = sub(in.aux);
    c.blocks.clear();
    for (const Block& b : in.blocks) c.blocks.push_back(block(b));
    return c;
  }
};

}  // namespace

std::vector<Reg> Builder::inline_call(const Function& callee, const std::vector<Reg>& args,
                                      const std::vector<int>& array_map) {
  Inliner in{f_, callee, array_map, std::vector<Reg>(callee.reg_types.size(), kNoReg),
             std::vector<int>(callee.messages.size(), -1), std::vector<int>(callee.locals.size(), -1),
             std::vector<int>(callee.subs.size(), -1)};
  for (size_t k = 0; k < callee.body.params.size() && k < args.size(); ++k)
    in.rename[size_t(callee.body.params[k])] = args[k];
  for (const Instr& i : callee.body.instrs) cur_->instrs.push_back(in.instr(i));
  std::vector<Reg> out;
  for (Reg r : callee.body.results) out.push_back(in.map(r));
  return out;
}

int Builder::subroutine(std::string name, const std::vector<Prim>& params,
                        const std::function<std::vector<Reg>(const std::vector<Reg>&)>& body) {
  Subroutine s;
  s.name = std::move(name);
  for (Prim t : params) s.body.params.push_back(f_.new_reg(t));
  std::vector<Reg> ps = s.body.params;
  s.body.results = in_block(s.body, [&] { return body(ps); });
  f_.subs.push_back(std::move(s));
  return int(f_.subs.size() - 1);
}

std::vector<Reg> Builder::call(int sub, const std::vector<Reg>& args) {
  Instr in;
  in.op = Opcode::Call;
  in.aux = sub;
  in.args = args;
  for (Reg r : f_.subs.at(size_t(sub)).body.results) in.dsts.push_back(f_.new_reg(type(r)));
  std::vector<Reg> dsts = in.dsts;
  emit(std::move(in));
  return dsts;
}

void Builder::append(std::vector<Instr> instrs) {
  for (Instr& i : instrs) cur_->instrs.push_back(std::move(i));
}

Block Builder::capture(const BlockFn& fn) {
  Block b;
  b.results = in_block(b, fn);
  return b;
}

}  // namespace thorn::kir
