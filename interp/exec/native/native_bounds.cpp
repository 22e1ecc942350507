#include "interp/exec/native/native_bounds.hpp"

#include "interp/exec/host_affine.hpp"

namespace thorn::host::native {

namespace {

template <class Fn>
void each_affine_read(const kir::Function& f, Fn&& fn) {
  AffineAnalysis aff;
  aff.element(f);
  for (const kir::Instr& in : f.body.instrs)
    if (in.op == kir::Opcode::Read)
      if (auto form = aff.get(in.a)) fn(in, *form);
}

}  // namespace

std::set<const kir::Instr*> affine_reads(const kir::Function& element) {
  std::set<const kir::Instr*> out;
  each_affine_read(element, [&](const kir::Instr& in, const Affine&) { out.insert(&in); });
  return out;
}

AffineBounds affine_bounds(const kir::Function& element, std::vector<int64_t> counts, int64_t segment_size) {
  AffineBounds b;
  b.counts = std::move(counts);
  b.segment_size = segment_size > 0 ? segment_size : 1;
  each_affine_read(element, [&](const kir::Instr& in, const Affine& form) { b.reads.push_back({in.aux, form}); });
  return b;
}

bool AffineBounds::ok(int64_t begin, int64_t end) const {
  if (reads.empty() || end <= begin) return true;
  const int64_t n = segment_size;
  const int64_t s0 = begin / n, s1 = (end - 1) / n;
  int64_t j0 = 0, j1 = n - 1;
  if (s0 == s1) {
    j0 = begin - s0 * n;
    j1 = end - 1 - s0 * n;
  }
  for (const Read& r : reads) {
    // Exact arithmetic: an index in range at the corners is in range, and
    // equal to the IR's wrapping computation, everywhere in the box.
    const __int128 cs = r.form.cs, cj = r.form.cj, c0 = r.form.c0;
    const __int128 count = counts[size_t(r.array)];
    for (int64_t s : {s0, s1})
      for (int64_t j : {j0, j1}) {
        __int128 i = cs * s + cj * j + c0;
        if (i < 0 || i >= count) return false;
      }
  }
  return true;
}

}  // namespace thorn::host::native
