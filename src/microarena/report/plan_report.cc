#include "microarena/report/plan_report.h"

#include <fmt/format.h>

#include "microarena/report/format.h"

namespace microarena::report {
namespace {

std::string OwnerName(const ModelView& model, const BufferRequest& buffer) {
  SubgraphView subgraph = model.subgraph(static_cast<size_t>(buffer.subgraph_index));
  if (buffer.kind == BufferKind::kScratch) {
    return fmt::format("op {} {}", buffer.owner_index, subgraph.op(static_cast<size_t>(buffer.owner_index)).name());
  }
  return subgraph.tensor(static_cast<size_t>(buffer.owner_index)).name();
}

}  // namespace

std::string PlanText(const ModelView& model, const std::string& model_path, const ModelPlan& plan,
                     const PlanTextOptions& options) {
  size_t tensors = 0, scratch = 0;
  for (const BufferRequest& b : plan.buffers) (b.kind == BufferKind::kTensor ? tensors : scratch) += 1;
  std::string out;
  out += fmt::format("model        {}\n", model_path);
  out += fmt::format("planner      {}{}\n", plan.planner, plan.proven_optimal ? " (proven optimal)" : "");
  out += fmt::format("alignment    {} B\n", plan.alignment_bytes);
  out += fmt::format("head         {}\n", Bytes(plan.head_bytes));
  out += fmt::format("lower bound  {}   gap {:.2f} %\n", Bytes(plan.lower_bound_bytes), plan.gap_percent());
  out += fmt::format("buffers      {} ({} tensors, {} scratch)\n", plan.buffers.size(), tensors, scratch);
  if (plan.has_runtime) {
    out += fmt::format("persistent   {}   temp peak {}\n", Bytes(plan.persistent_bytes), Bytes(plan.temp_peak_bytes));
    out += fmt::format("arena        {} = persistent + max(head, temp peak)\n", Bytes(plan.arena_bytes()));
  } else if (!plan.runtime_note.empty()) {
    out += fmt::format("runtime      not available: {} (head and scratch shown for the tensors only)\n",
                       plan.runtime_note);
  }
  if (!plan.comparison.empty()) {
    std::string line;
    for (const PlannerHead& other : plan.comparison) {
      if (!line.empty()) line += ", ";
      line += fmt::format("{} {}", other.planner, Bytes(other.head_bytes));
    }
    out += fmt::format("other heads  {}\n", line);
  }
  out += "\nBuffers (lifetime = op steps [first, end))\n";
  TextTable table({"#", "kind", "owner", "name", "bytes", "lifetime", "offset", "end"},
                  {true, false, true, false, true, false, true, true});
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferRequest& b = plan.buffers[i];
    std::string owner = b.kind == BufferKind::kTensor ? fmt::format("t{}", b.owner_index)
                                                      : fmt::format("op{}", b.owner_index);
    table.AddRow({std::to_string(i), BufferKindName(b.kind), owner, Clip(OwnerName(model, b), options.name_width),
                  Thousands(b.size_bytes), fmt::format("[{}, {})", b.lifetime.first_op, b.lifetime.end_op),
                  Thousands(plan.offsets_bytes[i]), Thousands(plan.offsets_bytes[i] + b.size_bytes)});
  }
  out += table.Render("  ");
  return out;
}

nlohmann::json PlanJson(const ModelView& model, const std::string& model_path, const ModelPlan& plan) {
  using nlohmann::json;
  json doc;
  doc["model"] = model_path;
  doc["planner"] = plan.planner;
  doc["alignment"] = plan.alignment_bytes;
  doc["head_bytes"] = plan.head_bytes;
  doc["lower_bound_bytes"] = plan.lower_bound_bytes;
  doc["gap_percent"] = plan.gap_percent();
  doc["proven_optimal"] = plan.proven_optimal;
  doc["plan_seconds"] = plan.plan_seconds;
  if (plan.has_runtime) {
    doc["persistent_bytes"] = plan.persistent_bytes;
    doc["temp_peak_bytes"] = plan.temp_peak_bytes;
    doc["arena_bytes"] = plan.arena_bytes();
  } else {
    doc["runtime_note"] = plan.runtime_note;
  }
  json comparison = json::object();
  for (const PlannerHead& other : plan.comparison) comparison[other.planner] = other.head_bytes;
  doc["comparison"] = comparison;
  json buffers = json::array();
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferRequest& b = plan.buffers[i];
    json entry = {{"index", i}, {"kind", BufferKindName(b.kind)}};
    entry[b.kind == BufferKind::kTensor ? "tensor" : "op"] = b.owner_index;
    entry["name"] = OwnerName(model, b);
    entry["size_bytes"] = b.size_bytes;
    entry["first_op"] = b.lifetime.first_op;
    entry["end_op"] = b.lifetime.end_op;
    entry["offset_bytes"] = plan.offsets_bytes[i];
    if (b.fixed_offset_bytes != kNoFixedOffset) entry["fixed_offset_bytes"] = b.fixed_offset_bytes;
    buffers.push_back(entry);
  }
  doc["buffers"] = buffers;
  // Approved overlaps (plan --overlap): output may start D or more below input.
  json overlaps = json::array();
  for (const PlannedOverlap& o : plan.overlaps) {
    overlaps.push_back({{"input_tensor", o.input_tensor},
                        {"output_tensor", o.output_tensor},
                        {"input_buffer", o.input_buffer},
                        {"output_buffer", o.output_buffer},
                        {"min_displacement_bytes", o.min_displacement_bytes},
                        {"used", o.used}});
  }
  doc["overlaps"] = overlaps;
  if (!plan.overlaps.empty()) doc["overlap_lower_bound_bytes"] = plan.overlap_lower_bound_bytes;
  return doc;
}

}  // namespace microarena::report
