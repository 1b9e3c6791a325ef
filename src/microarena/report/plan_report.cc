#include "microarena/report/plan_report.h"

#include <fmt/format.h>

#include "microarena/report/format.h"
#include "microarena/report/inspect_report.h"
#include "microarena/report/kernel_data_report.h"
#include "microarena/report/plan_details.h"

namespace microarena::report {
namespace {

// Ops of the plan's longest tiled segment (0: not tiled).
size_t LongestSegmentOps(const ModelPlan& plan) {
  size_t most = 0;
  for (const TiledSegment& segment : plan.tiling) {
    const auto ops = static_cast<size_t>(segment.last_op - segment.first_op + 1);
    most = ops > most ? ops : most;
  }
  return most;
}

// The target's measured stack for this plan (deeper when tiled).
size_t DeviceStackBytes(const ModelPlan& plan, const TargetLayout& device) {
  return StackBytesFor(device, LongestSegmentOps(plan));
}

// The runtime arena plus the target's measured stack and static data.
size_t DeviceRamBytes(const ModelPlan& plan, const TargetLayout& device) {
  return plan.runtime.used_bytes + DeviceStackBytes(plan, device) + device.static_ram_bytes;
}


std::string OwnerName(const ModelView& model, const BufferRequest& buffer) {
  SubgraphView subgraph = model.subgraph(static_cast<size_t>(buffer.subgraph_index));
  if (buffer.kind == BufferKind::kScratch) {
    return fmt::format("op {} {}", buffer.owner_index, subgraph.op(static_cast<size_t>(buffer.owner_index)).name());
  }
  return subgraph.tensor(static_cast<size_t>(buffer.owner_index)).name();
}

std::string PersistentUseNote(PersistentUse use) {
  switch (use) {
    case PersistentUse::kTensorMetadata: return "one EvalTensor per tensor an op uses";
    case PersistentUse::kOpTable: return "interpreter: one node per op";
    case PersistentUse::kOpData: return "kernels' per-op data (multipliers, shifts)";
    case PersistentUse::kVariableState: return "variable tensors (RNN/LSTM state)";
    case PersistentUse::kScratchHandles: return "one head offset per scratch buffer";
    case PersistentUse::kWeightsCopy: return "constants copied into RAM";
    case PersistentUse::kTilingState: return "the band walk's memory (tiled segments)";
  }
  return "";
}

// JSON key for a persistent use: its name with '_' for ' '.
std::string PersistentUseKey(PersistentUse use) {
  std::string key = PersistentUseName(use);
  for (char& c : key) c = c == ' ' ? '_' : c;
  return key;
}

std::string Percent(size_t part, size_t whole) {
  if (whole == 0) return "-";
  return fmt::format("{:.1f} %", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

}  // namespace

std::string PlanText(const ModelView& model, const std::string& model_path, const ModelPlan& plan,
                     const PlanTextOptions& options) {
  const PlanDetails details = AnalyzePlan(model, plan);
  size_t tensors = 0, scratch = 0;
  for (const BufferRequest& b : plan.buffers) (b.kind == BufferKind::kTensor ? tensors : scratch) += 1;
  std::string out;
  out += fmt::format("model        {}\n", model_path);
  out += fmt::format("planner      {}{}\n", plan.planner, plan.proven_optimal ? " (proven optimal)" : "");
  out += fmt::format("alignment    {} B\n", plan.alignment_bytes);
  if (plan.has_runtime) {
    const TargetLayout* target = FindTargetLayout(plan.runtime.target);
    out += fmt::format("target       {} ({}; runtime figures counted for it)\n", plan.runtime.target,
                       target != nullptr ? target->description : "unknown");
  }
  out += fmt::format("buffers      {} ({} tensors, {} scratch) over {} op steps\n", plan.buffers.size(), tensors,
                     scratch, details.step_count);

  // The arena and its parts.
  out += "\nArena\n";
  TextTable arena({"part", "bytes", "what"}, {false, true, false});
  if (plan.has_runtime) {
    arena.AddRow({"arena", Bytes(plan.arena_bytes()), "persistent + max(head, temp peak): the tensor_arena size"});
    arena.AddRow({"persistent (RAM)", Bytes(plan.persistent_bytes), "tail: lives as long as the interpreter"});
    for (const PersistentPart& part : details.persistent) {
      arena.AddRow({std::string("  ") + PersistentUseName(part.use), Bytes(part.bytes),
                    fmt::format("{:>7} of persistent: {}", Percent(part.bytes, plan.persistent_bytes),
                                PersistentUseNote(part.use))});
    }
  }
  arena.AddRow({"head (RAM)", Bytes(plan.head_bytes), fmt::format("activations + scratch, planned by {}", plan.planner)});
  if (plan.has_runtime) {
    arena.AddRow({"temp peak (RAM)", Bytes(plan.temp_peak_bytes), "during AllocateTensors, at the head's start"});
  }
  const TargetLayout* device = FindTargetLayout(plan.runtime.target);
  if (plan.has_runtime && device != nullptr && device->stack_bytes > 0) {
    arena.AddRow({"device RAM", Bytes(DeviceRamBytes(plan, *device)),
                  fmt::format("the {} arena {} + stack {} + the runtime's static data {} (stack and static: "
                              "the most measured on the shared models, scripts/cortex_m.sh)",
                              plan.runtime.planner_name(), Bytes(plan.runtime.used_bytes),
                              Bytes(DeviceStackBytes(plan, *device)),
                              Bytes(device->static_ram_bytes))});
  }
  arena.AddRow({"read-only (flash)", Bytes(details.read_only_total.total_bytes()),
                fmt::format("in the model: weights {}, biases {}, quantization {}",
                            Bytes(details.read_only_total.weights_bytes), Bytes(details.read_only_total.bias_bytes),
                            Bytes(details.read_only_total.quantization_bytes))});
  if (plan.has_runtime && plan.runtime.kernel_data.state == KernelDataState::kUsed) {
    const KernelDataUse& kd = plan.runtime.kernel_data;
    arena.AddRow({"kernel data (flash)", Bytes(kd.flash_bytes),
                  fmt::format("{} ops' data read from the model: {} of RAM saved",
                              kd.ops_in_flash, Bytes(kd.ram_bytes_saved))});
  }
  out += arena.Render("  ");
  if (plan.has_runtime) {
    const KernelDataUse& kd = plan.runtime.kernel_data;
    if (kd.state != KernelDataState::kAbsent && kd.state != KernelDataState::kUsed) {
      out += fmt::format("  the model's kernel data ({}, {}) is {}: every op's data kept in RAM; run `microarena "
                         "optimize` again\n",
                         kKernelDataMetadataName, Bytes(kd.blob_bytes), KernelDataStateName(kd.state));
    } else if (kd.ops_recomputed > 0) {
      out += fmt::format("  {} ops' stored kernel data differs from what their Prepare computes (stale): kept in RAM; "
                         "run `microarena optimize` again\n",
                         kd.ops_recomputed);
    }
  }
  if (plan.has_runtime && (plan.runtime.head_bytes != plan.head_bytes || plan.runtime.planner_name() != plan.planner)) {
    out += fmt::format("  the runtime's own planner ({}) makes a head of {} and an arena of {}\n",
                       plan.runtime.planner_name(), Bytes(plan.runtime.head_bytes), Bytes(plan.runtime.used_bytes));
  }
  if (!plan.has_runtime && !plan.runtime_note.empty()) {
    out += fmt::format("  runtime figures not available: {} (head and scratch shown for the tensors only)\n",
                       plan.runtime_note);
  }
  if (plan.offline_shared_pairs > 0) {
    out += fmt::format(
        "  the model's offline plan shares bytes between {} pair(s) of live tensors (e.g. tensors {} and {}), on "
        "purpose in Arm Vela's output;\n  this plan keeps them as TFLM does (the lower bound counts them apart); "
        "the runtime accepts them only when trusted (--trust-offline-plan)\n",
        plan.offline_shared_pairs, plan.offline_shared_example[0], plan.offline_shared_example[1]);
  }

  // The head: peaks, bound, gap, alignment.
  out += "\nHead\n";
  TextTable head({"figure", "bytes", "where"}, {false, true, false});
  head.AddRow({"lower bound", Bytes(plan.lower_bound_bytes),
               details.live_peak_step < 0 ? "" : "most bytes live at one step: " +
                                                     StepLabel(model, plan, details.live_peak_step)});
  head.AddRow({"planner head", Bytes(plan.head_bytes), fmt::format("gap {:.2f} % over the lower bound", plan.gap_percent())});
  head.AddRow({"activation peak", Bytes(details.activation_peak_bytes),
               details.activation_peak_step < 0 ? "no activations"
                                                : StepLabel(model, plan, details.activation_peak_step)});
  head.AddRow({"scratch peak", Bytes(details.scratch_peak_bytes),
               details.scratch_peak_step < 0 ? "no op asks for scratch"
                                             : StepLabel(model, plan, details.scratch_peak_step)});
  if (details.largest_scratch_buffer >= 0) {
    const BufferRequest& b = plan.buffers[static_cast<size_t>(details.largest_scratch_buffer)];
    head.AddRow({"largest scratch", Bytes(b.size_bytes), BufferLabel(model, b)});
  } else {
    head.AddRow({"largest scratch", Bytes(0), "no op asks for scratch"});
  }
  head.AddRow({"alignment padding", Bytes(details.head_padding_bytes),
               fmt::format("head: sizes rounded up to {} B (requested {})", plan.alignment_bytes,
                           Bytes(details.head_requested_bytes))});
  if (plan.has_runtime) {
    head.AddRow({"", Bytes(details.persistent_padding_bytes),
                 fmt::format("persistent: allocations rounded up to {} B", plan.alignment_bytes)});
  }
  out += head.Render("  ");
  if (!plan.comparison.empty()) {
    std::string line;
    for (const PlannerHead& other : plan.comparison) {
      if (!line.empty()) line += ", ";
      line += fmt::format("{} {}", other.planner, Bytes(other.head_bytes));
    }
    out += fmt::format("  other planners' heads: {}\n", line);
  }
  if (details.activation_peak_step >= 0) {
    out += fmt::format("\nLive at the activation peak ({})\n",
                       StepLabel(model, plan, details.activation_peak_step));
    TextTable live({"#", "tensor", "name", "bytes", "lifetime"}, {true, true, false, true, false});
    for (size_t i : details.activation_peak_buffers) {
      const BufferRequest& b = plan.buffers[i];
      live.AddRow({std::to_string(i), OwnerLabel(b), Clip(OwnerName(model, b), options.name_width),
                   Thousands(b.size_bytes), fmt::format("[{}, {})", b.lifetime.first_op, b.lifetime.end_op)});
    }
    out += live.Render("  ");
  }

  out += "\nRead-only persistent (flash) per layer, bytes\n";
  TextTable flash({"op", "type", "weights", "biases", "quantization", "total"}, {true, false, true, true, true, true});
  for (const LayerFlash& layer : details.read_only_layers) {
    flash.AddRow({layer.label(), layer.op, Thousands(layer.weights_bytes),
                  Thousands(layer.bias_bytes), Thousands(layer.quantization_bytes), Thousands(layer.total_bytes())});
  }
  flash.AddRule();
  const LayerFlash& total = details.read_only_total;
  flash.AddRow({"", "total", Thousands(total.weights_bytes), Thousands(total.bias_bytes),
                Thousands(total.quantization_bytes), Thousands(total.total_bytes())});
  out += flash.Render("  ");

  out += "\nBuffers (bytes; lifetime = op steps [first, end))\n";
  TextTable table({"#", "kind", "owner", "name", "bytes", "requested", "lifetime", "offset", "end"},
                  {true, false, true, false, true, true, false, true, true});
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferRequest& b = plan.buffers[i];
    std::string owner = OwnerLabel(b);
    table.AddRow({std::to_string(i), BufferKindName(b.kind), owner, Clip(OwnerName(model, b), options.name_width),
                  Thousands(b.size_bytes), Thousands(i < plan.requested_bytes.size() ? plan.requested_bytes[i] : b.size_bytes),
                  fmt::format("[{}, {})", b.lifetime.first_op, b.lifetime.end_op),
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
  if (plan.offline_shared_pairs > 0) doc["offline_shared_pairs"] = plan.offline_shared_pairs;
  if (plan.has_runtime) {
    doc["persistent_bytes"] = plan.persistent_bytes;
    doc["temp_peak_bytes"] = plan.temp_peak_bytes;
    doc["arena_bytes"] = plan.arena_bytes();
  } else {
    doc["runtime_note"] = plan.runtime_note;
  }
  const PlanDetails details = AnalyzePlan(model, plan);
  if (plan.has_runtime) {
    json by_use = json::object();
    for (const PersistentPart& part : details.persistent) by_use[PersistentUseKey(part.use)] = part.bytes;
    doc["persistent"] = {{"total_bytes", plan.persistent_bytes},
                         {"padding_bytes", details.persistent_padding_bytes},
                         {"by_use", by_use}};
    doc["kernel_data"] = KernelDataJson(plan.runtime.kernel_data);
    doc["runtime"] = {{"planner", plan.runtime.planner_name()},
                      {"target", plan.runtime.target},
                      {"head_bytes", plan.runtime.head_bytes},
                      {"temp_peak_bytes", plan.runtime.temp_peak_bytes},
                      {"arena_bytes", plan.runtime.used_bytes}};
    const TargetLayout* device = FindTargetLayout(plan.runtime.target);
    if (device != nullptr && device->stack_bytes > 0) {
      doc["device_ram"] = {{"total_bytes", DeviceRamBytes(plan, *device)},
                           {"arena_bytes", plan.runtime.used_bytes},
                           {"stack_bytes", DeviceStackBytes(plan, *device)},
                           {"static_bytes", device->static_ram_bytes},
                           {"stack_and_static", "measured bound"}};
    }
  }
  auto step_json = [&](int32_t step) {
    if (step < 0) return json(nullptr);
    return json{{"step", step},
                {"op_index", OpIndexAtStep(plan, step)},
                {"subgraph", SubgraphAtStep(plan, step)},
                {"label", StepLabel(model, plan, step)}};
  };
  json head = {{"head_bytes", plan.head_bytes},
               {"lower_bound_bytes", plan.lower_bound_bytes},
               {"lower_bound_at", step_json(details.live_peak_step)},
               {"requested_bytes", details.head_requested_bytes},
               {"padding_bytes", details.head_padding_bytes}};
  head["activation_peak"] = {{"bytes", details.activation_peak_bytes},
                             {"at", step_json(details.activation_peak_step)},
                             {"buffers", details.activation_peak_buffers}};
  head["scratch_peak"] = {{"bytes", details.scratch_peak_bytes}, {"at", step_json(details.scratch_peak_step)}};
  if (details.largest_scratch_buffer >= 0) {
    const BufferRequest& b = plan.buffers[static_cast<size_t>(details.largest_scratch_buffer)];
    head["largest_scratch"] = {{"bytes", b.size_bytes}, {"buffer", details.largest_scratch_buffer},
                               {"op_index", b.owner_index}};
  } else {
    head["largest_scratch"] = nullptr;
  }
  doc["head"] = head;
  doc["read_only"] = ReadOnlyJson(details.read_only_layers, details.read_only_total,
                                  details.read_only_unreferenced_bytes, /*with_subgraph=*/true);
  json steps = json::array();
  for (const StepLive& step : details.steps) {
    steps.push_back({{"step", step.step},
                     {"op_index", step.op_index},
                     {"subgraph", step.subgraph},
                     {"tensor_bytes", step.tensor_bytes},
                     {"scratch_bytes", step.scratch_bytes}});
  }
  doc["steps"] = steps;
  json comparison = json::object();
  for (const PlannerHead& other : plan.comparison) comparison[other.planner] = other.head_bytes;
  doc["comparison"] = comparison;
  json buffers = json::array();
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferRequest& b = plan.buffers[i];
    json entry = {{"index", i}, {"kind", BufferKindName(b.kind)}};
    entry[b.kind == BufferKind::kTensor ? "tensor" : "op"] = b.owner_index;
    entry["subgraph"] = b.subgraph_index;
    entry["name"] = OwnerName(model, b);
    entry["size_bytes"] = b.size_bytes;
    entry["requested_bytes"] = i < plan.requested_bytes.size() ? plan.requested_bytes[i] : b.size_bytes;
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
