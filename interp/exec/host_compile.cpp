// kir::Function -> host Program: constant hoisting, affine read detection,
// dead-code removal, and kernel selection.
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "interp/exec/host_affine.hpp"
#include "interp/exec/host_program.hpp"
#include "interp/exec/host_semantics.hpp"
#include "interp/util/error.hpp"

namespace thorn::host {

namespace {

using kir::Opcode;

struct Compiler {
  const kir::Function& f;
  Program& p;
  const AffineAnalysis* aff;  // null: no affine reads
  int64_t segments = 1, segment_size = 0;

  // Reads at top level whose affine path always applies: their index
  // register is not needed.
  std::vector<char> live;
  // Subroutines: marked once (all results live), compiled once into a block
  // that every Call of it runs.
  std::vector<char> sub_marked;
  std::vector<int> sub_block;

  int subroutine(int k) {
    if (sub_block.at(size_t(k)) < 0) sub_block[size_t(k)] = block(f.subs[size_t(k)].body);
    return sub_block[size_t(k)];
  }

  bool flat_affine(const Affine& a) const {
    return segments <= 1 || a.cs == a.cj * segment_size;
  }

  // Backward liveness over one block; nested blocks of kept control
  // instructions are processed with all their results live.
  void mark(const kir::Block& b, bool top) {
    for (auto it = b.instrs.rbegin(); it != b.instrs.rend(); ++it) {
      const kir::Instr& in = *it;
      bool effect = kir::has_effect(in.op);
      if (!effect && !(in.dst >= 0 && live[size_t(in.dst)])) continue;
      auto use = [&](kir::Reg r) {
        if (r >= 0) live[size_t(r)] = 1;
      };
      if (in.op == Opcode::Read && top && aff) {
        auto a = aff->get(in.a);
        if (!(a && flat_affine(*a))) use(in.a);
      } else {
        use(in.a);
      }
      use(in.b);
      use(in.c);
      for (kir::Reg r : in.args) use(r);
      if (in.op == Opcode::Call && !sub_marked.at(size_t(in.aux))) {
        sub_marked[size_t(in.aux)] = 1;
        const kir::Block& sb = f.subs[size_t(in.aux)].body;
        for (kir::Reg r : sb.results) use(r);
        mark(sb, false);
      }
      for (const kir::Block& nb : in.blocks) {
        for (kir::Reg r : nb.results) use(r);
        mark(nb, false);
      }
    }
  }

  bool keep(const kir::Instr& in) const {
    if (kir::has_effect(in.op)) return true;
    return in.dst >= 0 && live[size_t(in.dst)];
  }

