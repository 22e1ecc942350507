#include "interp/flatten/plan.hpp"
#include "interp/flatten/plan_tiled.hpp"

#include <fmt/format.h>

namespace thorn::plan {

std::string_view step_kind_name(StepKind k) {
  switch (k) {
    case StepKind::SegMap: return "SegMap";
    case StepKind::SegRed: return "SegRed";
    case StepKind::SegScan: return "SegScan";
    case StepKind::SegHist: return "SegHist";
    case StepKind::Scatter: return "Scatter";
  }
  return "?step";
}

namespace {

std::string indent(const std::string& text, int spaces) {
  std::string out, pad(size_t(spaces), ' ');
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += pad;
    out.append(text, start, end - start);
    out += '\n';
    start = end + 1;
  }
  return out;
}

std::string buffer_ref(const Plan& p, int id) {
  if (id < 0 || size_t(id) >= p.buffers.size()) return fmt::format("b{}(?)", id);
  const BufferDesc& b = p.buffers[size_t(id)];
  return b.name.empty() ? fmt::format("b{}", id) : fmt::format("b{}({})", id, b.name);
}

std::string id_list(const Plan& p, const std::vector<int>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + buffer_ref(p, ids[i]);
  return s;
}

// "[segments][segment_size]" with the domain the step iterates over.
std::string shape_of(const Step& s) {
  switch (s.kind) {
    case StepKind::SegHist:
      return fmt::format("[{}][{}] -> [{}][{} bins]", s.segments, s.segment_size, s.segments, s.bins);
    case StepKind::Scatter:
      return fmt::format("[{}][{}] -> [{}][{}]", s.segments, s.segment_size, s.segments,
                         s.dest_size);
    case StepKind::SegRed:
      return fmt::format("[{}][{}] -> [{}]", s.segments, s.segment_size, s.segments);
    default:
      return fmt::format("[{}][{}]", s.segments, s.segment_size);
  }
}

}  // namespace

std::string to_string(const Plan& p) {
  std::string out;
  out += fmt::format("plan{}{}\n", p.loc.known() ? " at " + p.loc.str() : std::string(),
                     p.source.empty() ? std::string() : ": " + p.source);
  if (!p.fallback.empty()) out += fmt::format("  fallback to the reference backend: {}\n", p.fallback);
  for (const std::string& n : p.notes) out += fmt::format("  note: {}\n", n);
  if (!p.buffers.empty()) {
    out += "  buffers:\n";
    for (size_t i = 0; i < p.buffers.size(); ++i) {
      const BufferDesc& b = p.buffers[i];
      out += fmt::format("    b{}: [{}]{}{}{}\n", i, b.count, prim_name(b.elem),
                         b.name.empty() ? "" : " " + b.name, b.is_input ? " (input)" : "");
    }
  }
  for (size_t k = 0; k < p.steps.size(); ++k) {
    const Step& s = p.steps[k];
    out += fmt::format("  step {}: {} {}{}{}\n", k, step_kind_name(s.kind), shape_of(s),
                       s.loc.known() ? " at " + s.loc.str() : std::string(),
                       (s.kind == StepKind::SegRed || s.kind == StepKind::SegHist) && s.commutative
                           ? " (commutative)"
                           : "");
    if (!s.fused.empty()) out += fmt::format("    fused: {}\n", s.fused);
    if (auto t = recognise_tiled(s)) out += fmt::format("    schedule: {}\n", describe(*t));
    if (!s.reads.empty()) {
      std::string reads;
      for (size_t i = 0; i < s.reads.size(); ++i)
        reads += fmt::format("{}a{} <- {}", i ? ", " : "", i, buffer_ref(p, s.reads[i]));
      out += fmt::format("    reads: {}\n", reads);
    }
    if (!s.writes.empty()) out += fmt::format("    writes: {}\n", id_list(p, s.writes));
    if (s.kind == StepKind::SegRed && s.num_map_outputs > 0)
      out += fmt::format("    map-part outputs: {}\n", s.num_map_outputs);
    if (!s.neutral.empty()) {
      std::string ne;
      for (size_t i = 0; i < s.neutral.size(); ++i)
        ne += (i ? ", " : "") + format_scalar(s.neutral[i]);
      out += fmt::format("    neutral: ({})\n", ne);
    }
    out += "    element:\n" + indent(kir::to_string(s.element), 6);
    if (s.kind == StepKind::SegRed || s.kind == StepKind::SegScan || s.kind == StepKind::SegHist)
      out += "    operator:\n" + indent(kir::to_string(s.op), 6);
  }
  if (!p.results.empty()) out += fmt::format("  results: {}\n", id_list(p, p.results));
  return out;
}

}  // namespace thorn::plan
