#include "tests/gpu/support/variants.hpp"

#include <set>

#include <fmt/format.h>

#include "gpu/launch/params.hpp"
#include "tests/gpu/support/hist_suite.hpp"
#include "tests/gpu/support/scan_suite.hpp"
#include "tests/gpu/support/steps.hpp"

namespace thorn::gpu::test {

namespace {

const Prim kTypes[] = {Prim::I32, Prim::I64, Prim::F32, Prim::F64, Prim::F16, Prim::U8, Prim::Bool};

void add(std::vector<cg::KernelSource>& out, std::set<std::string>& seen, cg::KernelSource ks,
         const std::string& tag) {
  if (!seen.insert(ks.source).second) return;  // identical text: one compilation covers both
  ks.name = tag;
  out.push_back(std::move(ks));
}

}  // namespace

std::vector<cg::KernelSource> all_kernel_variants() {
  std::vector<cg::KernelSource> out;
  std::set<std::string> seen;
  cg::CodegenOptions opts;
  cg::CodegenOptions noalias = opts;
  noalias.noalias = true;
  const int64_t segs = 1000, n = 3000;

  // SegMap
  for (Prim t : kTypes) {
    std::string tn(prim_name(t));
    if (t != Prim::Bool) add(out, seen, cg::gen_segmap(map_axpy(t, segs, n), opts), "map axpy " + tn);
    add(out, seen, cg::gen_segmap(map_convert(t, Prim::F64, segs, n), noalias), "map convert " + tn + "->f64");
    add(out, seen, cg::gen_segmap(map_convert(Prim::F32, t, segs, n), opts), "map convert f32->" + tn);
  }
  add(out, seen, cg::gen_segmap(map_axpy(Prim::F32, 1, 1), opts), "map axpy f32 n=1 (literal n)");
  add(out, seen, cg::gen_segmap(map_every_opcode(segs, n), opts), "map every opcode");
  add(out, seen, cg::gen_segmap(map_subroutines(segs, n), opts), "map subroutines");
  // Private arrays and a written free array, with and without __restrict__ inputs.
  for (Prim t : kTypes)
    for (const cg::CodegenOptions& o : {opts, noalias})
      add(out, seen, cg::gen_segmap(map_private_rows(t, segs, 64), o),
          fmt::format("map private rows {}{}", prim_name(t), o.noalias ? " noalias" : ""));

  // SegRed: every strategy, ordered and strided, single and tuple operators, redomap.
  const cg::RedStrategy strategies[] = {cg::RedStrategy::ThreadPerSegment, cg::RedStrategy::Small,
                                        cg::RedStrategy::Warp, cg::RedStrategy::Large};
  struct OpCase {
    RedOp op;
    std::vector<Prim> types;
  };
  const OpCase cases[] = {
      {RedOp::Sum, {Prim::I32, Prim::I64, Prim::F32, Prim::F64, Prim::F16, Prim::U8, Prim::Bool}},
      {RedOp::Max, {Prim::I32, Prim::I64, Prim::F32, Prim::F64, Prim::F16, Prim::U8, Prim::Bool}},
      {RedOp::Mss, {Prim::I32, Prim::I64, Prim::F32, Prim::F64, Prim::F16}},
      {RedOp::Mat2, {Prim::I32, Prim::U8, Prim::F64}},
      {RedOp::Affine, {Prim::I64, Prim::F32}},
  };
  for (const OpCase& c : cases)
    for (Prim t : c.types)
      for (bool comm : {true, false})
        for (int maps : {0, 1, 2}) {
          if (maps > 0 && c.op != RedOp::Sum && c.op != RedOp::Mss) continue;
          plan::Step st = segred(t, c.op, comm, maps, segs, n);
          for (cg::RedStrategy s : strategies)
            for (bool ordered : {true, false}) {
              if (!ordered && (!comm || s != cg::RedStrategy::Large)) continue;
              add(out, seen, cg::gen_segred(st, s, ordered, maps ? noalias : opts),
                  fmt::format("segred {} {} {} {}{} maps={}", cg::red_strategy_name(s), red_op_name(c.op),
                              prim_name(t), comm ? "comm" : "noncomm",
                              s == cg::RedStrategy::Large ? (ordered ? " ordered" : " strided") : "", maps));
            }
        }

  // SegScan: every operator of the scan suite, with the m the device model
  // picks for an H100 and extremes (m = 1, a large m, small and large blocks).
  {
    struct ScanCase {
      ScanOp op;
      Prim t;
    };
    const ScanCase scans[] = {
        {ScanOp::Sum, Prim::I32},  {ScanOp::Sum, Prim::I64},  {ScanOp::Sum, Prim::F32},  {ScanOp::Sum, Prim::F64},
        {ScanOp::Sum, Prim::F16},  {ScanOp::Sum, Prim::U8},   {ScanOp::Sum, Prim::Bool}, {ScanOp::Max, Prim::F32},
        {ScanOp::Mss, Prim::I32},  {ScanOp::Mat2, Prim::I32}, {ScanOp::Affine, Prim::I64}, {ScanOp::Lssp, Prim::I32},
        {ScanOp::Mixed, Prim::I32},
    };
    const DeviceProps h100 = DeviceProps::typical(90);
    for (const ScanCase& c : scans) {
      plan::Step st = segscan(c.t, c.op, segs, n);
      int model_m = launch::plan_segscan(h100, st, segs * n).m;
      for (auto [m, block] : std::vector<std::pair<int, int>>{{model_m, 256}, {1, 32}, {16, 1024}, {model_m, 128}})
        for (const cg::CodegenOptions& base : {opts, noalias}) {
          cg::CodegenOptions o = base;
          o.block_size = block;
          add(out, seen, cg::gen_segscan(st, m, o),
              fmt::format("segscan {} {} m={} block={}{}", scan_op_name(c.op), prim_name(c.t), m, block,
                          o.noalias ? " noalias" : ""));
        }
    }
  }

  // SegHist: every operator of the hist suite with every update it allows
  // (hardware atomics, CAS, locks; each module holds the shared, global,
  // init and combine kernels, so shared and global subhistograms and the
  // multi-pass launches are all compiled), with and without __restrict__.
  {
    struct HistCase {
      HistOp op;
      Prim t;
    };
    const HistCase hists[] = {
        {HistOp::Add, Prim::I32},  {HistOp::Add, Prim::U32},   {HistOp::Add, Prim::I64},  {HistOp::Add, Prim::U64},
        {HistOp::Add, Prim::F32},  {HistOp::Add, Prim::F64},   {HistOp::Add, Prim::F16},  {HistOp::Add, Prim::U8},
        {HistOp::Min, Prim::I32},  {HistOp::Min, Prim::U32},   {HistOp::Max, Prim::I64},  {HistOp::Max, Prim::U64},
        {HistOp::Max, Prim::F32},  {HistOp::Min, Prim::F64},   {HistOp::Xor, Prim::U32},  {HistOp::Xor, Prim::I64},
        {HistOp::SatAdd, Prim::I32}, {HistOp::ArgMax, Prim::I32}, {HistOp::Vec3, Prim::I32}, {HistOp::Vec3, Prim::F64},
        {HistOp::Pair, Prim::I64}, {HistOp::Or, Prim::Bool},
    };
    for (const HistCase& c : hists) {
      plan::Step st = seghist(c.t, c.op, segs, n, 500);
      for (launch::HistAtomic a : {launch::HistAtomic::Hardware, launch::HistAtomic::Cas, launch::HistAtomic::Lock}) {
        if (!cg::hist_atomic_allowed(st, a)) continue;
        for (const cg::CodegenOptions& o : {opts, noalias})
          add(out, seen, cg::gen_seghist(st, a, o),
              fmt::format("seghist {} {} {}{}", hist_op_name(c.op), prim_name(c.t), launch::hist_atomic_name(a),
                          o.noalias ? " noalias" : ""));
      }
    }
  }

  // Scatter
  for (Prim t : kTypes)
    for (int k : {1, 2})
      add(out, seen, cg::gen_scatter(scatter(t, k, segs, n, 500), opts),
          fmt::format("scatter {} k={}", prim_name(t), k));

  // Transpose
  for (int bytes : {1, 2, 4, 8}) add(out, seen, cg::gen_transpose(bytes), fmt::format("transpose {}B", bytes));
  return out;
}

}  // namespace thorn::gpu::test
