// Accumulators inside a mapped function (Futhark's intrinsics
// scatter_stream, hist_stream and acc_write, which the evaluator runs in
// interp/eval/accumulators.cpp): `scatter_stream dest f bs` runs `f acc b`
// for each b in order, f writing into the destination through acc_write.
// Inside an element that is a sequential loop over bs whose state is the
// accumulator: a record whose field acc_data is the destination, in
// private storage (materialised first, as a scatter's destination is). A
// histogram's accumulator also has a field acc_hist<k> naming its operator
// (acc_ops_[k]: a record field's name is static, so it survives loops that
// carry the accumulator, where a value would become a register), with
// which acc_write combines the old value and the new. CFAL-bench's flash
// attention copies tiles with scatter_stream inside its mapped functions.
#include <fmt/format.h>

#include "interp/flatten/lower.hpp"

namespace thorn::flatten {

using kir::Reg;

namespace {

constexpr const char* kData = "acc_data";
constexpr const char* kHist = "acc_hist";

}  // namespace

Sym Lowerer::accumulator_stream(const std::vector<Sym>& args, bool hist, const Loc& loc) {
  const Sym& dest_in = args.at(0);
  const Sym& f = args.at(hist ? 3 : 1);
  const Sym& bs = args.at(hist ? 4 : 2);
  if (dest_in.kind != Sym::Kind::Array || dest_in.arr->dims.size() != 1)
    throw Fallback("an accumulator over an array of more than one dimension inside a mapped function");
  if (dynamic(dest_in)) throw Fallback("an accumulator over an array whose length depends on the element");
  Sym dest = is_private_whole(dest_in) ? dest_in : materialise(dest_in, loc);
  std::vector<std::pair<std::string, Sym>> fields{{kData, dest}};
  if (hist) {
    fields.emplace_back(fmt::format("{}{}", kHist, acc_ops_.size()), constant(Scalar::boolean(true)));
    acc_ops_.push_back(args.at(1));
  }
  Sym acc = Sym::record(std::move(fields));
  LoopState st = loop_state(acc, loc);
  std::vector<Reg> out = b_.for_(length_reg(bs), st.init_regs, [&](Reg j, const std::vector<Reg>& carried) {
    Sym r = apply(f, {state_value(st, carried), index(bs, j, loc, false)}, loc);
    return next_state(st, r, loc);
  });
  Sym result = project(final_state(st, out), kData, loc);
  if (hist) acc_ops_.pop_back();
  return result;
}

Sym Lowerer::acc_write(const Sym& acc, const Sym& i, const Sym& v, const Loc& loc) {
  if (acc.kind != Sym::Kind::Record || !acc.names || acc.names->empty() || (*acc.names)[0] != kData)
    throw Fallback("acc_write on a value that is not an accumulator");
  const Sym* op = nullptr;
  if (acc.names->size() == 2) {
    const std::string& tag = (*acc.names)[1];
    size_t k = std::stoul(tag.substr(std::string(kHist).size()));
    if (k >= acc_ops_.size()) throw Fallback("acc_write on an accumulator of a finished histogram");
    op = &acc_ops_[k];
  }
  Sym data = acc.elems[0];
  if (!is_private_whole(data)) throw Fallback("acc_write on an accumulator whose storage is not private");
  const SymArr& d = *data.arr;
  // Out of bounds: ignored, as scatter ignores such writes.
  Reg inb;
  std::vector<Reg> parts;
  Reg at = private_position(i, d.dims, 1, inb, parts, loc);
  b_.if_(
      inb,
      [&] {
        Sym x = v;
        if (op) x = apply(*op, {index(with_current_versions(data), at, loc, false), v}, loc);
        std::vector<Reg> regs = leaves(x);
        if (regs.size() != d.leaves.size()) throw Fallback("acc_write of a value of another type");
        for (size_t l = 0; l < regs.size(); ++l) b_.local_write(d.leaves[l].array, at, regs[l]);
        return std::vector<Reg>{};
      },
      [] { return std::vector<Reg>{}; });
  for (const SymArr::Leaf& l : d.leaves) bump_version(l.array);
  Sym out = acc;
  out.elems[0] = with_current_versions(data);
  return out;
}

}  // namespace thorn::flatten