  int block(const kir::Block& b) {
    int id = int(p.blocks.size());
    p.blocks.emplace_back();
    std::vector<CInstr> out;
    for (const kir::Instr& in : b.instrs) {
      if (!keep(in)) continue;
      CInstr c;
      c.dst = in.dst;
      c.a = in.a;
      c.b = in.b;
      c.c = in.c;
      c.aux = in.aux;
      Prim operand = in.a >= 0 ? f.reg_types[size_t(in.a)] : in.type;
      switch (in.op) {
        case Opcode::Const:
          p.consts.emplace_back(in.dst, const_bits(in.imm));
          continue;
        case Opcode::Unary: c.fn = unary_kernel(in.unop(), operand, in.type); break;
        case Opcode::Binary: c.fn = binary_kernel(in.binop(), in.type); break;
        case Opcode::Compare: c.fn = compare_kernel(in.cmpop(), in.type); break;
        case Opcode::Convert: c.fn = convert_kernel(in.src_type, in.type); break;
        case Opcode::Select: c.fn = select_kernel(in.type); break;
        case Opcode::Read: {
          c.fn = read_kernel(in.type);
          if (aff) {
            if (auto a = aff->get(in.a)) {
              Affine form = *a;
              form.flat = flat_affine(form);
              c.aux2 = int32_t(p.affine.size());
              p.affine.push_back(form);
            }
          }
          break;
        }
        case Opcode::Check:
          c.fn = check_kernel();
          c.aux2 = in.args.empty() ? -1 : in.args[0];  // a third value the message reports
          break;
        case Opcode::LocalRead: c.fn = local_read_kernel(in.type); break;
        case Opcode::LocalWrite: c.fn = local_write_kernel(in.type); break;
        case Opcode::Write: c.fn = write_kernel(in.type); break;
        case Opcode::Call: {
          Control ctl;
          ctl.op = in.op;
          ctl.dsts = in.dsts;
          ctl.args = in.args;
          ctl.blocks[0] = subroutine(in.aux);
          c.aux = int32_t(p.controls.size());
          p.controls.push_back(std::move(ctl));
          c.fn = control_kernel(in.op);
          break;
        }
        case Opcode::If:
        case Opcode::For:
        case Opcode::While: {
          Control ctl;
          ctl.op = in.op;
          ctl.dsts = in.dsts;
          ctl.args = in.args;
          for (size_t k = 0; k < in.blocks.size() && k < 2; ++k) ctl.blocks[k] = block(in.blocks[k]);
          c.aux = int32_t(p.controls.size());
          p.controls.push_back(std::move(ctl));
          c.fn = control_kernel(in.op);
          break;
        }
      }
      if (!c.fn)
        throw Error(ErrorKind::Internal,
                    fmt::format("host executor: no kernel for an instruction in {}:\n{}", f.name,
                                kir::to_string(f)));
      out.push_back(c);
    }
    p.blocks[size_t(id)].instrs = std::move(out);
    p.blocks[size_t(id)].params = b.params;
    p.blocks[size_t(id)].results = b.results;
    return id;
  }
};

}  // namespace

uint64_t const_bits(const Scalar& s) {
  uint64_t bits = 0;
  with_prim(s.type, [&](auto tag) {
    constexpr Prim P = decltype(tag)::value;
    RegT<P> v;
    if constexpr (P == Prim::Bool) v = s.b ? 1 : 0;
    else if constexpr (sem::kFloat<P>) v = RegT<P>(s.f);
    else if constexpr (sem::kSigned<P>) v = RegT<P>(s.i);
    else v = RegT<P>(s.u);
    std::memcpy(&bits, &v, sizeof v);
  });
  return bits;
}

Scalar read_lane(Prim t, const std::byte* lanes, int lane) {
  return with_prim(t, [&](auto tag) -> Scalar {
    constexpr Prim P = decltype(tag)::value;
    RegT<P> v;
    std::memcpy(&v, lanes + size_t(lane) * sizeof v, sizeof v);
    if constexpr (P == Prim::Bool) return Scalar::boolean(v != 0);
    else if constexpr (sem::kFloat<P>) return Scalar::floating(P, double(v));
    else if constexpr (sem::kSigned<P>) return Scalar::signed_int(P, int64_t(v));
    else return Scalar::unsigned_int(P, uint64_t(v));
  });
}

void write_lane(const Scalar& s, std::byte* lanes, int lane) {
  uint64_t bits = const_bits(s);
  size_t w = size_t(reg_bytes(s.type));
  std::memcpy(lanes + size_t(lane) * w, &bits, w);
}

std::shared_ptr<const Program> compile(const kir::Function& f) { return compile_element(f, 0, 0); }

std::shared_ptr<const Program> compile_element(const kir::Function& f, int64_t segments,
                                               int64_t segment_size) {
  auto p = std::make_shared<Program>();
  p->name = f.name;
  p->reg_types = f.reg_types;
  for (Prim t : f.reg_types) p->reg_bytes.push_back(reg_bytes(t));
  for (const kir::FreeArray& a : f.free_arrays) p->array_types.push_back(a.elem);
  for (const kir::LocalArray& l : f.locals) p->locals.push_back({l.elem, l.count});
  p->messages = f.messages;
  p->message_locs = f.message_locs;
  p->message_locs.resize(p->messages.size());

  AffineAnalysis aff;
  bool element = segments > 0 && f.body.params.size() >= 2 &&
                 f.reg_types[size_t(f.body.params[0])] == Prim::I64 &&
                 f.reg_types[size_t(f.body.params[1])] == Prim::I64;
  if (element) {
    aff.forms[f.body.params[0]] = Affine{1, 0, 0, false};
    aff.forms[f.body.params[1]] = Affine{0, 1, 0, false};
    aff.block(f.body);
  }
  Compiler c{f, *p, element ? &aff : nullptr, segments, segment_size, {}, {}, {}};
  c.live.assign(f.reg_types.size(), 0);
  c.sub_marked.assign(f.subs.size(), 0);
  c.sub_block.assign(f.subs.size(), -1);
  for (kir::Reg r : f.body.results) c.live[size_t(r)] = 1;
  c.mark(f.body, true);
  for (kir::Reg r : f.body.params) p->param_live.push_back(c.live[size_t(r)]);
  c.block(f.body);
  return p;
}

}  // namespace thorn::host
